""".gitignore, .ignore, .git/info/exclude and git's global excludes file, as ruff reads them.

Inside a git repository (a `.git` directory or file above the walked
directory), the walk leaves out what git ignores: the global excludes file
(`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`), `.git/info/exclude`,
and every `.gitignore` from the repository's top down to the file, the deeper
one deciding; `.ignore` files count in or out of a repository and over a
`.gitignore` beside them. Outside a repository `.gitignore` files are not read
(ruff and ripgrep do the same: an exported tree keeps its files). Patterns are
matched with `pathspec`'s git semantics; a directory it ignores is not entered,
so nothing below it can be taken back (as in git).
"""

from __future__ import annotations

import errno
import os
import re
import subprocess
from typing import Dict, List, Optional, Tuple

# (directory the patterns are relative to, the compiled spec)
_Layer = Tuple[str, object]


# An ignore file larger than this is not read (git's own are a few kilobytes; one this size is
# not an ignore file someone wrote): a symlink to /dev/zero, or a generated file, would
# otherwise be read until memory runs out
MAX_IGNORE_FILE = 1 << 20
# git reads a run of three or more asterisks as regular asterisks (gitignore(5): "Other
# consecutive asterisks are considered regular asterisks"), each matching within one path
# segment: the run means what one `*` means. Left as it is, pathspec's regular expression for
# 2,001 of them backtracks for minutes on every path.
_STAR_RUN = re.compile(r"\*{3,}")


def _read_spec(path: str, problems: Optional[List[str]] = None):
    from tvmlint.base.source import TooLarge, read_file

    try:
        # a regular file only (a FIFO would block, a device read forever), and a bounded one
        data = read_file(path, MAX_IGNORE_FILE)
    except FileNotFoundError:
        return None
    except TooLarge:
        if problems is not None:
            problems.append(f"{path}: ignore file not read (larger than {MAX_IGNORE_FILE >> 20} MB)")
        return None
    except OSError as error:
        if problems is not None and error.errno != errno.ENOTDIR:
            problems.append(f"{path}: ignore file not read ({error.strerror})")
        return None
    lines = [_STAR_RUN.sub("*", line) for line in data.decode("utf-8", errors="replace").splitlines()]
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        return None
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec, _any_pattern(spec)


def _any_pattern(spec):
    """One regular expression that matches where any of `spec`'s patterns does: most paths match
    none, and one search instead of one per pattern (hundreds in a large .gitignore) settles them.
    Where it matches, `spec.check_file` decides (the last matching pattern, negations)."""

    parts = [
        re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(?:", pattern.regex.pattern)
        for pattern in spec.patterns if pattern.include is not None and getattr(pattern, "regex", None) is not None
    ]
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts)) if parts else None
    except re.error:
        return False  # not expressible as one: ask every pattern


def git_directory(start: str) -> Optional[Tuple[str, str]]:
    """(the repository's top, its git directory) for a directory inside a git work tree."""
    directory = os.path.abspath(start)
    while True:
        dot_git = os.path.join(directory, ".git")
        if os.path.isdir(dot_git):
            return directory, dot_git
        if os.path.isfile(dot_git):  # a worktree or submodule: "gitdir: <path>"
            try:
                with open(dot_git, encoding="utf-8") as handle:
                    text = handle.read().strip()
            except OSError:
                text = ""
            if text.startswith("gitdir:"):
                target = os.path.join(directory, text[len("gitdir:"):].strip())
                common = os.path.join(target, "commondir")
                if os.path.isfile(common):
                    try:
                        with open(common, encoding="utf-8") as handle:
                            target = os.path.join(target, handle.read().strip())
                    except OSError:
                        pass
                return directory, os.path.normpath(target)
            return directory, dot_git
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def global_excludes_file(top: str) -> Optional[str]:
    """git's core.excludesFile for the repository at `top`, else its XDG default."""
    try:
        done = subprocess.run(
            ["git", "config", "--path", "--get", "core.excludesFile"], cwd=top, capture_output=True, text=True,
            timeout=10,
        )
        configured = done.stdout.strip() if done.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        configured = ""
    if configured:
        return os.path.join(top, os.path.expanduser(configured))
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "git", "ignore")


class IgnoreFiles:
    """What the ignore files say about the paths of one walk."""

    def __init__(self, top: str):
        self.problems: List[str] = []  # ignore files that could not be read, and why
        top = os.path.abspath(top)
        found = git_directory(top)
        self.repository = found[0] if found else None
        base: List[_Layer] = []
        if found is not None:
            repo, git_dir = found
            for path in (global_excludes_file(repo), os.path.join(git_dir, "info", "exclude")):
                spec = _read_spec(path, self.problems) if path else None
                if spec is not None:
                    base.append((repo, spec))
        self._layers: Dict[str, Tuple[_Layer, ...]] = {}
        # the directories above `top`, from the repository's top (or `top` itself outside one) down
        above: List[str] = []
        directory = top
        while True:
            above.append(directory)
            if directory == self.repository or self.repository is None:
                break
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
        layers: Tuple[_Layer, ...] = tuple(base)
        for directory in reversed(above):
            layers = layers + self._own(directory)
            self._layers[directory] = layers

    def _own(self, directory: str) -> Tuple[_Layer, ...]:
        own = []
        names = (".gitignore", ".ignore") if self.repository is not None else (".ignore",)
        for name in names:  # .ignore after .gitignore: it decides over it
            spec = _read_spec(os.path.join(directory, name), self.problems)
            if spec is not None:
                own.append((directory, spec))
        return tuple(own)

    def enter(self, directory: str) -> None:
        """Read `directory`'s own ignore files: the walk is about to look at its entries."""
        directory = os.path.abspath(directory)
        if directory in self._layers:
            return
        parent = self._layers.get(os.path.dirname(directory), ())
        self._layers[directory] = parent + self._own(directory)

    def ignored(self, path: str, is_dir: bool) -> bool:
        path = os.path.abspath(path)
        layers = self._layers.get(os.path.dirname(path), ())
        for base, (spec, any_pattern) in reversed(layers):  # the deepest file that says something decides
            relative = os.path.relpath(path, base).replace(os.sep, "/")
            if relative.startswith("../"):
                continue
            candidate = relative + "/" if is_dir else relative
            if any_pattern is None or (any_pattern is not False and any_pattern.search(candidate) is None):
                continue
            result = spec.check_file(candidate)
            if result.include is not None:
                return result.include
        return False
