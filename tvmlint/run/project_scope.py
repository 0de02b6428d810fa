"""Which files a named file's verdicts depend on: its project's.

A finding judged across modules (a helper run under its callers' contexts) must be the
same whether its file is checked alone (pre-commit's file list, an editor's buffer,
`tvmlint check FILE`, a subfolder) or with its whole tree. So a run that names a path also
reads the other files of that path's project, as facts (who calls what, under which
context), and reports on the named files only. Those facts come from the same per-file results a
whole-tree check makes, kept in the result cache (tvmlint.run.cache) by content: the
project's index is that cache, and a file is analysed again only when it changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Set

from tvmlint.run.config import Settings, SettingsResolver
from tvmlint.run.discovery import discover
from tvmlint.run.ignorefiles import git_directory

SETTINGS_FILE = "the folder of its settings file"
GIT_WORK_TREE = "the git work tree it is in"
OWN_FOLDER = "its own folder, without subfolders: no settings file or git work tree above it"


@dataclass(frozen=True)
class ProjectRoot:
    path: Path
    why: str  # one of the three reasons above

    @property
    def recursive(self) -> bool:
        # a script outside any project lives in a folder that may be a home directory: its
        # siblings are its project, not everything below them
        return self.why != OWN_FOLDER

    def describe(self) -> str:
        return f"{self.path} ({self.why})"


def project_root(path: Path, settings: Settings) -> ProjectRoot:
    """The project a file belongs to: the folder of the [tool.tvmlint] settings that apply to
    it, else the top of the git work tree it is in, else its own folder."""
    if settings.config_file is not None:
        return ProjectRoot(Path(os.path.abspath(settings.config_file)).parent, SETTINGS_FILE)
    absolute = os.path.abspath(path)
    folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    found = git_directory(folder)
    if found is not None:
        return ProjectRoot(Path(found[0]), GIT_WORK_TREE)
    return ProjectRoot(Path(folder), OWN_FOLDER)


def project_files(named: Sequence[str], resolver: SettingsResolver) -> List[str]:
    """The files of the named paths' projects, as a whole-tree check of each project walks
    them (exclude, extend-exclude, what git ignores); the named files are not among them.
    A project at or below a named directory adds nothing: the directory's walk has its files.
    A directory that cannot be read is left out quietly: a check of the project says so."""
    skip: Set[str] = {_key(path) for path in named}
    out: List[str] = []
    for root in roots_beyond(named, resolver):
        shown = _as_given(root.path, Path(os.getcwd()))
        found = discover(
            [Path(shown)], _excluder(resolver, None if root.recursive else os.path.normpath(shown)),
            respects_gitignore=lambda p: resolver.for_path(p).respect_gitignore,
        )
        for file in found.files:
            key = _key(file)
            if key not in skip:
                skip.add(key)
                out.append(file)
    return out


def roots_beyond(named: Sequence[str], resolver: SettingsResolver) -> List[ProjectRoot]:
    """The projects of the named paths that reach beyond what the run names: not those at or
    below a named directory (`tvmlint check .` at a project's top needs no other file)."""
    walked = [_key(path) for path in named if os.path.isdir(path)]
    roots = {}
    for path in named:
        root = project_root(Path(path), resolver.for_path(path))
        if not any(_within(_key(str(root.path)), directory) for directory in walked):
            roots.setdefault(root.path, root)
    return sorted(roots.values(), key=lambda r: str(r.path))


def _excluder(resolver: SettingsResolver, flat: Optional[str]) -> Callable[[str], bool]:
    """The walk's exclusion; `flat`: a folder walked without its subfolders."""

    def excluded(path: str) -> bool:
        if flat is not None and os.path.normpath(os.path.dirname(path)) == flat and os.path.isdir(path):
            return True
        return resolver.for_path(path).is_excluded(path, walked=True)

    return excluded


def _as_given(root: Path, cwd: Path) -> str:
    """The root as a whole-tree check run from `cwd` (the process's: a run's paths are relative
    to it) would name it, relative when below."""
    try:
        relative = root.relative_to(cwd)
    except ValueError:
        return str(root)
    return str(relative) if str(relative) != "." else "."


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))
