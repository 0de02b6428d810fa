"""What a rule is: a small libcst visitor with its own valid and invalid cases.

A rule sees the module after `tvmlint.analysis.module` has walked it, so it can ask for
the qualified name of any expression and for the context around any call. Most
rules report directly. Rules whose verdict depends on the PassContext a
function's callers provide (TVM101, TVM108) `defer` instead; the engine
resolves the context across the project and asks the rule's `judge`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    ClassVar,
    Dict,
    FrozenSet,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

from tvmlint.analysis.contexts import ContextRef, PassCtx
from tvmlint.analysis.results import UNLESS_DEFINED, Deferred
from tvmlint.analysis.walk import Visitor
from tvmlint.base.diagnostics import Finding, Fix, Position, Said
from tvmlint.base.source import split_lines
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.knowledge.catalog import RuleInfo, rule_info
from tvmlint.knowledge.target import Knowledge

if TYPE_CHECKING:
    import ast

    import libcst as cst
    from libcst.metadata import CodeRange

    from tvmlint.analysis.module import ModuleAnalysis
    from tvmlint.checks.confirmation import LiveTVM, Verdict


@dataclass(frozen=True)
class Case:
    """A test case that lives beside its rule, its source taken as written. Rules write theirs
    as blocks with `Valid` and `Invalid` below; a bare Case is for a source a block cannot hold
    (a tab, a carriage return, trailing white space).

    `expect` is a fragment every finding's message must contain (INVALID only), `detail` one its
    detail must contain;
    `fixed` is the source after `tvmlint fix --unsafe-fixes` (INVALID only).
    `files` adds more modules to the same run, for cross-module cases; `path` names
    the case's own module (a test module, `test_x.py`, is run by pytest); `beside` names
    rules selected with the case's own, as `--select TVM002,TVM303` would (TVM002 judges
    the directives of the rules selected with it).
    """

    code: str
    expect: Optional[str] = None
    target: Optional[str] = None
    fixed: Optional[str] = None
    files: Dict[str, str] = field(default_factory=dict)
    count: int = 1
    path: str = "case.py"
    beside: Tuple[str, ...] = ()
    detail: Optional[str] = None


def _block(text: str) -> str:
    """A case block as a triple-quoted string writes it (the quotes, a new line, then the code
    indented like the case around it): the first new line is the quote's, not the code's."""
    return textwrap.dedent(text[1:] if text.startswith("\n") else text)


class Valid(Case):
    """Code the rule must not report, written as a block, `Valid('''...''')` as Fixit writes
    it, or `Valid(HEAD, '''...''')` for code that begins with its module's common header (taken
    as written). `files` holds the other modules of a cross-module case, as blocks too; the other
    options (`target`, `path`, `beside`) are Case's."""

    def __init__(self, *parts: str, files: Optional[Dict[str, str]] = None, **options: Any):
        said = sorted(set(options) & {"expect", "detail", "fixed", "count"})
        if said:
            raise TypeError(f"a valid case reports nothing, so it takes no {', '.join(said)} (Invalid's options)")
        head, code = _parts(parts)
        super().__init__(head + _block(code), files=_blocks(files), **options)


class Invalid(Case):
    """Code the rule must report, written as Valid is. `fixed`, a block too, begins with the same
    header as the code (a fix that changes the header is written without one); the other options
    (`expect`, `detail`, `count`, `target`, `path`, `beside`) are Case's."""

    def __init__(self, *parts: str, fixed: Optional[str] = None, files: Optional[Dict[str, str]] = None, **options: Any):
        head, code = _parts(parts)
        super().__init__(
            head + _block(code), fixed=None if fixed is None else head + _block(fixed), files=_blocks(files), **options,
        )


def _parts(parts: Tuple[str, ...]) -> Tuple[str, str]:
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise TypeError("a case is (code) or (head, code)")


def _blocks(files: Optional[Dict[str, str]]) -> Dict[str, str]:
    return {path: _block(text) for path, text in (files or {}).items()}


CaseLike = Union[str, Case]


@dataclass(frozen=True)
class NoqaStep:
    """One file once a run's noqa step has suppressed its findings: what a rule that judges
    the directives themselves (`Rule.after_noqa`) is given."""

    text: str
    path: str  # as the report shows it
    codes: FrozenSet[str]  # the codes selected for the file
    used: Set[Tuple[int, str]]  # the (line, code) pairs whose `# noqa` suppressed a finding
    # whether a finding of `code` may still arise on `line` from what other files hold
    unsure: Callable[[int, str], bool] = lambda line, code: False


class FileContext:
    """Everything the rules of one file share."""

    def __init__(
        self,
        path: str,
        text: str,
        module: cst.Module,
        positions: Dict[cst.CSTNode, CodeRange],
        analysis: ModuleAnalysis,
        stdlib_tree: Optional[ast.Module] = None,
    ):
        self.path = path
        self.text = text
        # the stdlib parser's tree of all of `text` when the run has it (a rule that reads the
        # module with `ast` need not parse it again); None otherwise
        self.stdlib_tree = stdlib_tree
        self.lines = split_lines(text)
        self.module = module
        self.positions = positions
        self.analysis = analysis
        self.knowledge: Knowledge = analysis.k  # the release the module is checked against
        self.findings: List[Finding] = []
        self.deferred: List[Deferred] = []
        # TVM's packages the project carries itself, (name, directory): see tvmlint.analysis.own_tree
        self.own_tree: Tuple[Tuple[str, str], ...] = ()

    def span(self, node: cst.CSTNode) -> tuple:
        where = self.positions[node]
        return Position(where.start.line, where.start.column + 1), Position(where.end.line, where.end.column + 1)

    def qualname(self, node: cst.CSTNode) -> Optional[str]:
        return self.analysis.qualnames.get(node)


class Rule(Visitor):
    """What a rule author writes: `code`, `prefilter` (what a file needs for the rule to be
    looked at: data, read by the pre-filter wing), the cases, and the analysis: `start`, the
    libcst `visit_`/`leave_` methods, `finish`, and for a rule that defers, `judge` and
    `needs_level_below`; for a rule the installed TVM can check, `confirm`; a rule that judges
    after the noqa step, `after_noqa`. `report` and `defer` are given."""

    code: ClassVar[str]
    prefilter: ClassVar[Prefilter] = Prefilter()
    VALID: ClassVar[Sequence[CaseLike]] = ()
    INVALID: ClassVar[Sequence[CaseLike]] = ()

    def __init__(self, file: FileContext):
        self.file = file
        self._said: set = set()  # (start, end, message) already reported

    @classmethod
    def info(cls) -> RuleInfo:
        return rule_info(cls.code)

    def start(self) -> None:
        """Called after the analysis, before the walk: rules built on its events work here."""

    def finish(self) -> None:
        """Called after the walk."""

    def report(
        self, node: cst.CSTNode, message: str, fix: Optional[Fix] = None, noqa_lines: Tuple[int, ...] = (),
        detail: str = "",
    ) -> None:
        """`message`: one sentence, what is wrong here with this site's facts; `detail`: why it
        matters and what to do (Said). `noqa_lines`: other lines whose `# noqa` also suppresses
        the finding (Finding.noqa_lines). The same message on the same node is reported once: a
        pass-name constant several contexts are given is one mistake, written in one place."""
        start, end = self.file.span(node)
        if (start, end, message) in self._said:
            return
        self._said.add((start, end, message))
        self.file.findings.append(
            Finding(self.file.path, start, end, self.code, self.info().severity, message, fix, noqa_lines=noqa_lines,
                    detail=detail)
        )

    def defer(
        self, node: cst.CSTNode, ctx: ContextRef, payload: Any, fix: Optional[Fix] = None,
        noqa_lines: Tuple[int, ...] = (),
    ) -> None:
        if isinstance(ctx, PassCtx) and getattr(payload, UNLESS_DEFINED, None) is None:
            # the file knows the context: `tvmlint.analysis.project.settle` will judge it alone, so what it
            # would drop is dropped here, before placing the node (which renders its statement)
            kind = type(self)
            if "judge" not in kind.__dict__ or kind.judge(payload, ctx) is None:
                return
        start, end = self.file.span(node)
        self.file.deferred.append(Deferred(self.code, start, end, ctx, payload, fix, noqa_lines))

    @classmethod
    def needs_level_below(cls, payload: Any) -> Optional[int]:
        """A level below which every context `judge` finds fault with lies, if there is one.

        A waiting finding whose bound is at or below the default level can only come
        from a context that writes a lower level as a literal; the runner follows its
        callers only where such a context can reach it (`tvmlint.run.low_contexts`).
        None (the default): no bound, always followed.
        """
        return None

    @classmethod
    def after_noqa(cls, step: NoqaStep) -> List[Finding]:
        """Its findings in one file, judged after the run's noqa step (TVM002: the directives
        that suppressed nothing). Asked only of a rule whose catalog entry says `stage = "noqa"`,
        for each file that selects it and holds a `noqa`; such a rule analyses no module."""
        return []

    @classmethod
    def judge(cls, payload: Any, ctx: PassCtx) -> Optional[Said]:
        """What to say (message and detail) when `payload` is a mistake under `ctx`, else None.
        The project step adds the calls that brought `ctx` (`tvmlint.analysis.project.judged`)."""
        raise NotImplementedError

    @classmethod
    def confirm(cls, finding: Finding, tvm: LiveTVM) -> Verdict:
        """What the installed TVM says about one of this rule's findings (`check --confirm`),
        asked through `tvm` (`checks/confirmation.py`). A rule that does not write it is one
        the companion cannot check: its findings stay static."""
        raise NotImplementedError
