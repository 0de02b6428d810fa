"""Which files a run checks: walk the paths given, skip what is never source."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Sequence, Tuple


@dataclass
class Discovery:
    files: List[str] = field(default_factory=list)  # as walked: str, not Path (a run holds them all)
    problems: List[str] = field(default_factory=list)  # unreadable directories and such


# what a folder's walk checks: Python files, stubs and Jupyter notebooks (as ruff does)
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")


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


def discover(
    paths: Sequence[Path],
    is_excluded: Callable[[str], bool],
    skips_named: Optional[Callable[[str], bool]] = None,
    respects_gitignore: Optional[Callable[[str], bool]] = None,
) -> Discovery:
    """Python files under `paths`. `is_excluded(path)`: a walked file or directory is left out
    (exclude, extend-exclude; the directories above it were asked first). A file or directory
    named in `paths` is checked unless `skips_named(path)` (force-exclude). A walk of a
    directory for which `respects_gitignore(directory)` leaves out what git ignores."""
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
        if skips_named is not None and skips_named(os.fspath(root)):
            continue
        if not os.path.isdir(root):  # named explicitly: a FIFO or a broken link is read and reported
            add(os.fspath(root))
            continue
        def on_error(error: OSError) -> None:
            found.problems.append(f"{error.filename}: cannot read directory ({error.strerror})")
        ignores = None
        if respects_gitignore is not None and respects_gitignore(os.fspath(root)):
            from tvmlint.run.ignorefiles import IgnoreFiles

            ignores = IgnoreFiles(os.fspath(root))
        for directory, dirnames, filenames in walk(os.fspath(root), on_error):
            if ignores is not None:
                ignores.enter(directory)
            kept = []
            for name in sorted(dirnames):
                full = os.path.join(directory, name)
                if is_excluded(full) or is_virtualenv(full):
                    continue
                if ignores is not None and ignores.ignored(full, True):
                    continue
                kept.append(name)
            dirnames[:] = kept
            if ignores is not None and ignores.problems:
                found.problems.extend(ignores.problems)
                ignores.problems.clear()
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(directory, name)
                    if is_excluded(path) or (ignores is not None and ignores.ignored(path, False)):
                        continue
                    add(path)
    return found
