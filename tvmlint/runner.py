"""A whole run: find files, check each (in worker processes, through the cache), resolve, filter.

Per file (`tvmlint.engine.check_module`): the stdlib parser checks the syntax
and decides whether any selected rule can fire; only then does libcst analyse
it. Files left out can still call a project helper whose context matters, or
define one: later rounds analyse those whose imports resolve to such a helper,
until none turns up. The project step (contexts across modules, noqa,
selection, sorting) then runs over every file's result, cached or not.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

from tvmlint.config import Settings, SettingsResolver
from tvmlint.cheap import mentions_any
from tvmlint.contexts import FromCall, Inherited
from tvmlint.diagnostics import Finding
from tvmlint.discovery import discover, resolve
from tvmlint.engine import Checked, FileResult, check_module, module_name_for, parse_error
from tvmlint.noqa import is_suppressed
from tvmlint.source import decode, read_file
from tvmlint.versions import Version


@dataclass
class RunReport:
    findings: List[Finding] = field(default_factory=list)
    files_seen: int = 0
    files_analysed: int = 0  # by libcst; the others only by the stdlib parser
    cache_hits: int = 0
    notes: List[str] = field(default_factory=list)


def display_path(path: Path, cwd: Path) -> str:
    # the path as walked, not where a symlink leads: a broken link is shown by its own name
    for absolute in (Path(os.path.abspath(path)), resolve(path)):
        try:
            return str(absolute.relative_to(cwd))
        except ValueError:
            continue
    return str(path)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Task:
    """One file to check: plain data, so it can go to a worker process."""

    index: int
    path: str
    shown: str
    module_name: str
    is_package: bool
    codes: frozenset
    version: Version
    cheap: bool
    force: bool = False
    follow: Optional[Tuple[FrozenSet[str], FrozenSet[str]]] = None  # see check_module


def _failed(task: Task, why: str) -> Checked:
    result = FileResult(task.shown, task.module_name, task.version, task.codes)
    result.findings = parse_error(task.shown, task.codes, 1, 1, why)
    return Checked(result, False)


def _run_task(task: Task) -> Tuple[int, Optional[str], Checked]:
    """Read and check one file; (index, content digest, what was found)."""
    from tvmlint.cache import content_digest

    try:
        data = read_file(task.path)
    except OSError as error:
        return task.index, None, _failed(task, f"The file could not be read: {error.strerror}")
    digest = content_digest(data)
    source, why = decode(data)
    del data
    if source is None:
        return task.index, digest, _failed(task, f"The file could not be decoded: {why}")
    checked = check_module(
        source.text, task.shown, task.codes, task.version, task.module_name, task.is_package,
        cheap=task.cheap, force=task.force, follow=task.follow,
    )
    return task.index, digest, checked


def _execute(tasks: List[Task], jobs: int) -> Iterator[Tuple[int, Optional[str], Checked]]:
    """Results in completion order; the caller files them by index."""
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield _run_task(task)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # fork shares what the parent already imported and loaded (rules, knowledge);
    # elsewhere the platform's default start method is used.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods and sys.platform != "darwin" else None)
    # the largest files first, so one of them does not start last and hold the run up
    ordered = sorted(tasks, key=lambda task: -_size(task.path))
    lost: List[Task] = []
    # A worker that dies (a crash inside the parser, the OOM killer) breaks the pool: unlike
    # multiprocessing.Pool, which would wait for its task forever, the executor says so.
    with ProcessPoolExecutor(
        min(jobs, len(tasks)), mp_context=context, initializer=_exit_with_parent, initargs=(os.getpid(),)
    ) as pool:
        futures = {pool.submit(_run_task, task): task for task in ordered}
        for future in as_completed(futures):
            try:
                yield future.result()
            except BrokenProcessPool:
                lost.append(futures[future])
    # Every task still pending when the pool broke is lost with it; one process each
    # finds the file that kills its process, which is then reported instead of checked.
    for task in sorted(lost, key=lambda task: task.index):
        with ProcessPoolExecutor(1, mp_context=context) as single:
            try:
                yield single.submit(_run_task, task).result()
            except BrokenProcessPool:
                yield task.index, None, _failed(task, "The file could not be analysed: the analysis crashed on it")


def _exit_with_parent(parent: int) -> None:
    """A worker whose run was killed (not interrupted) would wait for tasks forever: let it go."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


@dataclass
class _Entry:
    task: Task
    settings_print: str
    digest: Optional[str] = None
    checked: Optional[Checked] = None


def check_paths(
    paths: Sequence[Path],
    resolver: SettingsResolver,
    jobs: Optional[int] = None,
    use_cache: bool = True,
    cheap: bool = True,
) -> RunReport:
    """Check files and directories. `jobs`: worker processes (default: the cores);
    `use_cache`: read and write the result cache; `cheap`: let the cheap stage skip
    libcst where no selected rule can fire (off only to test that it loses nothing)."""
    report = RunReport()
    jobs = default_jobs() if jobs is None else max(1, jobs)
    found = discover(paths, lambda p: resolver.for_path(p).is_excluded(p))
    report.notes.extend(found.problems)
    entries: List[_Entry] = []
    fingerprints: Dict[int, str] = {}
    for index, path in enumerate(found.files):
        settings = resolver.for_path(path)
        module_name, is_package = module_name_for(path)
        task = Task(
            index, str(path), display_path(path, resolver.cwd), module_name, is_package,
            settings.codes_for(path), settings.target_version, cheap,
        )
        if id(settings) not in fingerprints:
            fingerprints[id(settings)] = settings.fingerprint()
        entries.append(_Entry(task, fingerprints[id(settings)]))
    report.files_seen = len(entries)
    cache = _open_cache(resolver) if use_cache and entries else None

    def key(entry: _Entry, stage: str) -> str:
        task = entry.task
        return cache.key(
            entry.digest or "", entry.settings_print, sorted(task.codes), task.shown, task.module_name,
            task.is_package, stage,
        )

    def run(chosen: List[_Entry], stage: str) -> None:
        todo = chosen
        if cache is not None:
            todo = []
            for entry in chosen:
                if entry.digest is None:
                    entry.digest = _digest(entry.task.path)
                hit = cache.get(key(entry, stage)) if entry.digest else None
                if hit is not None:
                    entry.checked = hit
                else:
                    todo.append(entry)
        by_index = {entry.task.index: entry for entry in todo}
        for index, digest, checked in _execute([entry.task for entry in todo], jobs):
            entry = by_index[index]
            entry.checked = checked
            if cache is not None and digest is not None:
                entry.digest = digest
                cache.put(key(entry, stage), checked)

    run(entries, "cheap" if cheap else "full")
    # Later rounds: files the cheap stage left out that name a helper whose context matters.
    done: Set[str] = set()
    done_defined: Set[str] = set()
    while cheap:
        callers_of, defined = _followed_names(entry.checked for entry in entries)
        callers_of -= done
        defined -= done_defined
        if not callers_of and not defined:
            break
        done |= callers_of
        done_defined |= defined
        picked = [
            entry for entry in entries
            if (not entry.checked.analysed or entry.checked.partial) and entry.checked.mentions
            and mentions_any(entry.checked.mentions, callers_of, defined)
        ]
        if not picked:
            break
        # every name followed so far: a file picked again keeps what an earlier round kept
        follow = (frozenset(done), frozenset(done_defined))
        for entry in picked:
            entry.task = replace(entry.task, follow=follow)
        run(picked, "follow " + _names_digest(follow))
    report.files_analysed = sum(1 for entry in entries if entry.checked.analysed)
    if cache is not None:
        report.cache_hits = cache.hits
        if cache.writes:
            cache.prune()
    report.findings = finalize([entry.checked.result for entry in entries])
    return report


def _names_digest(follow: Tuple[FrozenSet[str], FrozenSet[str]]) -> str:
    import hashlib

    text = "\n".join(sorted(follow[0])) + "\n=\n" + "\n".join(sorted(follow[1]))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _digest(path: str) -> Optional[str]:
    from tvmlint.cache import content_digest

    try:
        return content_digest(read_file(path))
    except OSError:
        return None


def _open_cache(resolver: SettingsResolver):
    from tvmlint.cache import ResultCache, cache_directory

    return ResultCache(cache_directory(resolver.for_path(resolver.cwd)))


def _chain(ctx) -> Iterator[Tuple[str, bool]]:
    """The project functions a context depends on, each with whether its callers matter (the
    function it is inherited in) or only its definition (a helper whose returned context it is)."""
    while True:
        if isinstance(ctx, FromCall):
            yield ctx.function, False
            ctx = ctx.outer
        elif isinstance(ctx, Inherited):
            yield ctx.function, True
            return
        else:
            return


def _followed_names(checked_files) -> Tuple[Set[str], Set[str]]:
    """Qualified names of the functions some deferred finding depends on (directly or through
    further callers): those whose callers matter, and those whose definitions (returned
    contexts) matter. A skipped or partly analysed file that names one of the first, or defines
    one of the second (tvmlint.cheap.mentions), is analysed whole in the next round."""
    deferred_ctxs = []
    callers: Dict[str, list] = {}
    for checked in checked_files:
        if not checked.analysed:
            continue
        result = checked.result
        deferred_ctxs.extend(d.ctx for d in result.deferred)
        for call in result.callsites:
            callers.setdefault(call.callee, []).append(call.ctx)
    found: Set[str] = set()
    defined: Set[str] = set()
    todo = [link for ctx in deferred_ctxs for link in _chain(ctx)]
    while todo:
        name, by_callers = todo.pop()
        if not by_callers:
            defined.add(name)
            continue
        if name in found:
            continue
        found.add(name)
        for ctx in callers.get(name, ()):
            todo.extend(_chain(ctx))
    return found, defined


def _judges() -> Dict[str, object]:
    from tvmlint.checks import all_rules

    return {code: cls.judge for code, cls in all_rules().items() if "judge" in cls.__dict__}


def finalize(results: Sequence[FileResult]) -> List[Finding]:
    """Judge deferred findings across the project, apply selection and noqa, sort."""
    from tvmlint.project import Project

    judges = _judges() if any(result.deferred for result in results) else {}
    judged = Project(results).findings(judges) if judges else {}
    findings: List[Finding] = []
    for result in results:
        for finding in list(result.findings) + judged.get(result.path, []):
            if finding.code not in result.codes:
                continue
            if is_suppressed(result.noqa, finding.start.line, finding.code):
                continue
            findings.append(finding)
    findings.sort(key=lambda f: f.sort_key)
    return findings


# Buffers the editor sent recently, checked: typing, code actions and fix-all ask
# about the same text again and again. Keyed by everything the result depends on.
_RECENT: Dict[tuple, Checked] = {}
_RECENT_SIZE = 16


def check_text(text: str, path: Path, settings: Settings, shown: Optional[str] = None) -> List[Finding]:
    """One buffer on its own (stdin, the editor): contexts are followed within it."""
    from tvmlint.knowledge import rules_dir

    shown = shown or str(path)
    module_name, is_package = module_name_for(path)
    codes = settings.codes_for(path)
    key = (text, shown, codes, settings.target_version, module_name, is_package, str(rules_dir()))
    checked = _RECENT.pop(key, None)
    if checked is None:
        checked = check_module(text, shown, codes, settings.target_version, module_name, is_package)
    _RECENT[key] = checked  # most recent last
    while len(_RECENT) > _RECENT_SIZE:
        _RECENT.pop(next(iter(_RECENT)))
    return finalize([checked.result])
