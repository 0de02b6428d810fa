"""PassContexts as the analysis sees them, and the gate a Sequential applies.

The gate (TVM's PassContext::PassEnabled, applied only by SequentialNode, see
rules/passes.toml [meta].gating_source): a member whose name is in
`disabled_pass` is skipped; otherwise one in `required_pass` runs; otherwise it
runs when `ctx.opt_level >= member.opt_level`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Iterator, List, Optional, Tuple, Union

from tvmlint.base.pickling import by_fields
from tvmlint.knowledge.target import pass_levels


@by_fields
@dataclass(frozen=True)
class PassCtx:
    """A context whose settings are known (or known to be unknown: None)."""

    opt_level: Optional[int]
    required: Optional[FrozenSet[str]]
    disabled: Optional[FrozenSet[str]]
    origin: str  # how a message names it: "the default context", "PassContext(opt_level=2) on line 4"
    is_default: bool = False
    config: Optional[Tuple[Tuple[str, object], ...]] = None
    by_test_runner: bool = False  # the default context a test runner gives a test function

    @property
    def where(self) -> str:
        """Where a message says the context comes from."""
        return self.origin if self.is_default else f"set by {self.origin}"


@by_fields
@dataclass(frozen=True)
class Inherited:
    """Inside a function with no enclosing `with`: whatever its callers have."""

    function: str


@by_fields
@dataclass(frozen=True)
class FromCall:
    """`with helper():` where helper is a project function that may return a context."""

    function: str
    outer: "ContextRef"
    line: int


@by_fields
@dataclass(frozen=True)
class LevelFrom:
    """A PassContext whose opt_level the file cannot read alone (`ctx` holds its other settings,
    with opt_level None). The level is the enclosing function's parameter `param` (what each
    call of `function` gives it, or its `default`), or a constant another module of the project
    defines (`names`: what the name may stand for, qualified, `config.OPT_LEVEL`)."""

    ctx: PassCtx
    written: str  # the name as the call writes it: `opt`, `OPT_LEVEL`
    function: str = ""
    position: Optional[int] = None
    default: Optional[int] = None
    names: Tuple[str, ...] = ()
    # what the `if`s around the context say of the parameter (`if opt_level == 5:`): (operator, value)
    conditions: Tuple[Tuple[str, int], ...] = ()

    def allows(self, level: int) -> bool:
        """Whether a call giving `level` reaches the context past those `if`s."""
        return all(_COMPARED[operator](level, value) for operator, value in self.conditions)


ContextRef = Union[PassCtx, Inherited, FromCall, LevelFrom]


_COMPARED = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def depends_on(ctx: ContextRef) -> Iterator[Tuple[str, bool]]:
    """The project names a context depends on, each with whether its callers matter (a function
    the context is inherited in, or whose parameter gives the level) or only its definition (a
    helper whose returned context it is, a constant that gives the level)."""
    while True:
        if isinstance(ctx, FromCall):
            yield ctx.function, False
            ctx = ctx.outer
        elif isinstance(ctx, Inherited):
            yield ctx.function, True
            return
        elif isinstance(ctx, LevelFrom):
            if ctx.function:
                yield ctx.function, True
            for name in ctx.names:
                yield name, False
            return
        else:
            return


def default_context(level: int) -> PassCtx:
    return PassCtx(
        opt_level=level,
        required=frozenset(),
        disabled=frozenset(),
        origin="the default context: no PassContext is entered here",
        is_default=True,
    )


@dataclass(frozen=True)
class Gated:
    """A pass as a Sequential sees it; `children` when it is itself a Sequential."""

    name: str
    opt_level: int
    children: Tuple["Gated", ...] = ()
    label: Optional[str] = None  # how to show it when the name is not telling ("sequential")
    maybe: bool = False  # in its Sequential on some paths only (added to the pass list under an `if`)

    @property
    def shown(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Skip:
    member: Gated
    via: Optional[str]

    @property
    def shown(self) -> str:
        """`BackwardFoldScaleAxis (opt_level 3, in FoldScaleAxis)`, as messages name a skipped pass."""
        where = f", in {self.via}" if self.via else ""
        some = ", when the list holds it: it is added on some paths only" if self.member.maybe else ""
        return f"{self.member.shown} (opt_level {self.member.opt_level}{where}{some})"


def gate(members: Tuple[Gated, ...], ctx: PassCtx, via: Optional[str] = None) -> Optional[List[Skip]]:
    """Members the opt_level gate skips under `ctx`; None when that cannot be known, or when
    the level is below any pass's (TVM303's finding, which says what the gate then skips).

    Members skipped because the user disabled them are intended, not reported.
    """
    if ctx.opt_level is None or ctx.required is None or ctx.disabled is None:
        return None
    if ctx.opt_level < pass_levels()[0]:
        return None  # TVM accepts it; the gate then skips even the level-0 passes, as TVM303 says
    skipped: List[Skip] = []
    for member in members:
        if member.name in ctx.disabled:
            continue
        if member.name not in ctx.required and member.opt_level > ctx.opt_level:
            skipped.append(Skip(member, via))
            continue
        if member.children:
            inner = gate(member.children, ctx, member.shown)
            if inner is None:
                return None
            skipped.extend(inner)
    return skipped


def leaves(members: Tuple[Gated, ...]) -> List[Gated]:
    out: List[Gated] = []
    for member in members:
        if member.children:
            out.extend(leaves(member.children))
        else:
            out.append(member)
    return out


def and_list(items) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
