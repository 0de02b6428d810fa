"""Checking one module's text: parse, analyse, run the selected rules.

The rules are imported only when a file names TVM, and libcst only when the
pre-filter wing (`tvmlint.prefilter.decide`) lets a file through (the rules load without
it, `tvmlint.analysis.lazy`): importing libcst costs more than checking a small file, and a
pre-commit run on a file no rule wants should not pay for it.
"""

from __future__ import annotations

import contextlib
import gc
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, FrozenSet, Iterator, List, NamedTuple, Optional, Tuple

from tvmlint.analysis.contexts import PassCtx
from tvmlint.analysis.results import CallFact, FileResult
from tvmlint.base.diagnostics import Finding, Position
from tvmlint.base.noqa import suppressions
from tvmlint.base.versions import Version
from tvmlint.knowledge.catalog import rule_info
from tvmlint.knowledge.target import get_knowledge
from tvmlint.prefilter.decide import UNKNOWN_MENTIONS
from tvmlint.run.budget import within
from tvmlint.run.discovery import resolve
from tvmlint.run.guards import (
    Measured,
    measure_in_parts,
    not_python,
    over_time,
    shape_problem,
)
from tvmlint.run.task import Task

if TYPE_CHECKING:
    import ast

    import libcst as cst


PARSE_ERROR = "TVM001"


def module_name_for(path: Path) -> Tuple[str, bool]:
    """Dotted module name from the package directories above `path`, and whether it is a package."""
    path = resolve(path) if os.path.exists(path) else path
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while os.path.exists(directory / "__init__.py") and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts) or path.stem, is_package


def parse_error(path: str, codes: FrozenSet[str], line: int, column: int, why: str) -> List[Finding]:
    if PARSE_ERROR not in codes:
        return []
    where = Position(max(line, 1), max(column, 1))
    return [Finding(path, where, where, PARSE_ERROR, rule_info(PARSE_ERROR).severity, why)]


@dataclass
class Checked:
    """One file through `check_module`: its result, whether libcst analysed it, and
    (when it did not) the qualified names it may use, for the rounds that follow helpers."""

    result: FileResult
    analysed: bool
    mentions: str = ""  # UNKNOWN_MENTIONS: not worked out (a later round reads the file if it must)
    partial: bool = False  # analysed with some definitions blanked out; `mentions` are theirs
    # left out because its rules need a context below the default level (tvmlint.run.low_contexts):
    # the run analyses it when a file of it writes one that can reach it
    awaits_low: bool = False
    # the lowest opt_level it gives a context as a literal, below every release's default
    # (tvmlint.run.low_contexts.lowest_written_level); None: none
    low_level: Optional[int] = None
    timed_out: bool = False  # stopped at `max-analysis-time`: a verdict of the machine's, never cached


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while one module is checked.

    Parsing and the analysis allocate millions of objects that live until the
    module is done, and each burst of allocations sets off collections that walk
    every object the process holds: on apache/tvm's tree that was a quarter of
    a run's CPU time. What reference counting frees still goes at once; the few
    cycles a check leaves wait for the first collection after it, so peak
    memory stays where it was (benchmarks/run.py prints it).
    """
    if not gc.isenabled():  # paused already (a caller's, or another thread's check)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def check_module(text: str, task: Task) -> Checked:
    """The stdlib parser first (TVM001, and whether any selected rule can fire); libcst only
    when the pre-filter wing says one can (`task.prefilter`), or always (off). `task.follow`:
    a later round's (names whose callers matter, names whose definitions matter): the file is
    analysed whatever the rules want, the definitions naming them kept
    (`tvmlint.prefilter.prune`). `task.confirm`: with `follow`, for a file whose mentions were
    not worked out: analysed only if it names (or defines) a followed name. `task.defer_low`:
    a run's first round; the lowest level the module writes for a context is recorded
    (`Checked.low_level`), and a module whose rules can only fire under a context below the
    default level, and that writes none itself, is left out (`awaits_low`: the run asks
    again). `task.max_seconds`: seconds the check may take (None: no limit); past them it
    stops, and the file's one TVM001 says so."""

    def stopped() -> Checked:
        checked = _not_analysed(text, task, (1, 1, over_time(task.max_seconds)))
        checked.timed_out = True
        return checked

    return within(task.max_seconds, lambda: _checked_module(text, task), stopped)


def _checked_module(text: str, task: Task) -> Checked:
    from tvmlint.analysis import used_names as names

    with _no_cycle_collection():
        wanted = not task.prefilter or task.follow is not None or _may_want(text, task)
        # (a text no rule wants is asked only for its syntax: its shape decides nothing)
        measured = measure_in_parts(text, shape=wanted)
        # a statement too large to parse has no syntax verdict: said so in any file, as max-file-size is
        if measured is not None and (measured.error is not None or measured.unparsed is not None or wanted):
            refused = _refused(text, task, measured)
            if refused is not None:
                return refused
        if not wanted and (measured is not None or names.parses(text)):
            # no selected rule can want it, its text says: the parser's verdict is all it needs (TVM001)
            checked = Checked(_result(task), False, UNKNOWN_MENTIONS)
            checked.low_level = _low_level(text, task.version, None) if task.defer_low else None
            return checked
        tree, error = names.parse(text)
        low_level = (_low_level(text, task.version, tree)
                     if task.defer_low and task.prefilter and tree is not None else None)
        if task.defer_low and low_level is not None:
            task = replace(task, defer_low=False)  # it writes one itself: nothing to wait for
        checked = _check_module(text, task, tree, error)
        # gone before collection resumes: a collection that found the tree alive would walk
        # every node of it
        del tree
    checked.low_level = low_level
    return checked


def _result(task: Task) -> FileResult:
    return FileResult(task.shown, task.module_name, task.version, task.codes)


def _refused(text: str, task: Task, measured: Measured) -> Optional[Checked]:
    """A large text's TVM001 when its parts say it does not parse or is too large to analyse (its
    whole tree never built), as `_check_module` gives it; None when it may be analysed."""
    if measured.error is not None:
        return _not_analysed(text, task, measured.error, not not_python(text))
    too_big = measured.too_big()
    if too_big is None:
        return None
    return _not_analysed(text, task, (1, 1, f"The file could not be analysed: {too_big}"))


def _not_analysed(text: str, task: Task, where: Tuple[int, int, str], reported: bool = True, defined=()) -> Checked:
    """A module that is not analysed: its TVM001 at (line, column, message) when `reported`,
    and its noqa directives (they may suppress it)."""
    result = _result(task)
    result.noqa = suppressions(text)
    if reported:
        result.findings = parse_error(task.shown, task.codes, *where)
    result.defined_passes = sorted(defined)
    return Checked(result, False)


def _low_level(text: str, version: Version, tree: Optional["ast.Module"]) -> Optional[int]:
    # so that the run knows which files write a context below the default level without
    # reading them again (tvmlint.run.low_contexts)
    from tvmlint.run.low_contexts import factories_at, lowest_written_level

    factories = factories_at(get_knowledge(version))
    return lowest_written_level(text, factories, factories.ceiling, tree)


def _may_want(text: str, task: Task) -> bool:
    """Whether a selected rule may want a module, by its text alone (the wing's decision, as far
    as the text goes, before the parser builds a tree)."""
    from tvmlint.prefilter.decide import may_want

    return may_want(text, task)


def _check_module(text: str, task: Task, tree: Optional["ast.Module"], error: Optional[Tuple[int, int, str]]) -> Checked:
    if tree is None:  # a shell script named .py is not a Python file with an error
        return _not_analysed(text, task, error, not not_python(text))
    if task.prefilter:
        from tvmlint.prefilter.decide import decide

        decision = decide(text, tree, task)
        if decision.running is None:
            result = _result(task)
            result.defined_passes = sorted(decision.defined)
            return Checked(result, False, decision.mentions, awaits_low=decision.awaits_low)
        pruned, running, defined = decision.pruned, decision.running, decision.defined
    else:
        pruned, running, defined = None, task.codes, frozenset()
    too_big = shape_problem(tree)
    if too_big:
        return _not_analysed(text, task, (1, 1, f"The file could not be analysed: {too_big}"), defined=defined)
    if pruned is not None:
        result = analyze_text(text, task, _Trees(pruned.tree, tree), pruned.text, running)
        checked = Checked(result, True, pruned.mentions, partial=True)
    else:
        checked = Checked(analyze_text(text, task, _Trees(tree, None), running=running), True)
    if defined:
        checked.result.defined_passes = sorted(defined.union(checked.result.defined_passes))
    return checked


class _Trees(NamedTuple):
    """The stdlib parser's trees of a module: of what is analysed (positions use it), and of all
    of its text when that is the pruned text's (None: the same tree, or none)."""

    analysed: Optional["ast.Module"]
    whole: Optional["ast.Module"] = None


# The last text libcst parsed whole here: `tvmlint.run.fixer` re-checks a fixed text and must know that
# libcst parses it, which that check found out already (a 20,000-line file: seconds to parse again).
_PARSED_WHOLE: List[Optional[str]] = [None]


def parsed_whole(text: str) -> bool:
    """Whether the last module analysed in this process was `text`, parsed whole by libcst."""
    last = _PARSED_WHOLE[0]
    return last is not None and (last is text or last == text)


def analyze_text(
    text: str,
    task: Task,
    trees: _Trees = _Trees(None),
    analysed: Optional[str] = None,
    running: Optional[FrozenSet[str]] = None,
) -> FileResult:
    """Check one module. Never raises for bad input: that becomes TVM001.
    `trees`: the stdlib parser's trees, when the caller has them;
    `analysed`: the text with the definitions no rule needs blanked out (`tvmlint.prefilter.prune`);
    `running`: the codes of the rules to run, when the wing knows the others cannot fire."""
    import libcst as cst

    path, codes = task.shown, task.codes
    result = _result(task)
    result.noqa = suppressions(text)
    _PARSED_WHOLE[0] = None
    try:
        module = cst.parse_module(analysed if analysed is not None else text)
        if analysed is None or analysed == text:
            _PARSED_WHOLE[0] = text
    except cst.ParserSyntaxError as error:
        result.findings = parse_error(
            path, codes, error.raw_line, error.raw_column + 1,
            # reached after the stdlib parser accepted the text: the limit is libcst's, not a syntax error
            f"The file could not be analysed: libcst cannot parse it, though Python can ({error.message.strip()})",
        )
        return result
    except RecursionError:
        result.findings = parse_error(path, codes, 1, 1, "The file could not be parsed: it is too deeply nested")
        return result
    try:
        whole = trees.whole if trees.whole is not None else trees.analysed if analysed is None else None
        return _analyze_module(module, text, result, task, _Trees(trees.analysed, whole),
                               codes if running is None else running)
    except RecursionError:
        result.findings = parse_error(path, codes, 1, 1, "The file could not be analysed: it is too deeply nested")
        return result


def _analyze_module(
    module: "cst.Module", text: str, result: FileResult, task: Task, trees: _Trees, running: FrozenSet[str],
) -> FileResult:
    import libcst as cst

    from tvmlint.analysis.constants import module_constants, option_defaults
    from tvmlint.analysis.module import ModuleAnalysis, call_key
    from tvmlint.analysis.positions import LazyPositions, parse_quietly
    from tvmlint.analysis.walk import walk, walk_batched
    from tvmlint.checks import all_rules
    from tvmlint.checks.rule import FileContext

    tree, whole_tree = trees
    knowledge = get_knowledge(result.version)
    stdlib_tree = (lambda: tree) if tree is not None else (lambda: parse_quietly(text))
    for exact in (False, True):
        analysis = ModuleAnalysis(knowledge, result.module_name, task.is_package)
        positions = LazyPositions(
            module, text, stdlib_tree, analysis, exact=exact,
        )
        analysis.positions = positions
        walk(module, analysis)
        # lines named while walking came from the stdlib tree before both parsers' calls were counted
        if exact or positions.hints_hold(analysis.call_counts):
            break
        _let_go(analysis, positions)
    file = FileContext(result.path, text, module, positions, analysis, whole_tree)
    file.own_tree = task.own_tree
    rules = [cls(file) for code, cls in all_rules().items() if code in running and code != PARSE_ERROR]
    for rule in rules:
        rule.start()
    walkers = [rule for rule in rules if rule.get_visitors()]
    if walkers:
        walk_batched(module, walkers)
    for rule in rules:
        rule.finish()
    result.findings = file.findings
    result.deferred = file.deferred
    for site in analysis.callsites:
        if isinstance(site.node, cst.Call):
            key = call_key(site.node.func)
            count = analysis.call_counts[(analysis.top_statement_of(site.node), key)]
            line = positions.call_line(site.node, key, analysis.call_ordinals[site.node], count)
        else:
            line = positions[site.node].start.line
        result.callsites.append(CallFact(site.callee, site.ctx, line, site.args))
    result.escaped = list(analysis.escaped_functions)
    result.functions = list(analysis.functions)
    result.defined_passes = sorted(analysis.defined_pass_names)
    result.runner_entries = dict(analysis.runner_entries)
    whole = whole_tree if whole_tree is not None else stdlib_tree()
    result.constants = module_constants(whole, text)
    result.option_defaults = option_defaults(whole, text)
    result.context_returns = {
        name: [ctx for ctx in ctxs if isinstance(ctx, PassCtx)] for name, ctxs in analysis.context_returns.items()
    }
    _let_go(analysis, positions, file, *rules)
    return result


def _let_go(*holders: object) -> None:
    # The analysis, its positions, the file context and the rules refer to one another, and
    # through them to both parsers' trees: left as cycles, the trees (a million objects on a
    # large TVMScript file) would wait for a collection that walks them all, a tenth of a
    # run's CPU. Emptied, reference counting frees them as the module's check returns.
    for holder in holders:
        vars(holder).clear()
