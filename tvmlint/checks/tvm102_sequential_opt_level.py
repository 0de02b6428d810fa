"""TVM102 sequential-opt-level: a Sequential's own opt_level does not enable its members."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from tvmlint.analysis.contexts import Gated, PassCtx, and_list, gate
from tvmlint.analysis.module import int_literal
from tvmlint.base.diagnostics import Said
from tvmlint.checks import words
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Invalid, Rule, Valid
from tvmlint.knowledge.target import pass_levels

HEAD = "import tvm\nfrom tvm import relay\n"


class SequentialOptLevel(Rule):
    code = "TVM102"
    prefilter = Prefilter(triggers=("sequential_classes",), wants="sequential_given_level")

    VALID = [
        Valid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant()])
            mod = seq(mod)
        """),
        # nested in another Sequential, its opt_level is what the outer gate compares
        Valid(HEAD, """
            inner = tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=3)
            outer = tvm.transform.Sequential([inner])
            with tvm.transform.PassContext(opt_level=3):
                mod = outer(mod)
        """),
        # built but never run here: it may be nested elsewhere
        Valid(HEAD, """
            def make():
                return tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=3)
        """),
        # the argument changes nothing that matters: every member runs at the active level anyway
        # (tests/python/relay/test_pass_manager.py#L389 at v0.12.0: no members; #L404: user passes at level 1)
        Valid(HEAD, """
            mod = tvm.transform.Sequential(opt_level=1, passes=[])(mod)
        """),
        Valid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=3)
            mod = seq(mod)
        """),
        # a context that already enables every member (tests/python/relay/test_pass_to_basic_block_normal_form.py#L509)
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=4):
                seq = tvm.transform.Sequential(passes=[relay.transform.ToBasicBlockNormalForm()], opt_level=4)
                new_mod = seq(mod)
        """),
        Valid(HEAD, """
            with tvm.transform.PassContext(opt_level=3):
                mod = tvm.transform.Sequential([relay.transform.AlterOpLayout()], opt_level=3)(mod)
        """),
        # a level held in a name, only read back (test_pass_manager.py#L382: sequential.info.opt_level)
        Valid(HEAD, """
            opt_level = 2
            sequential = tvm.transform.Sequential(passes=passes, opt_level=opt_level)
            assert sequential.info.opt_level == opt_level
        """),
        # a helper nobody calls by name: its context is unknown
        Valid(HEAD, """
            def opt(mod):
                return tvm.transform.Sequential([relay.transform.AlterOpLayout()], opt_level=3)(mod)
        """),
    ]
    INVALID = [
        Invalid(HEAD, """
            seq = tvm.transform.Sequential([relay.transform.AlterOpLayout()], opt_level=3)
            mod = seq(mod)
        """, expect="still skips AlterOpLayout (opt_level 3)"),
        Invalid(HEAD, """
            mod = tvm.transform.Sequential([relay.transform.CanonicalizeOps()], 3)(mod)
        """, expect="opt_level=3"),
        # an explicit context below the members' level, and the caller's context for a helper
        Invalid(HEAD, """
            with tvm.transform.PassContext(opt_level=1):
                mod = tvm.transform.Sequential([relay.transform.FoldConstant()], opt_level=2)(mod)
        """, expect="FoldConstant (opt_level 2)"),
        Invalid(HEAD, """
            def opt(mod):
                return tvm.transform.Sequential([relay.transform.AlterOpLayout()], opt_level=3)(mod)
            mod = opt(mod)
        """, expect="when opt is called on line"),
    ]

    def start(self) -> None:
        for run in self.file.analysis.runs:
            sequential = run.sequential
            if sequential is None or sequential.nested or sequential.opt_level_arg is None:
                continue
            level = int_literal(self.file.analysis.literal(sequential.opt_level_arg))
            if level is None:
                continue  # not a literal: what the user meant by it is not visible
            payload = SequentialLevelPayload(run.members, sequential.display, level, self.file.knowledge.context_text)
            bound = self.needs_level_below(payload)
            if bound is None or bound <= pass_levels()[0]:
                continue  # no member the argument could enable is one a context can skip
            self.defer(sequential.opt_level_arg, run.ctx, payload)

    @classmethod
    def needs_level_below(cls, payload: "SequentialLevelPayload") -> Optional[int]:
        # a finding needs a member at or below the argument's level that the context skips,
        # so a context below that member's level
        levels = [level for level in _levels(payload.members) if level <= payload.level]
        return max(levels) if levels else None

    @classmethod
    def judge(cls, payload: "SequentialLevelPayload", ctx: PassCtx) -> Optional[Said]:
        # the argument shows reliance only where it would have enabled a member the context skips
        skipped = [s for s in gate(payload.members, ctx) or () if s.member.opt_level <= payload.level]
        if not skipped:
            return None
        listed = and_list(
            s.shown for s in skipped
        )
        where = ctx.where
        message = (
            f"{payload.display} run directly ignores its opt_level={payload.level} and still skips "
            f"{words.skipped(skipped)} at opt_level {ctx.opt_level} ({words.context_named(ctx)})"
        )
        detail = (
            f"A Sequential's own opt_level does not enable its members: the gate reads the active PassContext's, "
            f"and skips {listed} at opt_level {ctx.opt_level} ({where}). Drop the argument and run it inside "
            f"`with {payload.enter}(opt_level={payload.level}):`."
        )
        return Said(message, detail)


def _levels(members: Tuple[Gated, ...]):
    for member in members:
        yield member.opt_level
        yield from _levels(member.children)


@dataclass(frozen=True)
class SequentialLevelPayload:
    members: Tuple[Gated, ...]
    display: str
    level: int
    enter: str = "tvm.transform.PassContext"  # how the target release spells a context (contexts.toml suggest)
