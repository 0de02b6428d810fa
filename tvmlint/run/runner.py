"""A whole run: find files, check each (in worker processes, through the cache), resolve, filter.

Per file (`tvmlint.run.engine.check_module`): the stdlib parser checks the syntax
and decides whether any selected rule can fire; only then does libcst analyse
it. Files left out can still call a project helper whose context matters, or
define one: later rounds analyse those whose imports resolve to such a helper,
until none turns up. The project step (contexts across modules, noqa,
selection, sorting) then runs over every file's result, cached or not.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import (
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from tvmlint.analysis.contexts import FromCall, Inherited, LevelFrom, depends_on
from tvmlint.analysis.reach import enclosing
from tvmlint.analysis.results import ConstantWait, FileResult, OptionRef
from tvmlint.base.diagnostics import Finding
from tvmlint.base.noqa import is_suppressed
from tvmlint.base.source import read_file
from tvmlint.prefilter.project_gate import withheld_in
from tvmlint.run import gate
from tvmlint.run.compact import (
    is_placeholder,
    kept,
    mentions_any,
    pack,
    pack_findings,
    unpack,
    unpack_findings,
)
from tvmlint.run.config import Settings, SettingsResolver
from tvmlint.run.discovery import discover
from tvmlint.run.engine import (
    UNKNOWN_MENTIONS,
    Checked,
    check_module,
    module_name_for,
    parse_error,
)
from tvmlint.run.guards import too_large
from tvmlint.run.task import Follow, Task
from tvmlint.run.tasks import Planner
from tvmlint.run.words import Words
from tvmlint.run.workers import Workers, default_jobs


@dataclass
class RunReport:
    findings: List[Finding] = field(default_factory=list)
    files_seen: int = 0
    files_analysed: int = 0  # by libcst; the others only by the stdlib parser
    cache_hits: int = 0
    notes: List[str] = field(default_factory=list)
    context_files: int = 0  # files of the named files' projects, read but not reported on
    # no file's findings depend on files outside the run: none waited for a low context, was
    # analysed in part, or holds a finding its callers judge (tvmlint.run.runner._settled)
    settled: bool = False


class _Entry:
    """One file of a run: its path and, once checked, what the run keeps of its result
    (tvmlint.run.compact.kept). A run holds one per file to its end: nothing else, and the
    parts of its `Checked` in slots, not the object (a few megabytes in a large tree)."""

    __slots__ = ("path", "result", "analysed", "partial", "mentions", "awaits_low", "low_level")

    def __init__(self, path: str):
        self.path = path
        self.result: Optional[FileResult] = None

    def keep(self, checked: Checked) -> None:
        self.result, self.analysed, self.partial, self.mentions = (
            checked.result, checked.analysed, checked.partial, checked.mentions
        )
        self.awaits_low, self.low_level = checked.awaits_low, checked.low_level


@dataclass(frozen=True)
class RunTask:
    """How a run goes, whatever its files: what `check_paths` was asked, handed down its
    stages whole. `jobs`: worker processes (None: the cores); `use_cache`: read and write the
    result cache; `prefilter`: the pre-filter wing leaves out what no selected rule can need
    (`tvmlint.prefilter`; off, `--no-prefilter`: every file through libcst, the same findings);
    `progress(done, total)`: told as each file of the first round is checked; `notes`: what
    discovery had to say; `texts`: path -> the text to check instead of the file's (an
    editor's buffer); `gated`: the project gate (tvmlint.run.gate) may leave rules out, and the
    run's findings may be kept whole (off: the run tells whether it is `settled`); `store`: the
    result cache, when an earlier run of the same check opened it (read once, not twice)."""

    jobs: Optional[int] = None
    use_cache: bool = True
    prefilter: bool = True
    progress: Optional[Callable[[int, int], None]] = None
    notes: Tuple[str, ...] = ()
    texts: Optional[Dict[str, str]] = None
    gated: bool = True
    store: Optional[object] = None


def check_paths(
    paths: Sequence[Path],
    resolver: SettingsResolver,
    jobs: Optional[int] = None,
    use_cache: bool = True,
    progress: Optional[Callable[[int, int], None]] = None,
    project: bool = False,
) -> RunReport:
    """Check files and directories (see `RunTask` for `jobs`, `use_cache` and `progress`; the
    pre-filter is the resolver's `Overrides.prefilter`). `project`: a file or directory named
    is judged with the other files of its project (tvmlint.run.project_scope), which are read
    for their facts and not reported on."""
    found = discover_files(paths, resolver)
    how = RunTask(jobs, use_cache, resolver.overrides.prefilter, progress, tuple(found.problems))
    named = found.files
    del found
    if project and named:
        return _in_project(named, [os.fspath(path) for path in paths], resolver, how)
    return check_files(named, resolver, how)


def _in_project(named: List[str], given: List[str], resolver: SettingsResolver, how: RunTask) -> RunReport:
    """The named files' findings as a run over their whole projects gives them. Most files
    settle on their own: checked first without the project gate (which may only leave rules
    out), a file none of whose findings waits for another file's facts has those findings
    in any run. Only when one waits are the project's other files read."""
    from tvmlint.run.project_scope import roots_beyond

    if not roots_beyond(_given_in_run(given, named), resolver):  # the run holds its projects: an ordinary run
        return check_files(named, resolver, how)
    texts = how.texts
    buffers_only = texts is not None and all(path in texts for path in named)  # nothing of theirs is cached
    opened = None
    if how.use_cache and how.store is None and not buffers_only:
        # the file alone, then maybe its project: one store, read once and written once (a cache
        # that cannot be used is left to each run to say so)
        opened = _open_cache(resolver, [])
        how = replace(how, store=opened)
    report = _alone_or_in_project(named, given, resolver, how, buffers_only, opened)
    if opened is not None:
        opened.save()  # once, after both runs (a run stopped by an error or Ctrl-C saves nothing)
    return report


def _alone_or_in_project(named: List[str], given: List[str], resolver: SettingsResolver, how: RunTask,
                         buffers_only: bool, opened) -> RunReport:
    # A file whose last check alone read its project most likely will again: its project is
    # read at once, and the file analysed once, not alone first (ungated: often more work)
    # and then in its project. The project's run gives the same findings either way.
    if _read_its_project(named, buffers_only, opened):
        context = _project_context(given, named, resolver)
        if context:
            return check_files(named, resolver, how, context=context)
    alone = check_files(named, resolver, replace(how, use_cache=how.use_cache and not buffers_only, gated=False))
    if opened is not None:
        for path in named:
            opened.note_read_its_project(path, not alone.settled)
    if buffers_only:
        for path in named:
            (_BUFFERS_READING_PROJECT.discard if alone.settled else _BUFFERS_READING_PROJECT.add)(path)
    if alone.settled:
        return alone
    context = _project_context(given, named, resolver)
    if not context:
        return alone
    return check_files(named, resolver, how, context=context)


# Buffers (an editor's) whose last check alone read their project, by path: the result store
# keeps this for files, but a buffer's check does not open the store. Only a long-lived process
# (the language server, the daemon) asks again; a hint, as the store's is: either way the
# project's run gives the same findings.
_BUFFERS_READING_PROJECT: Set[str] = set()


def _read_its_project(named: List[str], buffers_only: bool, opened) -> bool:
    if buffers_only:
        return any(path in _BUFFERS_READING_PROJECT for path in named)
    return opened is not None and any(opened.read_its_project(path) for path in named)


def _project_context(given: List[str], named: List[str], resolver: SettingsResolver) -> List[str]:
    """The files of the projects of the paths `given` that the run does not name itself
    (`named`: the files it checks; a file given but left out, force-excluded, brings none)."""
    from tvmlint.run.project_scope import project_files

    taken = {os.path.normcase(os.path.abspath(path)) for path in named}
    return [path for path in project_files(_given_in_run(given, named), resolver)
            if os.path.normcase(os.path.abspath(path)) not in taken]


def _given_in_run(given: List[str], named: List[str]) -> List[str]:
    """The paths given that the run checks: directories, and files not left out (force-exclude)."""
    taken = {os.path.normcase(os.path.abspath(path)) for path in named}
    return [path for path in given if os.path.isdir(path) or os.path.normcase(os.path.abspath(path)) in taken]


def check_files(
    named: List[str], resolver: SettingsResolver, how: RunTask = RunTask(), context: Sequence[str] = (),
) -> RunReport:
    """check_paths over files already found. `context`: more files, checked as the named ones
    are (so the cross-module step sees what it would see in a run naming them) but not
    reported on."""
    report = RunReport(notes=list(how.notes))
    entries = [_Entry(path) for path in named] + [_Entry(path) for path in context]
    report.files_seen = len(named)
    if context or how.texts:
        report = _named_only(_check_entries(entries, resolver, how, report), named, resolver)
        report.context_files = len(context)
        return report
    return _check_entries(entries, resolver, how, report)


def _named_only(report: RunReport, named: List[str], resolver: SettingsResolver) -> RunReport:
    """The run's findings on the named files only: the others were read for their facts."""
    planner = Planner(resolver)  # shows a path as the run's own planner did
    shown = {planner.shown(path) for path in named}
    report.findings = [finding for finding in report.findings if finding.path in shown]
    return report


def _check_entries(entries: List[_Entry], resolver: SettingsResolver, how: RunTask, report: RunReport) -> RunReport:
    prefilter, gated = how.prefilter, how.gated
    cache = None
    if how.use_cache and entries:
        cache = how.store if how.store is not None else _open_cache(resolver, report.notes)
        if cache is not None:
            cache.hits = 0  # this run's
    jobs = default_jobs() if how.jobs is None else max(1, how.jobs)
    run = _Run(entries, Planner(resolver, prefilter, cached=cache is not None), cache, jobs, how.texts)
    # one set of worker processes for all of the run's rounds
    with run.workers:
        stage = "cheap" if prefilter else "full"
        keys = run.keys(stage) if cache is not None else None
        # (an ungated run is asked whether it settled: stored findings would not say)
        whole = _whole_run_key(keys) if gated else None
        if whole is not None:
            packed = cache.get_run(whole)
            if packed is not None:  # no file changed since a run of the same files: its findings
                report.findings, report.files_analysed = unpack_findings(packed)
                report.findings = _fixable_only(report.findings, resolver)
                report.cache_hits = len(entries)
                if how.store is None:  # else whoever opened it saves it
                    cache.save()
                return report

        if prefilter and entries and gated:
            # rules no file can set off leave the run (tasks, and so cache keys, lose their codes)
            run.planner.withheld = gate.withheld_codes((entry.path for entry in entries), resolver, run.texts, run.words)
            if run.planner.withheld and keys is not None:
                keys = run.keys(stage)
        run.progress = how.progress
        run.check(range(len(entries)), stage, keys, defer_low=prefilter)
        run.progress = None
        del keys
        low = _Low(entries, run.planner, run.read, run.words)
        # Files left out because only a context below the default level can set their rules off:
        # those such a context can reach, if any file writes one, are analysed now.
        waiting = [index for index, entry in enumerate(entries) if entry.awaits_low]
        if waiting:
            exposed = low.exposed()
            reached = [index for index in waiting if index in exposed]
            if reached:
                run.check(reached, "low")
        # Later rounds: files the pre-filter left out (or analysed in part) that name a helper whose
        # context matters. (The pass names a module defines need none: the pre-filter reads them.)
        done: Set[str] = set()
        done_defined: Set[str] = set()
        tvm_roots = _tvm_roots(entries) if prefilter else frozenset()
        from tvmlint.analysis.module_aliases import ModuleAliases
        from tvmlint.analysis.project import method_classes

        aliases = functools.lru_cache(maxsize=None)(
            lambda: ModuleAliases((entry.path, run.planner.module_name(entry.path)[0]) for entry in entries))
        module_names = lambda: aliases().modules  # noqa: E731
        while prefilter:
            callers_of, defined = _followed_names(entries, low, aliases)
            # a method (`parameters.Proc.run`) is called through an instance: a file that names
            # its class (`from parameters import Proc`) may call it
            callers_of |= method_classes(callers_of, module_names)
            callers_of -= done
            # and a module by another name than its own: a longer one through a namespace package
            # (any file may write it), a script's sibling by its bare name (only a file beside it)
            beside: Dict[str, Set[str]] = {}
            for name in list(callers_of):
                anywhere, near = aliases().spellings(name)
                callers_of.update(anywhere)
                for folder, spelled in near:
                    beside.setdefault(folder, set()).add(spelled)
            callers_of -= done
            defined -= done_defined
            if not callers_of and not defined:
                break
            done |= callers_of
            done_defined |= defined
            for spelled in beside.values():
                done |= spelled  # what a file picked for them is kept for
            # A function named under TVM's own packages is TVM's API to the analysis: a call of it
            # from another module is never followed into it (tvmlint.analysis.module records no call site),
            # so only its own module can give it a context.
            local = {name for name in callers_of if name.partition(".")[0] in tvm_roots}
            homes = {module for name in local for module in enclosing(name)}
            elsewhere = callers_of - local
            picked = [
                entry for entry in entries
                if (not entry.analysed or entry.partial) and entry.mentions != UNKNOWN_MENTIONS and (
                    (entry.mentions and mentions_any(entry.mentions, elsewhere, defined))
                    or (entry.mentions and run.planner.module_name(entry.path)[0] in homes and mentions_any(entry.mentions, local))
                    or (entry.mentions and beside and mentions_any(entry.mentions, beside.get(_folder(entry.path), ()), ()))
                )
            ]
            # files whose names the pre-filter never resolved: those that may name one are asked
            # in the round itself (a file that named an earlier round's name was asked then)
            never_resolved = [entry for entry in entries if entry.mentions == UNKNOWN_MENTIONS]
            unknown = _may_mention(never_resolved, elsewhere, defined | local, run.planner, run.read, run.words)
            for folder, spelled in beside.items():
                near = [entry for entry in never_resolved if _folder(entry.path) == folder and entry not in unknown]
                unknown += _may_mention(near, spelled, set(), run.planner, run.read, run.words) if near else []
            if not picked and not unknown:
                break
            # every name followed so far: a file picked again keeps what an earlier round kept
            follow = (frozenset(done), frozenset(done_defined))
            label = "follow " + _names_digest(follow)
            if picked:
                run.check(run.indices(picked), label, follow=follow)
            if unknown:
                run.check(run.indices(unknown), label + " confirm", follow=follow, confirm=True)
        report.files_analysed = sum(1 for entry in entries if entry.analysed)
        report.settled = not waiting and _settled(entries)
        used: Dict[str, Set[Tuple[int, str]]] = {}
        report.findings = finalize([entry.result for entry in entries if not is_placeholder(entry.result)], used)
        unused = _after_noqa(entries, run.planner, used, run.texts)
        if unused:
            report.findings = sorted(report.findings + unused, key=lambda f: f.sort_key)
        if cache is not None:
            report.cache_hits = cache.hits
            if whole is not None and run.complete:
                cache.put_run(whole, pack_findings(report.findings, report.files_analysed))
            if how.store is None:  # else whoever opened it saves it
                cache.save()
        report.findings = _fixable_only(report.findings, resolver)  # after the cache: it keeps every fix
        return report


def discover_files(paths: Sequence[Path], resolver: SettingsResolver):
    """The files a run over `paths` checks (`tvmlint.run.discovery.discover` with each file's settings):
    exclude and extend-exclude while walking, and for paths named with force-exclude; what git
    ignores unless respect-gitignore is off."""
    return discover(
        paths,
        lambda p: resolver.for_path(p).is_excluded(p, walked=True),
        skips_named=lambda p: resolver.for_path(p).skips_named(p),
        respects_gitignore=lambda p: resolver.for_path(p).respect_gitignore,
    )


class _Run:
    """The files of one run, checked through the cache and the workers."""

    def __init__(self, entries: List[_Entry], planner: Planner, cache, jobs: int, texts: Optional[Dict[str, str]] = None):
        self.entries = entries
        # buffers checked instead of their files: never cached (their files may say otherwise)
        self.texts: Dict[str, str] = texts or {}
        self.planner = planner
        self.cache = cache
        self.jobs = jobs
        self.workers = Workers(jobs)
        # a helper is a function some checked file defines: its name starts with the top-level
        # module of one of them, and mentions of other names are not kept
        self.roots = frozenset(planner.module_name(entry.path)[0].partition(".")[0] for entry in entries)
        # every file's result came from the cache or went to it, from the content the run's
        # keys were made of: the run's findings can be kept for the same files unchanged
        self.complete = True
        self.judges: Optional[Dict[str, object]] = None
        self.progress: Optional[Callable[[int, int], None]] = None
        # each file's content digest as the run's keys took it (None: it could not be read)
        self.digests: Dict[str, Optional[str]] = {}
        # the files' words, for the steps that pick files by name: through the cache by digest
        self.words = Words(self.read, cache, self.texts, self.digests)

    def keys(self, stage: str) -> List[Optional[str]]:
        """Every file's result key (None for a file that cannot be read). A file's digest is
        taken once a run: keys made again (the gate left rules out) take the same content."""
        keys: List[Optional[str]] = []
        digests = self.digests
        for index, entry in enumerate(self.entries):
            path = entry.path
            if path in self.texts:
                digest = None
            elif path in digests:
                digest = digests[path]
            else:
                digest = digests[path] = self.cache.digest(path)
            keys.append(self.cache.key(digest, *self.planner.key_parts(path), stage) if digest else None)
        return keys

    def _key(self, task: Task, digest: str, stage: str) -> str:
        # the parts `Planner.key_parts` gives, in its order
        return self.cache.key(digest, self.planner.context(task), task.shown, task.module_name, task.is_package, stage)

    def indices(self, chosen: List[_Entry]) -> List[int]:
        wanted = {id(entry) for entry in chosen}
        return [index for index, entry in enumerate(self.entries) if id(entry) in wanted]

    def check(
        self, indices: Sequence[int], stage: str, keys: Optional[List[Optional[str]]] = None, follow: Follow = None,
        confirm: bool = False, defer_low: bool = False,
    ) -> None:
        todo = []
        total, done = len(indices), 0
        for index in indices:
            entry = self.entries[index]
            if self.cache is not None and entry.path not in self.texts:
                task = self.planner.task(index, entry.path, follow, confirm, defer_low)
                if keys is not None:
                    key = keys[index]
                else:
                    digest = self.cache.known_digest(entry.path) or self.cache.digest(entry.path)
                    key = self._key(task, digest, stage) if digest else None
                packed = self.cache.get(key) if key else None
                if packed is not None:
                    entry.keep(self._keep(unpack(packed, task)))
                    done += 1
                    continue
            todo.append(index)
        tasks = (
            self._with_text(self.planner.task(index, self.entries[index].path, follow, confirm, defer_low))
            for index in self._ordered(todo)
        )
        for index, state, checked in self.workers.execute(tasks, len(todo)):
            entry = self.entries[index]
            if self.cache is not None:
                self._store(index, state, checked, stage, follow)
            entry.keep(self._keep(checked))
            if self.progress is not None:
                done += 1
                self.progress(done, total)

    def _with_text(self, task: Task) -> Task:
        text = self.texts.get(task.path)
        return task if text is None else replace(task, text=text, cached=False)

    def read(self, path: str) -> bytes:
        """A file's bytes as the run checks them: a buffer's text in place of its file."""
        text = self.texts.get(path)
        return read_file(path) if text is None else text.encode("utf-8", "surrogatepass")

    def _keep(self, checked: Checked) -> Checked:
        if checked.result.deferred:
            from tvmlint.analysis.project import settle

            if self.judges is None:
                self.judges = _judges()
            result = checked.result
            lines = _noqa_lines_of_deferred(result)
            settled = len(result.findings)
            settle(result, self.judges)
            if lines:
                result.findings[settled:] = _with_noqa_lines(result.findings[settled:], lines)
        return kept(checked, self.roots)

    def _store(self, index: int, state, checked: Checked, stage: str, follow: Follow) -> None:
        path = self.entries[index].path
        if state is None or checked.timed_out:  # unread, its process crashed, or stopped: nothing to keep
            self.complete = False
            return
        if self.cache.known_digest(path) not in (None, state[2]):
            self.complete = False  # changed since the run's keys were made
        self.cache.record(path, state)
        self.cache.put(self._key(self.planner.task(index, path, follow), state[2], stage), pack(checked))

    def _ordered(self, todo: List[int]) -> List[int]:
        if self.jobs <= 1 or len(todo) <= 1:
            return todo
        # the largest files first, so that one of them does not start last and hold the run up
        return sorted(todo, key=lambda index: -_size(self.entries[index].path))


def _may_mention(
    entries: Sequence[_Entry], callers_of: Set[str], defined: Set[str], planner: Planner,
    read: Callable[[str], bytes] = read_file, words: Optional[Words] = None,
) -> List[_Entry]:
    """Of files whose names were never resolved, those that may name one of `callers_of` or
    define one of `defined`. A module names `a.b.f` only through its imports, the chains it
    spells and the package it sits in (relative imports), and defines it only under its own
    module name (tvmlint.analysis.used_names.UsedNames): each part of the name is a word of its text or a
    part of its module name. Names of local functions (`f.<locals>.g`) are never mentioned."""
    # the modules that may define a name of `defined`: every dotted prefix of one
    definers = {module for name in defined for module in enclosing(name)}
    # each name under its last part: a file is asked about the names whose last part it holds
    by_last: Dict[bytes, List[Tuple[bytes, ...]]] = {}
    unusual = False
    for name in callers_of:
        if not name or "<" in name:
            continue
        if not name.isascii():
            # another script's letters may be encoded otherwise than as UTF-8: asked of every
            # file (no name of apache/tvm's own tree is one)
            unusual = True
            continue
        parts = tuple(part.encode() for part in name.split("."))
        by_last.setdefault(parts[-1], []).append(parts)
    words_in = words if words is not None else Words(read)
    out = []
    for entry in entries:
        module = planner.module_name(entry.path)[0]
        if unusual or module in definers:
            out.append(entry)
            continue
        if not by_last:
            continue
        holds = words_in.holds_any(entry.path, by_last)
        if holds is None:
            continue  # as it was when the pre-filter tried: its result says why
        own = [part.encode() for part in module.split(".")]
        if not holds and by_last.keys().isdisjoint(own):
            continue  # no name's last part is a word of it: its words need not be made
        words = words_in.of(entry.path)
        if words is None:
            continue
        words.update(own)
        if any(
            all(part in words for part in parts)
            for last in words.intersection(by_last) for parts in by_last[last]
        ):
            out.append(entry)
    return out


def _tvm_roots(entries: Sequence[_Entry]) -> FrozenSet[str]:
    """The top-level packages of TVM at every release the run checks against."""
    from tvmlint.analysis.used_names import roots_of
    from tvmlint.knowledge.target import get_knowledge

    versions = {entry.result.version for entry in entries if entry.result is not None}
    return frozenset().union(*(roots_of(get_knowledge(version)) for version in versions))


def _names_digest(follow: Tuple[FrozenSet[str], FrozenSet[str]]) -> str:
    import hashlib

    text = "\n".join(sorted(follow[0])) + "\n=\n" + "\n".join(sorted(follow[1]))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _whole_run_key(keys: Optional[List[Optional[str]]]) -> Optional[str]:
    if not keys or None in keys:
        return None
    import hashlib

    return hashlib.blake2b("\n".join(keys).encode(), digest_size=20).hexdigest()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _open_cache(resolver: SettingsResolver, notes: List[str]):
    from tvmlint.run.cache import cache_directory, open_store

    cache = open_store(cache_directory(resolver.for_path(resolver.cwd)))
    if not cache.owned:
        notes.append(
            f"{cache.directory}: not used for the result cache: it holds files that are not tvmlint's "
            "(cache-dir must name a directory of its own)"
        )
        return None
    return cache


def _folder(path: str) -> str:
    return os.path.dirname(os.path.normpath(path))


def _followed_names(entries: Sequence[_Entry], low: Optional["_Low"] = None, aliases=None) -> Tuple[Set[str], Set[str]]:
    """Qualified names of the functions some deferred finding depends on (directly or through
    further callers): those whose callers matter, and those whose definitions (returned
    contexts) matter. A skipped or partly analysed file that names one of the first, or defines
    one of the second (tvmlint.analysis.used_names.mentions), is analysed whole in the next round.
    `low`: leaves out the findings no context they need can reach (tvmlint.run.low_contexts);
    `aliases()`: the run's ModuleAliases, to read a call written with another name of a module."""
    deferred = []
    callers: Dict[str, List[Tuple[object, int]]] = {}
    options: Set[str] = set()
    for index, entry in enumerate(entries):
        if not entry.analysed:
            continue
        result = entry.result
        deferred.extend((index, d) for d in result.deferred)
        for call in result.callsites:
            callee = call.callee if aliases is None else aliases().canonical(call.callee, entry.path)
            callers.setdefault(callee, []).append((call.ctx, index))
            for _key, value in call.args:
                if isinstance(value, OptionRef):
                    # the option's default is read where the function parsing it is defined
                    options.add(value.function)
                    if aliases is not None:
                        options.add(aliases().canonical(value.function, entry.path))
    if low is not None:
        deferred = low.followed(deferred, callers)
    found: Set[str] = set()
    defined: Set[str] = set(options) if deferred else set()
    for index, d in deferred:
        if isinstance(d.payload, ConstantWait):
            # a constant another module defines (`from config import *`): that module is read
            defined.update(d.payload.names)
            if aliases is not None:
                defined.update(aliases().canonical(name, entries[index].path) for name in d.payload.names)
            continue
        todo = list(depends_on(d.ctx))
        while todo:
            name, by_callers = todo.pop()
            if not by_callers:
                defined.add(name)
                continue
            if name in found:
                continue
            found.add(name)
            for ctx, _ in callers.get(name, ()):
                todo.extend(depends_on(ctx))
    return found, defined


class _Low:
    """The run's answer to: can a context low enough reach this deferred finding?

    Asked once per finding. A later round analyses files only for findings that are
    followed, and one whose call could pass a low context on to this finding was, before
    that round, an exposed file not seen whole that names one of its functions: the
    answer was yes already."""

    def __init__(self, entries: Sequence[_Entry], planner: Planner, read: Callable[[str], bytes] = read_file,
                 words: Optional[Words] = None):
        self.entries = entries
        self.planner = planner
        self.read = read
        self.words = words
        # what each file writes, as the first round found it (later rounds do not record it)
        self.written = {index: entry.low_level for index, entry in enumerate(entries) if entry.low_level is not None}
        self._contexts = None
        # by the finding's id, the finding kept with its answer so that the id stays its own
        self._answers: Dict[int, Tuple[object, bool]] = {}
        self._bounds: Dict[str, object] = {}

    def followed(self, deferred: List[Tuple[int, object]], callers: Dict[str, List[Tuple[object, int]]]) -> List[Tuple[int, object]]:
        """The deferred findings (file index, finding) whose callers are worth following."""
        asked: List[Tuple[int, object, int]] = []
        for index, d in deferred:
            if id(d) in self._answers:
                continue
            below = self._bound(d)
            if below is None or below > self._low_contexts().factories.lowest_default:
                # a default context can be low enough: every caller matters
                self._answers[id(d)] = (d, True)
            else:
                asked.append((index, d, below))
        if asked:
            contexts = self._low_contexts()
            seen_whole = [bool(entry.analysed and not entry.partial) for entry in self.entries]
            requests = [(below, index, *_closure(d.ctx, index, callers, below), self.entries[index].partial)
                        for index, d, below in asked]
            for (_, d, _), answer in zip(asked, contexts.reachable(requests, seen_whole)):
                self._answers[id(d)] = (d, answer)
        return [(index, d) for index, d in deferred if self._answers[id(d)][1]]

    def exposed(self) -> FrozenSet[int]:
        """The files whose code a context below some release's default level can run."""
        contexts = self._low_contexts()
        return contexts.sources_and_exposed(contexts.factories.highest_default)[1]

    def _bound(self, d) -> Optional[int]:
        hook = self._bounds.get(d.code)
        if hook is None:
            from tvmlint.checks import all_rules

            rule = all_rules().get(d.code)
            hook = self._bounds[d.code] = rule.needs_level_below if rule is not None else (lambda payload: None)
        return hook(d.payload)

    def _low_contexts(self):
        if self._contexts is None:
            from tvmlint.knowledge.target import get_knowledge
            from tvmlint.run.low_contexts import Factories, LowContexts

            versions = {entry.result.version for entry in self.entries if entry.result is not None}
            factories = Factories.of(get_knowledge(version) for version in sorted(versions))
            self._contexts = LowContexts(
                [entry.path for entry in self.entries],
                [self.planner.module_name(entry.path)[0] for entry in self.entries],
                factories,
                self.written,
                self.read,
                self.words,
            )
        return self._contexts


def _closure(ctx, home: int, callers: Dict[str, List[Tuple[object, int]]], below: int) -> Tuple[Set[str], Set[int], bool]:
    """What a deferred finding's context (in file `home`) depends on, through the calls analysed
    files make: the functions whose other callers matter, the files whose `with` enters what a
    helper returns, and whether a known context on the way is already below `below`."""
    names: Set[str] = set()
    entering: Set[int] = set()
    todo = [(ctx, home)]
    while todo:
        ctx, index = todo.pop()
        while isinstance(ctx, FromCall):
            entering.add(index)
            ctx = ctx.outer
        if isinstance(ctx, Inherited):
            if ctx.function not in names:
                names.add(ctx.function)
                todo.extend(callers.get(ctx.function, ()))
        elif isinstance(ctx, LevelFrom):
            return names, entering, True  # its level is what a call or a constant gives: any may be low
        elif ctx.opt_level is not None and ctx.opt_level < below:
            return names, entering, True
    return names, entering, False


def _settled(entries: Sequence[_Entry]) -> bool:
    """Whether every file's findings are final whatever other files hold: none was analysed in
    part (a later round for another file's finding may read its blanked definitions), and none
    keeps a deferred finding after `settle` (its callers or the project's pass names judge it).
    A file the pre-filter left out has no finding but TVM001, in any run."""
    return not any(
        getattr(entry, "partial", False) or (entry.result is not None and entry.result.deferred) for entry in entries
    )


def _judges() -> Dict[str, object]:
    from tvmlint.checks import all_rules

    return {code: cls.judge for code, cls in all_rules().items() if "judge" in cls.__dict__}


def _noqa_lines_of_deferred(result: FileResult) -> Dict[tuple, Tuple[int, ...]]:
    """The extra noqa lines (Deferred.noqa_lines) of a file's deferred findings, by place."""
    return {(d.code, d.start, d.end): d.noqa_lines for d in result.deferred if d.noqa_lines}


def _with_noqa_lines(findings: List[Finding], lines: Dict[tuple, Tuple[int, ...]]) -> List[Finding]:
    """Findings judged from deferred ones, given their deferred finding's extra noqa lines."""
    out = []
    for finding in findings:
        extra = lines.get((finding.code, finding.start, finding.end))
        out.append(replace(finding, noqa_lines=extra) if extra and not finding.noqa_lines else finding)
    return out


def _suppressed(noqa, finding: Finding) -> bool:
    """A `# noqa` on the reported line, or on one of the finding's noqa_lines."""
    return any(is_suppressed(noqa, line, finding.code) for line in (finding.start.line, *finding.noqa_lines))


def finalize(results: Sequence[FileResult], used: Optional[Dict[str, Set[Tuple[int, str]]]] = None) -> List[Finding]:
    """Judge deferred findings across the project, apply selection and noqa, sort.
    `used`: filled with each file's (line, code) pairs whose `# noqa` suppressed a finding."""
    from tvmlint.analysis.project import Project

    judges = _judges() if any(result.deferred for result in results) else {}
    judged = Project(results).findings(judges) if judges else {}
    findings: List[Finding] = []
    for result in results:
        made = judged.get(result.path, [])
        lines = _noqa_lines_of_deferred(result) if made else {}
        for finding in list(result.findings) + (_with_noqa_lines(made, lines) if lines else made):
            if finding.code not in result.codes:
                continue
            if result.noqa and _suppressed(result.noqa, finding):
                if used is not None:
                    used.setdefault(result.path, set()).update(
                        (line, finding.code) for line in (finding.start.line, *finding.noqa_lines)
                        if is_suppressed(result.noqa, line, finding.code)
                    )
                continue
            findings.append(finding)
    findings.sort(key=lambda f: f.sort_key)
    return findings


def _unsure(entry_result: FileResult, awaits: bool, judges: Dict[str, object], text: str = "", partial: bool = False):
    """For a rule judged after the noqa step (TVM002): whether a finding of `code` may still arise
    on `line` of a file from what other files hold (a rule judged across modules, where the file
    shows a candidate or was not seen whole).
    A file seen `partial`ly had only definitions blanked: a line outside them was judged."""
    candidates = {
        (line, d.code) for d in entry_result.deferred for line in (d.start.line, *d.noqa_lines)
    }
    blanked: List[FrozenSet[int]] = []

    def unseen(line: int) -> bool:
        if not partial:
            return awaits
        if not blanked:  # parsed again only for a directive that asks
            from tvmlint.prefilter.prune import blankable_lines

            blanked.append(blankable_lines(text))
        return line in blanked[0]

    def unsure(line: int, code: str) -> bool:
        return code in judges and ((line, code) in candidates or unseen(line))

    return unsure


def _after_noqa(entries: Sequence["_Entry"], planner: Planner, used: Dict[str, Set[Tuple[int, str]]],
                texts: Optional[Dict[str, str]] = None) -> List[Finding]:
    """The findings of the rules that judge after the noqa step (the catalog's `stage = "noqa"`:
    TVM002's unused directives), for the files of a run that select one."""
    from tvmlint.base.notebook import decode_file
    from tvmlint.knowledge.catalog import judged_after_noqa

    staged = judged_after_noqa()
    out: List[Finding] = []
    judges = None
    for entry in entries:
        codes = entry.result.codes if entry.result is not None else frozenset()
        buffer = texts.get(entry.path) if texts else None
        if staged.isdisjoint(codes) or (buffer is None and _too_large(entry.path, planner)):
            continue
        if buffer is not None:
            text = buffer  # a buffer's size was checked before the run
        else:
            try:
                data = read_file(entry.path)
            except OSError:
                continue
            if b"noqa" not in data.lower():
                continue
            source, _why = decode_file(entry.path, data)
            if source is None:
                continue
            text = source.text
        if "noqa" not in text.lower():
            continue  # no directive: nothing for such a rule to judge
        if judges is None:
            judges = _judges()
        shown = planner.shown(entry.path)
        awaits = bool(getattr(entry, "awaits_low", False) and not entry.analysed)
        partial = bool(getattr(entry, "partial", False)) and not awaits
        result = entry.result if not is_placeholder(entry.result) else FileResult(shown, "", entry.result.version, codes)
        unsure = _unsure(result, awaits, judges, text, partial)
        out.extend(_judged_after_noqa(staged & codes, text, shown, codes, used.get(shown, set()), unsure))
    return out


def _judged_after_noqa(staged: FrozenSet[str], text: str, shown: str, codes, used, unsure) -> List[Finding]:
    # imported only here: a run that selects no such rule (the default) never loads the checks
    from tvmlint.checks import rule_of
    from tvmlint.checks.rule import NoqaStep

    step = NoqaStep(text, shown, codes, used, unsure)
    return [finding for code in sorted(staged) for finding in rule_of(code).after_noqa(step)]


def _too_large(path: str, planner: Planner) -> bool:
    """Over its `max-file-size`: not parsed, so none of its noqa comments were read either."""
    limit = planner.resolver.for_path(path).max_file_bytes
    try:
        return limit is not None and os.stat(path).st_size > limit
    except OSError:
        return False


def _fixable_only(findings: List[Finding], resolver: SettingsResolver) -> List[Finding]:
    if not any(finding.fix is not None for finding in findings):
        return findings
    return without_unfixable(findings, lambda shown: resolver.for_path(resolver.cwd / shown))


def without_unfixable(findings: List[Finding], settings_of) -> List[Finding]:
    """Findings whose rule `fixable`/`unfixable` leave out lose their fix (ruff's behaviour):
    `settings_of(path)` gives a finding's settings."""
    out = []
    known: Dict[str, object] = {}
    for finding in findings:
        if finding.fix is not None:
            settings = known.get(finding.path)
            if settings is None:
                settings = known[finding.path] = settings_of(finding.path)
            if not settings.is_fixable(finding.code):
                finding = replace(finding, fix=None)
        out.append(finding)
    return out


# Buffers the editor sent recently, checked: typing, code actions and fix-all ask
# about the same text again and again. Keyed by everything the result depends on.
_RECENT: Dict[tuple, Checked] = {}
_RECENT_SIZE = 16


def check_text(text: str, path: Path, settings: Settings, shown: Optional[str] = None) -> List[Finding]:
    """One buffer on its own (stdin, the editor): contexts are followed within it."""
    from tvmlint.knowledge.catalog import judged_after_noqa
    from tvmlint.knowledge.location import rules_dir

    shown = shown or str(path)
    module_name, is_package = module_name_for(path)
    codes = settings.codes_for(path)
    limit = settings.max_file_bytes
    if limit is not None and len(text) * 4 > limit:  # a character takes at most four bytes
        why = too_large(len(text.encode("utf-8", "surrogatepass")), limit)
        if why is not None:  # not parsed: `max-file-size` holds for stdin and the editor too
            return parse_error(shown, codes, 1, 1, why)
    key = (text, shown, codes, settings.target_version, module_name, is_package, str(rules_dir()))
    checked = _RECENT.pop(key, None)
    if checked is None:
        checked = _check_buffer(text, shown, codes, settings, module_name, is_package)
    if not checked.timed_out:
        _RECENT[key] = checked  # most recent last
    while len(_RECENT) > _RECENT_SIZE:
        _RECENT.pop(next(iter(_RECENT)))
    used: Dict[str, Set[Tuple[int, str]]] = {}
    findings = finalize([checked.result], used)
    staged = judged_after_noqa() & codes
    if staged:
        unsure = _unsure(checked.result, False, _judges(), text, bool(checked.partial))
        after = _judged_after_noqa(staged, text, shown, codes, used.get(shown, set()), unsure)
        findings = sorted(findings + after, key=lambda f: f.sort_key)
    if any(finding.fix is not None for finding in findings):
        findings = without_unfixable(findings, lambda _shown: settings)
    return findings


def check_text_in_project(
    text: str, path: Path, resolver: SettingsResolver, shown: Optional[str] = None, jobs: Optional[int] = None,
) -> List[Finding]:
    """One buffer (an editor's, stdin's) judged with the other files of its project, as
    `check_paths(..., project=True)` judges its file: the buffer stands for its file, the
    others are read from disk (through the result cache) for their facts and not reported on."""
    key = os.fspath(path)  # (over max-file-size, the run's task says so, as check_text would)
    report = _in_project([key], [key], resolver, RunTask(jobs, prefilter=resolver.overrides.prefilter, texts={key: text}))
    if shown is None:
        return report.findings
    return [finding if finding.path == shown else replace(finding, path=shown) for finding in report.findings]


def _check_buffer(text: str, shown: str, codes, settings: Settings, module_name: str, is_package: bool) -> Checked:
    """check_module, then again with the definitions a finding turned out to depend on kept:
    the pre-filter blanks a caller no rule wants, and only its calls give a helper its
    context (check_paths' later rounds, within one buffer)."""
    version = settings.target_version
    withheld = withheld_in(text, codes, version)
    task = Task(shown, module_name, codes - withheld if withheld else codes, version, is_package,
                max_seconds=settings.analysis_seconds)
    checked = check_module(text, task)
    done: Set[str] = set()
    done_defined: Set[str] = set()
    while checked.partial:
        callers_of, defined = _followed_names([checked])
        if callers_of <= done and defined <= done_defined:
            break
        done |= callers_of
        done_defined |= defined
        checked = check_module(text, replace(task, follow=(frozenset(done), frozenset(done_defined))))
    return checked
