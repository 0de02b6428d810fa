"""TVM108 implicit-opt-level: a Relay build outside any PassContext runs at level 2."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from tvmlint.analysis.contexts import Gated, PassCtx, and_list, gate
from tvmlint.base.diagnostics import Said
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.target import tutorial_build_level

HEAD = "import tvm\nfrom tvm import relay\n"


@dataclass(frozen=True)
class BuildPayload:
    members: Tuple[Gated, ...]
    display: str
    enter: str = "tvm.transform.PassContext"  # how the target release spells a context (contexts.toml suggest)


class ImplicitOptLevel(Rule):
    code = "TVM108"
    prefilter = Prefilter(triggers=("reporting_runners", "reporting_executors"))

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):
                lib = relay.build(mod, 'llvm')
        """),
        # an explicit level 2 is a decision, not an accident
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=2):
                lib = relay.build(mod, 'llvm')
        """),
        # relax builds run nothing above level 1
        Valid("""
            import tvm
            from tvm import relax
            ex = relax.build(mod, 'llvm')
        """),
        Valid("""
            import tvm
            ex = tvm.compile(mod, 'llvm')
        """, target="0.27"),
        # a test builds at the level it tests (tests/python/relay/test_backend_graph_executor.py at v0.8.0)
        Valid(HEAD, """
            def test_plan_memory():
                lib = relay.build(mod, 'llvm')
        """, path="test_graph.py"),
        # tvmc's compiler.build (a runner derived from TVM's source) inside the context compile_model enters
        Valid("""
            import tvm
            from tvm.driver.tvmc import compiler
            with tvm.transform.PassContext(opt_level=3):
                lib = compiler.build(mod, 'llvm', executor, runtime, params, use_vm=False, mod_name='default', workspace_pools=None)
        """, target="0.12"),
        # create_executor's executor compiles at evaluate() (rules/executors.toml): inside the context
        Valid(HEAD, """
            ex = relay.create_executor('graph', mod, tvm.cpu(), 'llvm')
            with tvm.transform.PassContext(opt_level=3):
                f = ex.evaluate()
        """, target="0.10"),
        # the interpreter (the default kind) runs no build pipeline
        Valid(HEAD, """
            f = relay.create_executor(mod=mod).evaluate()
        """, target="0.10"),
        # at 0.7 the VM executor compiled in create_executor itself
        Valid(HEAD, """
            with relay.build_config(opt_level=3):
                ex = relay.create_executor('vm', mod, tvm.cpu(), 'llvm')
            f = ex.evaluate()
        """, target="0.7"),
    ]
    INVALID = [
        Invalid(HEAD, """
            lib = relay.build(mod, 'llvm', params=params)
        """, expect="without its 10 passes of levels 3 and 4", detail="AlterOpLayout"),
        # at 0.6: the passes 0.6 runs (no FastMath, no CombineParallelBatchMatmul yet), and the context 0.6 has
        Invalid("""
            import tvm
            from tvm import relay
            graph, lib, params = relay.build_module.build(mod, target=target, params=params)
        """, target="0.6",
            detail="level 4: CombineParallelConv2d and CombineParallelDense. Build inside `with relay.build_config(opt_level=3):`"),
        Invalid(HEAD, """
            exe = relay.vm.compile(mod, 'llvm')
        """, expect="opt_level 2"),
        Invalid(HEAD, """
            def build(mod):
                return relay.build(mod, 'llvm')

            lib = build(mod)
        """, expect="when build is called on line"),
        # a runner derived from TVM's source: tvmc's compiler.build calls relay.build with no context of its own
        Invalid("""
            import tvm
            from tvm.driver.tvmc import compiler
            lib = compiler.build(mod, 'llvm', executor, runtime, params, use_vm=False, mod_name='default', workspace_pools=None)
        """, detail="AlterOpLayout", target="0.12"),
        # (issue #28) create_executor(kind).evaluate() compiles at evaluate(), under the context
        # there (Learneruestc/TVM-all TVM3_deploy_quantized.py: the fp32 reference of a comparison)
        Invalid(HEAD, """
            model = relay.create_executor('vm', mod, tvm.cpu(), 'llvm').evaluate()
        """, target="0.10", expect='relay.create_executor("vm", ...).evaluate() runs outside any PassContext'),
        # the context around create_executor is gone when evaluate() builds (BBuf/tvm_mlir_learn
        # tvm_onnx_resnet18_inference.py)
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):
                intrp = relay.build_module.create_executor('graph', mod, tvm.cpu(0), 'llvm')
            out = intrp.evaluate()(x)
        """, target="0.8", detail="the tvm.transform.PassContext(opt_level=3) on line 3 around create_executor does not reach it"),
        Invalid(HEAD, """
            ex = relay.create_executor('vm', mod, tvm.cpu(), 'llvm')
            f = ex.evaluate()
        """, target="0.7", expect='relay.create_executor("vm", ...) runs outside any PassContext'),
    ]

    def start(self) -> None:
        for run in self.file.analysis.runs:
            if run.runner is not None and run.runner.report == self.code:
                self.defer(run.node, run.ctx, BuildPayload(run.members, run.display, self.file.knowledge.context_text))

    @classmethod
    def judge(cls, payload: BuildPayload, ctx: PassCtx) -> Optional[Said]:
        if not ctx.is_default or ctx.by_test_runner:
            return None  # a test builds at the level it tests: the default one is no oversight there
        skipped = gate(payload.members, ctx) or []
        if not skipped:
            return None
        by_level = {}
        for skip in skipped:
            by_level.setdefault(skip.member.opt_level, []).append(skip.member.shown)
        parts = [f"level {level}: {and_list(dict.fromkeys(names))}" for level, names in sorted(by_level.items())]
        levels = and_list(str(level) for level in sorted(by_level))
        count = len({skip.member.shown for skip in skipped})
        # "create_executor(...).evaluate() (the PassContext around create_executor does not reach it: ...)":
        # the call in the message, why no context applies in the detail
        display, _, aside = payload.display.partition(" (")
        message = (
            f"{display} runs outside any PassContext, so it builds at the default opt_level {ctx.opt_level} "
            f"without its {count} pass{'es' if count > 1 else ''} of level{'s' if len(by_level) > 1 else ''} {levels}"
        )
        detail = f"In {display}, {aside[:-1]}. " if aside.endswith(")") else ""
        detail += (
            f"At the default opt_level {ctx.opt_level} the build leaves out {'; '.join(parts)}. Build inside "
            f"`with {payload.enter}(opt_level={tutorial_build_level()}):` (what TVM's tutorials use), or write "
            f"opt_level={ctx.opt_level} there to make the choice explicit."
        )
        return Said(message, detail)
