"""TVM303 opt-level-out-of-range: a literal opt_level that is not an int from the lowest to the highest pass level (rules/passes.toml)."""

from __future__ import annotations

from typing import Optional

from tvmlint.analysis.lazy import cst
from tvmlint.analysis.module import int_literal
from tvmlint.base.diagnostics import Said
from tvmlint.checks.context_args import context_calls
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.target import pass_levels

HEAD = "import tvm\nfrom tvm import relay\n"


class OptLevelOutOfRange(Rule):
    code = "TVM303"
    prefilter = Prefilter(triggers=("context_factories", "sequential_classes"), wants="level_literal_out_of_range")

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):
                pass
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=0):
                pass
        """),
        Valid(HEAD, """
            with relay.build_config(opt_level=5):
                pass
        """),
        Valid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=2)
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=args.level):
                pass
        """),
        # another library's function with an opt_level parameter
        Valid("""
            import mylib
            mylib.compile(model, opt_level=10)
        """),
    ]
    INVALID = [
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=7):
                pass
        """, expect="above 5"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=10):
                pass
        """, expect="opt_level=10"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=-1):
                pass
        """, expect="below 0"),
        Invalid(HEAD, """
            with tvm.transform.PassContext('3'):
                pass
        """, expect="a string, not an int (write opt_level=3)"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=b'3'):
                pass
        """, expect="is bytes, not an int (write opt_level=3)"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level='high'):
                pass
        """, expect="write an int from 0 to 5"),
        Invalid(HEAD, """
            with relay.build_config(opt_level=3.0):
                pass
        """, expect="a float"),
        Invalid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=9)
        """, expect="above 5"),
        Invalid("""
            import tvm
            from tvm import relax
            with tvm.transform.PassContext(opt_level=7, disabled_pass=['FuseOps']):
                mod = relax.transform.FuseOps()(mod)
        """, target="0.27", expect="opt_level=7"),
    ]

    def start(self) -> None:
        for call in context_calls(self.file):
            self._check(call.args.get("opt_level"))
        for sequential in self.file.analysis.sequentials:
            self._check(sequential.opt_level_arg)

    def _check(self, node: Optional[cst.BaseExpression]) -> None:
        said = self._problem(node)
        if said is not None:
            self.report(node, said.message, detail=said.detail)

    @staticmethod
    def _problem(node: Optional[cst.BaseExpression]) -> Optional[Said]:
        low, top = pass_levels()
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            kind = "a string" if isinstance(value, str) else "bytes"
            text = value.strip() if isinstance(value, str) else value.decode("latin-1").strip()
            meant = f"opt_level={text}" if text.isdigit() else f"an int from {low} to {top}"
            return Said(f"opt_level={node.value} is {kind}, not an int (write {meant})",
                        f"A PassContext's opt_level is an int. Write {meant}.")
        if isinstance(node, cst.Float):
            return Said(f"opt_level={node.value} is a float, not an int (write an int from {low} to {top})",
                        f"TVM 0.27 raises TypeError for it. Write an int from {low} to {top}.")
        level = int_literal(node)
        if level is None:
            return None
        if level > top:
            return Said(
                f"opt_level={level} is above {top}, the highest level any TVM pass has, so it runs what opt_level={top} runs",
                "TVM accepts it without a word. Write the level you mean (3 is what TVM's tutorials use).",
            )
        if level < low:
            return Said(
                f"opt_level={level} is below {low}, so a Sequential skips every pass it gates, even level-{low} ones",
                f"Even level-{low} passes such as InferType are skipped, unless required_pass names them. "
                f"Write a level from {low} to {top}.",
            )
        return None
