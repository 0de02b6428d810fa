"""TVM105 wrapper-in-required-pass: required_pass names a Sequential whose members stay gated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Tuple

from tvmlint.analysis.contexts import PassCtx, and_list
from tvmlint.base.diagnostics import Edit, Fix, Said
from tvmlint.base.pickling import by_fields
from tvmlint.checks import words
from tvmlint.checks.context_args import ContextSettingsRule, context_calls
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Valid

if TYPE_CHECKING:
    from tvmlint.base.diagnostics import Finding
    from tvmlint.checks.confirmation import LiveTVM, Verdict

HEAD = "import tvm\nfrom tvm import relay\n"


class WrapperInRequiredPass(ContextSettingsRule):
    code = "TVM105"
    prefilter = Prefilter(triggers=("context_factories",), wants="gives_argument", arguments=("required_pass",))

    VALID = [
        Valid(HEAD, """
            with tvm.transform.PassContext(required_pass=['BackwardFoldScaleAxis', 'ForwardFoldScaleAxis']):
                mod = relay.transform.FoldScaleAxis()(mod)
        """),
        # the level enables the members anyway
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3, required_pass=['FoldScaleAxis']):
                pass
        """),
        # the wrapper and its members
        Valid(HEAD, """
            with tvm.transform.PassContext(required_pass=['FoldScaleAxis', 'BackwardFoldScaleAxis', 'ForwardFoldScaleAxis']):
                pass
        """),
        # a plain pass
        Valid(HEAD, """
            with tvm.transform.PassContext(required_pass=['AlterOpLayout']):
                pass
        """),
        # relax wrappers whose members are all at or below the level
        Valid("""
            import tvm
            with tvm.transform.PassContext(required_pass=['CanonicalizeBindings']):
                pass
        """, target="0.27"),
        # a level a parameter holds, 3 at every visible call: nothing stays gated (hxzd5568/TracNe's shape)
        Valid(HEAD, """
            def build(mod, level):
                with tvm.transform.PassContext(opt_level=level, required_pass=['FoldScaleAxis']):
                    return relay.build(mod, 'llvm')

            build(m, 3)
        """),
        # ... or reaches it only past `if level == 5:` (hxzd5568/TracNe's get_primfunc, called with 5 and 1)
        Valid(HEAD, """
            def build(mod, level):
                if level == 5:
                    with tvm.transform.PassContext(opt_level=level, required_pass=['FoldScaleAxis']):
                        return relay.build(mod, 'llvm')
                else:
                    with tvm.transform.PassContext(opt_level=level, disabled_pass=['SimplifyExpr']):
                        return relay.build(mod, 'llvm')

            build(m, 5)
            build(m, 1)
        """),
        # ... and where nothing calls the function, its level is not known: nothing is said
        Valid(HEAD, """
            def build(mod, level):
                with tvm.transform.PassContext(opt_level=level, required_pass=['FoldScaleAxis']):
                    return relay.build(mod, 'llvm')
        """),
    ]

    INVALID = [
        # a level a parameter holds, judged at each call that gives one
        Invalid(HEAD, """
            def build(mod, level):
                with tvm.transform.PassContext(opt_level=level, required_pass=['FoldScaleAxis']):
                    return relay.build(mod, 'llvm')

            build(m, 3)
            build(m, 2)
        """, expect="stay gated at opt_level 2"),
        # the wrapper named in a module constant the context is given
        Invalid(HEAD, """
            REQUIRED = ['FoldScaleAxis', 'FoldConstant']
            with tvm.transform.PassContext(opt_level=0, required_pass=REQUIRED):
                lib = relay.build(mod, 'llvm')
        """, expect="BackwardFoldScaleAxis (opt_level 3)"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(required_pass=['FoldScaleAxis']):
                lib = relay.build(mod, 'llvm')
        """, expect="BackwardFoldScaleAxis (opt_level 3) and ForwardFoldScaleAxis (opt_level 3) stay gated at opt_level 2",
            fixed="""
            with tvm.transform.PassContext(required_pass=['FoldScaleAxis', 'BackwardFoldScaleAxis', 'ForwardFoldScaleAxis']):
                lib = relay.build(mod, 'llvm')
        """),
        # a level that is not a literal: the members stay gated by whatever it is
        Invalid(HEAD, """
            with relay.build_config(opt_level=level, required_pass=['FoldScaleAxis']):
                pass
        """, expect="by the context's opt_level"),
        # one member already listed
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=2, required_pass=['BackwardFoldScaleAxis', 'FoldScaleAxis']):
                pass
        """, expect="ForwardFoldScaleAxis (opt_level 3) stays gated"),
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=0, required_pass=['qnn.Legalize']):
                pass
        """, expect="QnnLegalize"),
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
                members = tuple((m.name, m.opt_level) for m in spec.members if m.name not in listed and m.name not in disabled)
                wrapper = Wrapper(name, members)
                if level is None and call.value.level_from is not None:
                    # a level its callers or another module give: judged at each one that reaches it
                    self.defer(node, call.value.level_from, wrapper)
                    continue
                said = wrapper.said(level)
                if said is None:
                    continue
                names = list(dict.fromkeys(member for member, member_level in members if level is None or member_level > level))
                start, end = self.file.span(node)
                quote = node.quote
                text = f"{node.prefix}{quote}{name}{quote}" + "".join(f", {quote}{n}{quote}" for n in names)
                self.report(node, said.message, Fix("Add the wrapper's members to required_pass", (Edit(start, end, text),), safe=False),
                            detail=said.detail)

    @classmethod
    def judge(cls, payload: "Wrapper", ctx: PassCtx) -> Optional[Said]:
        return payload.said(ctx.opt_level) if ctx.opt_level is not None else None

    @classmethod
    def confirm(cls, finding: Finding, tvm: LiveTVM) -> Verdict:
        """The installed TVM builds the named pass as a Sequential, whose gate checks each member's name."""
        from tvmlint.checks.confirmation import Verdict
        from tvmlint.checks.finding_subject import pass_named
        from tvmlint.checks.live_tree import levels, live_gated

        name, silent = pass_named(tvm, finding, "name", "wrapper")
        if silent:
            return silent
        live = tvm.by_name.get(name)
        if live is None:
            return Verdict(None, f"the installed {tvm.tvm} registers no pass named {name!r}")
        if live.kind != "sequential" or not live.members:
            return Verdict(False, f"the installed {tvm.tvm} registers {name!r} as a {live.kind} pass, not a Sequential wrapper")
        return Verdict(
            True,
            f"the installed {tvm.tvm} builds {name!r} as a Sequential of {levels(live_gated(m) for m in live.members)}: "
            "the gate checks each member's own name",
        )


@by_fields
@dataclass(frozen=True)
class Wrapper:
    """A Sequential wrapper named in required_pass, with its members that are not listed or disabled."""

    name: str
    members: Tuple[Tuple[str, int], ...]

    def said(self, level: Optional[int]) -> Optional[Said]:
        """What is wrong at `level` (None: a level tvmlint cannot read), or None when nothing stays gated."""
        gated = [(name, member_level) for name, member_level in self.members if level is None or member_level > level]
        if not gated:
            return None
        shown = and_list(f"{name} (opt_level {member_level})" for name, member_level in gated)
        where = f"at opt_level {level}" if level is not None else "by the context's opt_level"
        verb = "stays" if len(gated) == 1 else "stay"
        names = list(dict.fromkeys(name for name, _ in gated))
        message = (
            f"required_pass names the Sequential wrapper '{self.name}', so "
            f"{words.few(f'{name} (opt_level {member_level})' for name, member_level in gated)} {verb} gated {where}"
        )
        detail = (
            f"The opt_level gate checks each member's own name, not the wrapper's: {shown} {verb} gated {where}. "
            f"Add the members to required_pass: {', '.join(repr(n) for n in names)}."
        )
        return Said(message, detail)
