"""Which files a run checks: walk the paths given, skip what is never source."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

# Directories that hold no code of the user's own: VCS data, environments, builds, caches.
SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".bzr", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        ".tvmlint_cache", ".tox", ".nox", ".venv", "venv", ".eggs", "build", "dist", "node_modules",
        "site-packages", "__pypackages__", ".ipynb_checkpoints",
    }
)


@dataclass
class Discovery:
    files: List[str] = field(default_factory=list)  # as walked: str, not Path (a run holds them all)
    problems: List[str] = field(default_factory=list)  # unreadable directories and such


def resolve(path: Path) -> Path:
    """`path.resolve()` that survives symlink loops (RuntimeError before Python 3.13)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def is_regular_file(path: str) -> bool:
    """A regular file, not a link to one: one lstat."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def walk(top: str, on_error: Callable[[OSError], None]) -> Iterator[Tuple[str, List[str], List[str]]]:
    """os.walk(top, onerror=on_error, followlinks=False), top-down, without recursion: before
    Python 3.12 os.walk recursed once a level, and a tree ~1,000 directories deep stopped the
    run with RecursionError. The caller may prune `dirnames` as with os.walk."""
    stack = [top]
    while stack:
        directory = stack.pop()
        dirnames: List[str] = []
        filenames: List[str] = []
        links = set()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    try:  # as os.walk: a link to a directory is listed with the directories
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        filenames.append(entry.name)
                        continue
                    dirnames.append(entry.name)
                    try:
                        if entry.is_symlink():
                            links.add(entry.name)
                    except OSError:
                        links.add(entry.name)
        except OSError as error:
            on_error(error)
            continue
        yield directory, dirnames, filenames
        # links to directories are not followed; the rest in order, the first on top of the stack
        stack.extend(os.path.join(directory, name) for name in reversed(dirnames) if name not in links)


def discover(paths: Sequence[Path], is_excluded: Callable[[str], bool]) -> Discovery:
    """Python files under `paths`; a file named explicitly is always checked."""
    found = Discovery()
    # one walk never meets a file twice: only several paths (a directory and a file in it) can
    seen: Optional[set] = set() if len(paths) > 1 else None

    def add(path: str) -> None:
        if seen is not None:
            key = os.path.normcase(os.path.abspath(path))
            if key in seen:
                return
            seen.add(key)
        found.files.append(path)

    for root in paths:
        if not os.path.isdir(root):  # named explicitly: a FIFO or a broken link is read and reported
            add(os.fspath(root))
            continue
        def on_error(error: OSError) -> None:
            found.problems.append(f"{error.filename}: cannot read directory ({error.strerror})")
        for directory, dirnames, filenames in walk(os.fspath(root), on_error):
            kept = []
            for name in sorted(dirnames):
                full = os.path.join(directory, name)
                if name in SKIPPED_DIRS or name.endswith(".egg-info") or is_virtualenv(full):
                    continue
                if is_excluded(full):
                    continue
                kept.append(name)
            dirnames[:] = kept
            for name in sorted(filenames):
                if name.endswith((".py", ".pyi")):
                    path = os.path.join(directory, name)
                    if not is_excluded(path):
                        add(path)
    return found
