"""TVM105 wrapper-in-required-pass: required_pass names a Sequential whose members stay gated."""

from __future__ import annotations

from tvmlint.analysis.contexts import and_list
from tvmlint.base.diagnostics import Edit, Fix
from tvmlint.checks import words
from tvmlint.checks.context_args import ContextSettingsRule, context_calls
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Case

HEAD = "import tvm\nfrom tvm import relay\n"


class WrapperInRequiredPass(ContextSettingsRule):
    code = "TVM105"
    prefilter = Prefilter(triggers=("context_factories",), wants="gives_argument", arguments=("required_pass",))

    VALID = [
        HEAD + "with tvm.transform.PassContext(required_pass=['BackwardFoldScaleAxis', 'ForwardFoldScaleAxis']):\n"
        "    mod = relay.transform.FoldScaleAxis()(mod)\n",
        # the level enables the members anyway
        HEAD + "with tvm.transform.PassContext(opt_level=3, required_pass=['FoldScaleAxis']):\n    pass\n",
        # the wrapper and its members
        HEAD + "with tvm.transform.PassContext(required_pass=['FoldScaleAxis', 'BackwardFoldScaleAxis', "
        "'ForwardFoldScaleAxis']):\n    pass\n",
        # a plain pass
        HEAD + "with tvm.transform.PassContext(required_pass=['AlterOpLayout']):\n    pass\n",
        # relax wrappers whose members are all at or below the level
        Case("import tvm\nwith tvm.transform.PassContext(required_pass=['CanonicalizeBindings']):\n    pass\n", target="0.27"),
    ]
    INVALID = [
        # the wrapper named in a module constant the context is given
        Case(HEAD + "REQUIRED = ['FoldScaleAxis', 'FoldConstant']\nwith tvm.transform.PassContext(opt_level=0, required_pass=REQUIRED):\n"
             "    lib = relay.build(mod, 'llvm')\n", expect="BackwardFoldScaleAxis (opt_level 3)"),
        Case(
            HEAD + "with tvm.transform.PassContext(required_pass=['FoldScaleAxis']):\n    lib = relay.build(mod, 'llvm')\n",
            expect="BackwardFoldScaleAxis (opt_level 3) and ForwardFoldScaleAxis (opt_level 3) stay gated at opt_level 2",
            fixed=HEAD + "with tvm.transform.PassContext(required_pass=['FoldScaleAxis', 'BackwardFoldScaleAxis', "
            "'ForwardFoldScaleAxis']):\n    lib = relay.build(mod, 'llvm')\n",
        ),
        # a level that is not a literal: the members stay gated by whatever it is
        Case(HEAD + "with relay.build_config(opt_level=level, required_pass=['FoldScaleAxis']):\n    pass\n",
             expect="by the context's opt_level"),
        # one member already listed
        Case(HEAD + "with tvm.transform.PassContext(opt_level=2, required_pass=['BackwardFoldScaleAxis', 'FoldScaleAxis']):\n"
             "    pass\n", expect="ForwardFoldScaleAxis (opt_level 3) stays gated"),
        Case(HEAD + "with tvm.transform.PassContext(opt_level=0, required_pass=['qnn.Legalize']):\n    pass\n",
             expect="QnnLegalize"),
    ]

    def start(self) -> None:
        knowledge = self.file.knowledge
        unnamed = {spec.default_name for spec in knowledge.sequential_classes.values()}
        for call in context_calls(self.file):
            required = call.names("required_pass")
            listed = {name for name, _ in required}
            disabled = {name for name, _ in call.names("disabled_pass")}
            level = call.value.ctx.opt_level
            for name, node in required:
                spec = knowledge.passes_by_name.get(name)
                if spec is None or not spec.is_sequential or not spec.members or name in unnamed:
                    continue
                gated = [
                    m for m in spec.members
                    if m.name not in listed and m.name not in disabled and (level is None or m.opt_level > level)
                ]
                if not gated:
                    continue
                shown = and_list(f"{m.name} (opt_level {m.opt_level})" for m in gated)
                where = f"at opt_level {level}" if level is not None else "by the context's opt_level"
                names = list(dict.fromkeys(m.name for m in gated))
                message = (
                    f"required_pass names the Sequential wrapper '{name}', so {words.few(f'{m.name} (opt_level {m.opt_level})' for m in gated)} "
                    f"{'stays' if len(gated) == 1 else 'stay'} gated {where}"
                )
                detail = (
                    f"The opt_level gate checks each member's own name, not the wrapper's: {shown} "
                    f"{'stays' if len(gated) == 1 else 'stay'} gated {where}. Add the members to required_pass: "
                    f"{', '.join(repr(n) for n in names)}."
                )
                start, end = self.file.span(node)
                quote = node.quote
                text = f"{node.prefix}{quote}{name}{quote}" + "".join(f", {quote}{n}{quote}" for n in names)
                self.report(node, message, Fix("Add the wrapper's members to required_pass", (Edit(start, end, text),), safe=False),
                            detail=detail)
