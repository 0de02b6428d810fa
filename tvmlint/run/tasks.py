"""What a run knows of a file before checking it: a `Task` (tvmlint.run.task), made from its path.

A run makes one for every file, and again for each file a later round or the
cache asks about, so what a path's directory decides (its settings, its
package, how it is shown) is worked out once per directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

from tvmlint.analysis.own_tree import carried_packages
from tvmlint.base.versions import Version
from tvmlint.run.config import Settings, SettingsResolver
from tvmlint.run.discovery import resolve
from tvmlint.run.engine import module_name_for
from tvmlint.run.task import Follow, Task


def display_path(path, cwd: Path) -> str:
    # the path as walked, not where a symlink leads: a broken link is shown by its own name
    for absolute in (Path(os.path.abspath(path)), resolve(Path(path))):
        try:
            return str(absolute.relative_to(cwd))
        except ValueError:
            continue
    return str(Path(path))


class _Directory:
    """What a directory decides for the regular files in it."""

    __slots__ = ("package", "shown")

    def __init__(self, package: Tuple[str, ...], shown: Optional[str]):
        self.package = package  # the dotted package it is, () when it holds no __init__.py
        self.shown = shown  # how it is shown ("" for the working directory), None: not under it


class Planner:
    """Tasks for the files of one run."""

    def __init__(self, resolver: SettingsResolver, prefilter: bool = True, cached: bool = False):
        self.resolver = resolver
        self.prefilter = prefilter
        self.cached = cached
        self._directories: Dict[str, _Directory] = {}
        # each path's directory record (None: not a regular file), looked up once a run: the
        # cache keys, the rounds and the low-context step ask for every file's task again
        self._of_path: Dict[str, Optional[_Directory]] = {}
        self._settings: Dict[str, Settings] = {}  # each path's, found once a run (a stat each)
        self._packages: Dict[Path, Tuple[str, ...]] = {}
        self._contexts: Dict[Tuple[int, int], Tuple[Settings, frozenset, str]] = {}
        # codes the project gate leaves out of this run, per target release (tvmlint.run.gate)
        self.withheld: Dict[Version, FrozenSet[str]] = {}
        self._keep: list = []
        self._gated: Dict[Tuple[int, Version], FrozenSet[str]] = {}
        self._carried: Dict[str, Tuple[Tuple[str, str], ...]] = {}

    def task(
        self, index: int, path: str, follow: Follow = None, confirm: bool = False, defer_low: bool = False,
    ) -> Task:
        settings = self.settings(path)
        module_name, is_package = self.module_name(path)
        return Task(
            self.shown(path), module_name, self._codes(settings, path), settings.target_version, is_package,
            path=path, index=index, prefilter=self.prefilter, follow=follow, cached=self.cached, confirm=confirm,
            defer_low=defer_low, max_bytes=settings.max_file_bytes, max_seconds=settings.analysis_seconds,
            own_tree=self._own_tree(settings),
        )

    def settings(self, path: str) -> Settings:
        """The resolver's settings for a path of the run."""
        found = self._settings.get(path)
        if found is None:
            found = self._settings[path] = self.resolver.for_path(path)
        return found

    def _own_tree(self, settings: Settings) -> Tuple[Tuple[str, str], ...]:
        root = os.fspath(settings.root)
        if root not in self._carried:
            self._carried[root] = carried_packages(root)
        return self._carried[root]

    def _codes(self, settings: Settings, path: str) -> FrozenSet[str]:
        codes = settings.codes_for(path)
        withheld = self.withheld.get(settings.target_version)
        if not withheld or withheld.isdisjoint(codes):
            return codes
        # one shared set per selection, as codes_for gives it: a run keeps every task's codes
        key = (id(codes), settings.target_version)
        gated = self._gated.get(key)
        if gated is None:
            gated = self._gated[key] = codes - withheld
            self._keep.append(codes)  # its id stays its own while the run lasts
        return gated

    def key_parts(self, path: str) -> Tuple[str, str, str, bool]:
        """What a cache key takes of a path's task (its `context`, shown path, module name and
        whether it is a package), without making the task: keys are made for every file."""
        settings = self.settings(path)
        module_name, is_package = self.module_name(path)
        return self._context(settings, self._codes(settings, path)), self.shown(path), module_name, is_package

    def context(self, task: Task) -> str:
        """The settings and rule codes a task was made with, as a cache key takes them."""
        return self._context(self.settings(task.path), task.codes)

    def _context(self, settings: Settings, codes: FrozenSet[str]) -> str:
        key = (id(settings), id(codes))
        known = self._contexts.get(key)
        if known is None:  # both objects are kept with it, so their ids stay their own
            known = self._contexts[key] = (
                settings, codes, f"{settings.fingerprint()}\x1f{sorted(codes)!r}\x1f{self._own_tree(settings)!r}")
        return known[2]

    def module_name(self, path: str) -> Tuple[str, bool]:
        """`tvmlint.run.engine.module_name_for`, with the package above each directory looked up once."""
        directory = self._directory(path)
        if directory is None:
            return module_name_for(Path(path))
        name = os.path.basename(path)
        dot = name.rfind(".")
        stem = name[:dot] if 0 < dot < len(name) - 1 else name  # as pathlib's PurePath.stem
        is_package = name == "__init__.py"
        parts = directory.package + (() if is_package else (stem,))
        return ".".join(parts) or stem, is_package

    def shown(self, path: str) -> str:
        """`display_path`, with each directory's relation to the working directory found once."""
        directory = self._directory(path)
        if directory is None:
            return display_path(path, self.resolver.cwd)
        name = os.path.basename(path)
        if directory.shown is None:
            return str(Path(path))
        return os.path.join(directory.shown, name) if directory.shown else name

    def _directory(self, path: str) -> Optional[_Directory]:
        """The record of a regular file's directory; None for anything else (a link, a
        missing file), which takes the slow road."""
        try:
            return self._of_path[path]
        except KeyError:
            pass
        if not self.resolver.is_regular_file(path):
            self._of_path[path] = None
            return None
        head = os.path.dirname(path)
        known = self._directories.get(head)
        if known is None:
            resolved = self.resolver.resolve(head or ".")
            known = self._directories[head] = _Directory(self._package(resolved), self._relative(head))
        self._of_path[path] = known
        return known

    def _package(self, directory: Path) -> Tuple[str, ...]:
        # up the packages in a loop, not by recursion: they may be thousands of directories deep
        inside: List[Path] = []
        known = self._packages.get(directory)
        while known is None:
            if os.path.exists(directory / "__init__.py") and directory.parent != directory:
                inside.append(directory)
                directory = directory.parent
                known = self._packages.get(directory)
            else:
                known = self._packages[directory] = ()
        for package in reversed(inside):  # outermost first: each adds its name to its parent's
            known = self._packages[package] = known + (package.name,)
        return known

    def _relative(self, head: str) -> Optional[str]:
        cwd = self.resolver.cwd
        for absolute in (Path(os.path.abspath(head or ".")), self.resolver.resolve(head or ".")):
            try:
                relative = str(absolute.relative_to(cwd))
            except ValueError:
                continue
            return "" if relative == "." else relative
        return None
