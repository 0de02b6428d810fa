"""TVM106 conflicting-pass-lists: one pass in both required_pass and disabled_pass."""

from __future__ import annotations

from tvmlint.checks.context_args import ContextSettingsRule, context_calls
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Valid

HEAD = "import tvm\nfrom tvm import relay\n"


class ConflictingPassLists(ContextSettingsRule):
    code = "TVM106"
    prefilter = Prefilter(triggers=("context_factories",), wants="gives_argument",
                          arguments=("required_pass", "disabled_pass"))

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, required_pass=['FastMath'], disabled_pass=['AlterOpLayout']):
                lib = relay.build(mod, 'llvm')
        """),
        # names differ in case: two different (if odd) names
        Valid(HEAD, """
            with tvm.transform.PassContext(required_pass=['FoldConstant'], disabled_pass=['foldconstant']):
                pass
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(required_pass=names, disabled_pass=['FoldConstant']):
                pass
        """),
    ]
    INVALID = [
        # through constants: the same pass in both
        Invalid(HEAD, """
            KEEP = ('FoldConstant', 'FuseOps')
            SKIP = ['FoldConstant']
            with relay.build_config(opt_level=3, required_pass=KEEP, disabled_pass=SKIP):
                pass
        """, expect="'FoldConstant'"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, required_pass=['FastMath'], disabled_pass=['FastMath']):
                lib = relay.build(mod, 'llvm')
        """, expect="disabled_pass wins"),
        Invalid(HEAD, """
            with relay.build_config(3, ['AlterOpLayout', 'FoldConstant'], ('FoldConstant',)):
                pass
        """, expect="'FoldConstant'"),
    ]

    def start(self) -> None:
        for call in context_calls(self.file):
            disabled = {name for name, _ in call.names("disabled_pass")}
            for name, node in call.names("required_pass"):
                if name in disabled:
                    self.report(
                        node,
                        f"'{name}' is in both required_pass and disabled_pass, and disabled_pass wins",
                        detail=(
                            "The gate reads disabled_pass first, so no Sequential runs it. Remove it from one of the lists."
                        ),
                    )
