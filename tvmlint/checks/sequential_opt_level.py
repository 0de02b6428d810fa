"""TVM102 sequential-opt-level: a Sequential's own opt_level does not enable its members."""

from __future__ import annotations

from tvmlint.rule import Case, Rule

HEAD = "import tvm\nfrom tvm import relay\n"


class SequentialOptLevel(Rule):
    code = "TVM102"

    VALID = [
        HEAD + "seq = tvm.transform.Sequential([relay.transform.FoldConstant()])\nmod = seq(mod)\n",
        # nested in another Sequential, its opt_level is what the outer gate compares
        HEAD + "inner = tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=3)\n"
        "outer = tvm.transform.Sequential([inner])\nwith tvm.transform.PassContext(opt_level=3):\n    mod = outer(mod)\n",
        # built but never run here: it may be nested elsewhere
        HEAD + "def make():\n    return tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=3)\n",
    ]
    INVALID = [
        Case(HEAD + "seq = tvm.transform.Sequential([relay.transform.AlterOpLayout()], opt_level=3)\nmod = seq(mod)\n",
             expect="does not enable its members"),
        Case(HEAD + "mod = tvm.transform.Sequential([relay.transform.FoldConstant()], 3)(mod)\n",
             expect="opt_level"),
    ]

    @classmethod
    def triggers(cls, knowledge):
        return frozenset(knowledge.sequential_classes)

    @classmethod
    def wants(cls, used, knowledge) -> bool:
        # only a Sequential given an opt_level can be reported
        from tvmlint.cheap import call_arguments as ast_arguments

        for qualname, spec in knowledge.sequential_classes.items():
            for call in used.calls_to.get(qualname, ()):
                args, hidden = ast_arguments(call, spec.params)
                if hidden or "opt_level" in args:
                    return True
        return False

    def finish(self) -> None:
        seen = set()
        for sequential in self.file.analysis.direct_sequential_runs:
            if sequential.nested or sequential.opt_level_arg is None or id(sequential) in seen:
                continue
            seen.add(id(sequential))
            self.report(
                sequential.opt_level_arg,
                f"{sequential.display} is run directly, so its own opt_level does nothing and does not enable "
                "its members: each member is still gated by the active PassContext's opt_level (2 unless a "
                "`with tvm.transform.PassContext(opt_level=N):` says otherwise). Drop the argument and set the "
                "level on the PassContext",
            )
