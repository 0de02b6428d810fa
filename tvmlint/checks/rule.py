"""What a rule is: a small libcst visitor with its own valid and invalid cases.

A rule sees the module after `tvmlint.analysis.module` has walked it, so it can ask for
the qualified name of any expression and for the context around any call. Most
rules report directly. Rules whose verdict depends on the PassContext a
function's callers provide (TVM101, TVM108) `defer` instead; the engine
resolves the context across the project and asks the rule's `judge`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Dict,
    FrozenSet,
    List,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from tvmlint.analysis.contexts import ContextRef, PassCtx
from tvmlint.analysis.results import UNLESS_DEFINED, Deferred
from tvmlint.analysis.used_names import UsedNames, roots_of
from tvmlint.analysis.walk import Visitor
from tvmlint.base.diagnostics import Finding, Fix, Position, Said
from tvmlint.base.source import split_lines
from tvmlint.knowledge.catalog import RuleInfo, rule_info
from tvmlint.knowledge.target import Knowledge

if TYPE_CHECKING:
    import ast

    import libcst as cst
    from libcst.metadata import CodeRange

    from tvmlint.analysis.module import ModuleAnalysis


@dataclass(frozen=True)
class Case:
    """A test case that lives beside its rule.

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


CaseLike = Union[str, Case]


class FileContext:
    """Everything the rules of one file share."""

    def __init__(
        self,
        path: str,
        text: str,
        module: cst.Module,
        positions: Dict[cst.CSTNode, CodeRange],
        analysis: ModuleAnalysis,
        knowledge: Knowledge,
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
        self.knowledge = knowledge
        self.findings: List[Finding] = []
        self.deferred: List[Deferred] = []

    def span(self, node: cst.CSTNode) -> tuple:
        where = self.positions[node]
        return Position(where.start.line, where.start.column + 1), Position(where.end.line, where.end.column + 1)

    def qualname(self, node: cst.CSTNode) -> Optional[str]:
        return self.analysis.qualnames.get(node)


_TRIGGERS: Dict[Tuple[type, Knowledge], Optional[FrozenSet[str]]] = {}


class Rule(Visitor):
    code: ClassVar[str]
    # Judged against every pass name the project defines with TVM's decorators: its deferred
    # findings' payloads name one (`unless_defined`), and those modules must be analysed.
    reads_defined_passes: ClassVar[bool] = False
    VALID: ClassVar[Sequence[CaseLike]] = ()
    INVALID: ClassVar[Sequence[CaseLike]] = ()

    def __init__(self, file: FileContext):
        self.file = file
        self._said: set = set()  # (start, end, message) already reported

    @classmethod
    def info(cls) -> RuleInfo:
        return rule_info(cls.code)

    # -- the cheap stage (tvmlint.run.cheap): which files are worth a libcst parse --------

    @classmethod
    def triggers(cls, knowledge: Knowledge) -> Optional[FrozenSet[str]]:
        """TVM qualified names one of which a module must use for this rule to fire in it.

        Read them from the knowledge tables, never list them by hand. None (the
        default) means any TVM name will do: always right, only slower.
        """
        return None

    @classmethod
    def trigger_names(cls, knowledge: Knowledge) -> Optional[FrozenSet[str]]:
        """`triggers`, computed once per rule and release: the cheap stage asks for every file."""
        key = (cls, knowledge)
        if key not in _TRIGGERS:
            _TRIGGERS[key] = cls.triggers(knowledge)
        return _TRIGGERS[key]

    @classmethod
    def tokens(cls, knowledge: Knowledge) -> FrozenSet[str]:
        """Words one of which a file's text must contain for this rule to fire (the text pre-filter)."""
        names = cls.trigger_names(knowledge)
        if names is None:
            return roots_of(knowledge)
        return frozenset(name.rsplit(".", 1)[-1] for name in names)

    @classmethod
    def text_pattern(cls, knowledge: Knowledge) -> Optional[str]:
        """A regular expression a module's text must match for `wants` to hold, besides one of
        its tokens: for a rule that asks for a literal (a dtype string), the literal's text.
        A module that does not match leaves the rule's triggers out of the names the cheap
        stage looks for in it. None (the default): no such pattern."""
        return None

    @classmethod
    def text_pattern_outside_tvm(cls, knowledge: Knowledge) -> Optional[str]:
        """A second pattern that, in a module outside TVM's own packages, keeps the rule as
        `text_pattern` does (for what `wants` asks of such modules only). None (the default): none."""
        return None

    @classmethod
    def method_pattern(cls, knowledge: Knowledge) -> Optional[str]:
        """A regular expression whose match makes a module that uses TVM worth asking `wants`
        about even when none of its names reaches a trigger: for a rule about methods of TVM's
        objects (`x.asnumpy()`), which no import chain names. None (the default): none."""
        return None

    @classmethod
    def project_pattern(cls, knowledge: Knowledge) -> Optional[str]:
        """A regular expression some file of a run must match for this rule to fire in any file.

        For a rule that reports only under a context written out as a literal (a
        config key set to True) that no context of the target can hold otherwise:
        a run none of whose files writes one cannot need it (`tvmlint.run.gate`).
        None (the default): no such pattern.
        """
        return None

    @classmethod
    def wants(cls, used: UsedNames, knowledge: Knowledge) -> bool:
        """Whether the libcst analysis must see a module, given the names it uses."""
        names = cls.trigger_names(knowledge)
        return used.uses_roots if names is None else used.uses_any(names)

    @classmethod
    def may_hold_in_function(cls, function: UsedNames, module: UsedNames, knowledge: Knowledge) -> bool:
        """Whether a function nested in a definition (a method, a TVMScript function) may hold a
        finding of this rule, given what it uses and what its whole module uses.

        A rule says False only when its findings in a function come from that function
        alone, judged by what the function or the scopes around it declare (all of it in
        `module`), and no finding elsewhere depends on the function: the cheap stage then
        blanks it (`tvmlint.run.cheap.prune`). True (the default): always kept.
        """
        return True

    @classmethod
    def may_matter_in_body(cls, statement: UsedNames, module: UsedNames, knowledge: Knowledge) -> bool:
        """Whether a statement in the body of a function this rule looks into (or in a loop or
        `if` there) may hold a finding of it, or declare something one depends on.

        False lets the cheap stage blank the statement, as for `may_hold_in_function`.
        True (the default): always kept.
        """
        return True

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
    def needs_low_context(cls, tree: "ast.Module", knowledge: Knowledge, text: str) -> bool:
        """Whether every finding this rule can make in a module (its stdlib tree, its text)
        needs a context that writes a level below the default one as a literal.

        A run analyses such a module only when a file of it writes such a context where it
        can reach the module (`tvmlint.run.low_contexts`). False (the default): always analysed.
        """
        return False

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
    def judge(cls, payload: Any, ctx: PassCtx) -> Optional[Said]:
        """What to say (message and detail) when `payload` is a mistake under `ctx`, else None.
        The project step adds the calls that brought `ctx` (`tvmlint.analysis.project.judged`)."""
        raise NotImplementedError
