"""Applying fixes: rounds of non-overlapping edits, each re-checked, and atomic writes.

A round takes every selected fix whose edits do not touch another's (two fixes
that both add `import tvm` at the same place never go together, so the import
is added once), applies them all at once, and re-checks the text once. A fix
whose finding is still there afterwards is discarded and reported; a round whose
result does not parse is retried without the fixes that break it (found by
halving the round, not by parsing the file once per fix). Rounds repeat until
nothing changes (at most MAX_ROUNDS), so a second `tvmlint fix` finds nothing to
do. The findings of the text as read may be given (a run just found them), so
that a fix costs one check per round and no more.

A file is written only when its fixed text parses, through a temporary file in
the same directory renamed over it (permissions, owner and group kept), in its own encoding,
BOM and line endings, and only if it has not changed on disk since it was read.
"""

from __future__ import annotations

import bisect
import errno
import os
import stat
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import libcst as cst

from tvmlint.analysis.edits import apply_edits, offsets, to_offset
from tvmlint.base.diagnostics import Finding
from tvmlint.base.filestate import signature
from tvmlint.base.notebook import NotebookSource, decode_file, file_bound, is_notebook
from tvmlint.base.source import (
    NotByteExact,
    SourceText,
    edited_bytes,
    read_file_stat,
    replace_file,
)

MAX_ROUNDS = 10


@dataclass
class TextFix:
    """What fixing one text did."""

    original: str
    fixed: str
    applied: List[Finding] = field(default_factory=list)
    discarded: List[Tuple[Finding, str]] = field(default_factory=list)
    remaining: List[Finding] = field(default_factory=list)
    verified: bool = False  # `fixed` parsed (Python and libcst) when its round was applied

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def wanted(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and bool(finding.fix.edits) and (finding.fix.safe or unsafe)


def _key(finding: Finding) -> Tuple[str, str]:
    return finding.code, finding.message


def _fix_key(finding: Finding) -> tuple:
    fix = finding.fix
    return (finding.code, finding.message, fix.edits if fix else ())


def choose(findings: Iterable[Finding], text: str, unsafe: bool, rejected: set) -> List[Finding]:
    """Fixes whose edits neither overlap nor touch an already chosen one."""
    starts = offsets(text)
    # the chosen spans, disjoint and apart, sorted by start: a span meets one of them only if
    # it meets the last that starts at or before its end (thousands of fixes in a large file)
    begins: List[int] = []
    ends: List[int] = []
    chosen: List[Finding] = []
    for finding in findings:
        if not wanted(finding, unsafe) or _fix_key(finding) in rejected:
            continue
        spans = [(to_offset(starts, e.start), to_offset(starts, e.end)) for e in finding.fix.edits]
        if any(_meets(begins, ends, begin, end) for begin, end in spans):
            continue
        for begin, end in spans:
            where = bisect.bisect_right(begins, begin)
            if where and ends[where - 1] >= begin:  # two edits of one fix that touch: one span
                begin = min(begin, begins[where - 1])
                end = max(end, ends[where - 1])
                where -= 1
                del begins[where], ends[where]
            begins.insert(where, begin)
            ends.insert(where, end)
        chosen.append(finding)
    return chosen


def _meets(begins: List[int], ends: List[int], begin: int, end: int) -> bool:
    where = bisect.bisect_right(begins, end) - 1
    return where >= 0 and ends[where] >= begin


def parses(text: str) -> Optional[str]:
    """None when both Python (the one running tvmlint) and libcst parse `text`, else why not.
    libcst alone is not enough: it takes the newest grammar (`type X = int`) whatever Python
    runs the code, and the re-check of such a result showed only a TVM001, as if the fixed
    findings were gone."""
    return python_parses(text) or libcst_parses(text)


def python_parses(text: str) -> Optional[str]:
    """None when the Python running tvmlint parses `text`, else why not."""
    from tvmlint.analysis.used_names import parse, parses

    if parses(text):  # without building the tree the re-check builds anyway
        return None
    _tree, error = parse(text)
    if error is not None:
        line, _column, why = error
        return f"line {line}: {why.removeprefix('The file could not be parsed: ')}"
    return None


def libcst_parses(text: str) -> Optional[str]:
    """None when libcst parses `text`, else why not. A re-check that analysed this very text
    parsed it already (`tvmlint.run.engine.parsed_whole`): it is not parsed again."""
    from tvmlint.run.engine import parsed_whole

    if parsed_whole(text):
        return None
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return f"line {error.raw_line}: {error.message}"
    except RecursionError:
        return "too deeply nested"
    return None


def _apply(text: str, batch: Sequence[Finding]) -> str:
    return apply_edits(text, [edit for finding in batch for edit in finding.fix.edits])


def fix_text(text: str, check, unsafe: bool, findings: Optional[Sequence[Finding]] = None) -> TextFix:
    """Fix `text`; `check(text) -> findings` re-checks it the way the run does. `findings`:
    what `check(text)` gives, when the caller has it already (a run of this one file)."""
    result = TextFix(text, text)
    rejected: set = set()
    findings = check(text) if findings is None else list(findings)
    for _ in range(MAX_ROUNDS):
        batch = choose(findings, text, unsafe, rejected)
        applied = False
        while batch:
            candidate = _apply(text, batch)
            # Python's parser first (cheap); libcst's after the re-check, which parsed the
            # candidate with it already when it analysed the whole text
            why = python_parses(candidate)
            after = check(candidate) if why is None else None
            why = why or libcst_parses(candidate)
            if why is not None:
                broken = _broken(text, batch)
                for finding, reason in broken:
                    result.discarded.append((finding, f"the fixed code would not parse ({reason or why})"))
                    rejected.add(_fix_key(finding))
                gone = {id(finding) for finding, _reason in broken}
                batch = [f for f in batch if id(f) not in gone]
                continue
            failed = _still_there(findings, batch, after)
            if failed:
                for finding in failed:
                    result.discarded.append((finding, "the finding is still there after the fix"))
                    rejected.add(_fix_key(finding))
                batch = [f for f in batch if f not in failed]
                continue
            text, findings = candidate, after
            result.applied.extend(batch)
            result.verified = True
            applied = True
            break
        if not applied:
            break
    result.fixed = text
    result.remaining = list(findings)
    return result


def _broken(text: str, batch: Sequence[Finding]) -> List[Tuple[Finding, Optional[str]]]:
    """The fixes of `batch` whose result alone does not parse, each with why; every fix of the
    batch (why: None) when none breaks alone but together they do. Halves of the batch that
    parse are cleared at once: a few broken fixes among thousands cost a few dozen parses."""
    found: List[Tuple[Finding, Optional[str]]] = []
    pending = [list(batch)]
    while pending:
        group = pending.pop()
        why = parses(_apply(text, group))
        if why is None:
            continue
        if len(group) == 1:
            found.append((group[0], why))
            continue
        middle = len(group) // 2
        pending.extend((group[middle:], group[:middle]))
    return found or [(finding, None) for finding in batch]


def _still_there(before: Sequence[Finding], batch: Sequence[Finding], after: Sequence[Finding]) -> List[Finding]:
    """The fixes of `batch` whose finding the re-check still shows (counted by code and message)."""
    had, fixing, has = Counter(map(_key, before)), Counter(map(_key, batch)), Counter(map(_key, after))
    return [f for f in batch if has[_key(f)] > had[_key(f)] - fixing[_key(f)]]


# -- files ----------------------------------------------------------------------------


class FileChanged(Exception):
    """The file on disk is not the one that was read."""


def write_atomic(path: Path, data: bytes, expected: bytes) -> None:
    """Replace `path` with `data` if it still holds `expected`; a reader sees the old or the new file, never half."""
    target = path.resolve()
    if target.read_bytes() != expected:
        raise FileChanged(str(path))
    status = os.stat(target)
    if not os.access(target, os.W_OK) or not status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        # the rename below needs only the directory's permission: without this, a read-only file
        # (a vendored copy, one version control keeps read-only until it is opened for edit) is replaced;
        # the mode bits too, since root passes os.access whatever the mode
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))

    def prepare(temporary: str) -> None:
        _same_owner(temporary, status)
        os.chmod(temporary, stat.S_IMODE(status.st_mode))  # after chown, which may clear set-id bits
        if target.read_bytes() != expected:  # changed while we wrote
            raise FileChanged(str(path))

    replace_file(target, data, prepare)


def _same_owner(temporary: str, status: os.stat_result) -> None:
    """Give the new file the original's owner and group, as far as this process may: it was
    created by whoever runs tvmlint (root fixing a user's checkout, a CI container fixing a
    mounted tree would otherwise leave files their owner cannot edit)."""
    if not hasattr(os, "chown"):
        return
    mine = os.stat(temporary)
    if (mine.st_uid, mine.st_gid) == (status.st_uid, status.st_gid):
        return
    for uid, gid in ((status.st_uid, status.st_gid), (-1, status.st_gid)):  # owner needs root; a group of ours does not
        try:
            os.chown(temporary, uid, gid)
            return
        except OSError:
            continue


@dataclass
class FileOutcome:
    path: Path
    shown: str
    fix: Optional[TextFix] = None
    source: Optional[SourceText] = None
    problem: Optional[str] = None  # why the file was left untouched
    written: bool = False
    known_used: bool = False  # it started from the run's findings (the file was as the run read it)


def _keeping_cell_errors(check, source: SourceText, findings: Optional[Sequence[Finding]]):
    """`check`, for a notebook whose cells do not all parse, giving the run's TVM001 of those cells
    too: the module text holds them as blank lines (no fix touches them), so a re-check of the
    text alone cannot say they are still broken, and what remains after the fix would lose them."""
    if not isinstance(source, NotebookSource) or not source.broken or not findings:
        return check
    from tvmlint.run.engine import PARSE_ERROR

    lines = set(source.parse_error_lines(source.text))
    kept = sorted((f for f in findings if f.code == PARSE_ERROR and f.start.line in lines), key=lambda f: f.start.line)
    if not kept:
        return check

    def with_cell_errors(text: str) -> List[Finding]:
        moved = [replace(f, start=replace(f.start, line=line), end=replace(f.end, line=line + f.end.line - f.start.line))
                 for f, line in zip(kept, source.parse_error_lines(text))]
        return sorted(check(text) + moved, key=lambda f: f.sort_key)

    return with_cell_errors


def fix_file(path: Path, shown: str, check, unsafe: bool, write: bool, known=None) -> FileOutcome:
    """Fix one file. `known`: (findings, signature) when the caller has what `check` gives for
    the file whose status had that signature; used only if the file read still has it."""
    outcome = FileOutcome(path, shown)
    try:
        data, status = read_file_stat(path)
    except OSError as error:
        outcome.problem = f"could not be read: {error.strerror}"
        return outcome
    source, why = decode_file(path, data)
    if source is None:
        outcome.problem = f"could not be decoded: {why}"
        return outcome
    outcome.source = source
    findings = known[0] if known is not None and signature(status) == known[1] else None
    outcome.known_used = findings is not None
    outcome.fix = fix_text(source.text, _keeping_cell_errors(check, source, findings), unsafe, findings)
    if not outcome.fix.changed or not write:
        return outcome
    why = None if outcome.fix.verified else parses(outcome.fix.fixed)
    if why is not None:  # every round is checked; this guards the file itself
        outcome.problem = f"left untouched: the fixed code would not parse ({why})"
        return outcome
    try:
        encoded = edited_bytes(source, data, outcome.fix.fixed)
    except UnicodeEncodeError as error:
        outcome.problem = f"left untouched: the fixed code cannot be written as {source.encoding} ({error.reason})"
        return outcome
    except NotByteExact as error:
        outcome.problem = f"left untouched: {error}"
        return outcome
    try:
        write_atomic(path, encoded, data)
    except FileChanged:
        outcome.problem = "left untouched: it changed on disk while tvmlint was fixing it"
        return outcome
    except OSError as error:
        outcome.problem = f"left untouched: could not be written ({error.strerror})"
        return outcome
    outcome.written = True
    return outcome


def by_path(findings: Iterable[Finding]) -> Dict[str, List[Finding]]:
    grouped: Dict[str, List[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.path, []).append(finding)
    return grouped


def add_noqa_to_file(path, findings: Iterable, write: bool = True,
                     changed: Optional[List[Tuple[str, str]]] = None,
                     limit: Optional[int] = None) -> Tuple[int, Optional[str]]:
    """Add noqa directives for `findings` to the file at `path`, written atomically
    (`write_atomic`). (lines changed, a problem to report or None). `write=False`: nothing is
    written; the text before and after is appended to `changed` (for --diff). `limit`: the
    file's max-file-size in bytes (None: none), past which it is not read."""
    from tvmlint.base.noqa import add_noqa_to_text, codes_to_add
    from tvmlint.base.source import read_file

    wanted = codes_to_add(findings)
    if not wanted:
        return 0, None
    try:
        data = read_file(path, file_bound(limit) if is_notebook(path) else limit)
    except OSError as error:
        return 0, f"could not be read: {error.strerror}"
    source, why = decode_file(path, data)
    if source is None:
        return 0, f"could not be decoded: {why}"
    text, added, skipped = add_noqa_to_text(source.text, wanted)
    problem = None
    if skipped:
        problem = f"no noqa added on line{'s' if len(skipped) > 1 else ''} {', '.join(map(str, skipped))}: " \
                  "the line ends inside a string or continues with a backslash, or the module does not tokenize"
    if not added:
        return 0, problem
    try:
        encoded = edited_bytes(source, data, text)
        if not write:
            if changed is not None:
                changed.append((source.text, text))
            return added, problem
        write_atomic(path, encoded, data)
    except NotByteExact as error:
        return 0, f"left untouched: {error}"
    except FileChanged:
        return 0, "left untouched: it changed on disk while tvmlint was reading it"
    except (OSError, UnicodeEncodeError) as error:
        return 0, f"left untouched: could not be written ({getattr(error, 'strerror', None) or error})"
    return added, problem
