"""Whether the TVM tree a project carries itself defines a name.

A research fork of TVM (a `python/tvm` package in the repository, often a development
snapshot between two releases) runs its own tests and scripts against that package, not
against a release: a name a release removed may still be there. Such a project's removed-API
findings wait for the project step, which asks this module whether the package defines
the name. It reads the package's files (never imports them), each once per run.
"""

from __future__ import annotations

import ast
import os
from typing import Dict, FrozenSet, List, Optional, Tuple

from tvmlint.base.source import decode, read_file

# TVM's own packages a project may carry: a name is asked of the one its first part names
PACKAGES = ("tvm", "topi", "nnvm", "vta")
_LAYOUTS = ("python/{name}", "{name}/python/{name}", "{name}")
_MAX_BYTES = 2_000_000  # a module of TVM's own is far smaller; a larger file is not read
_STARS = 4  # `from .x import *` chains followed at most this deep


def carried_packages(root: str) -> Tuple[Tuple[str, str], ...]:
    """(package name, its directory) for each of TVM's packages the tree under `root` holds
    itself, in TVM's layouts (`python/tvm`, `topi/python/topi`, or at the top)."""
    found = []
    for name in PACKAGES:
        for layout in _LAYOUTS:
            directory = os.path.join(root, layout.format(name=name))
            if os.path.isfile(os.path.join(directory, "__init__.py")):
                found.append((name, os.path.abspath(directory)))
                break
    return tuple(found)


class OwnTree:
    """The names the carried packages define, read lazily from their files."""

    def __init__(self) -> None:
        self._names: Dict[str, Optional[Tuple[FrozenSet[str], Tuple[str, ...]]]] = {}

    def defines(self, qualname: str, directory: str) -> bool:
        """Whether the package at `directory` (named by `qualname`'s first part) has `qualname`:
        a module of it, or a name a module binds at its top level (through `from x import *`
        too). What lies below a defined class or function is taken to be there."""
        parts = qualname.split(".")
        path = directory
        for index, part in enumerate(parts[1:], start=1):
            package = os.path.join(path, part)
            if os.path.isfile(os.path.join(package, "__init__.py")):
                path = package
                continue
            if os.path.isfile(package + ".py"):
                if index == len(parts) - 1:
                    return True
                return self._binds(package + ".py", parts[index + 1], _STARS)
            return self._binds(os.path.join(path, "__init__.py"), part, _STARS)
        return True

    def _binds(self, module_file: str, name: str, depth: int) -> bool:
        read = self._read(module_file)
        if read is None:
            return False
        names, stars = read
        if name in names:
            return True
        here = os.path.dirname(module_file)
        if os.path.basename(module_file) == "__init__.py" and (
                os.path.isfile(os.path.join(here, name + ".py")) or os.path.isfile(os.path.join(here, name, "__init__.py"))):
            return True  # a submodule of the package
        return depth > 0 and any(self._binds(star, name, depth - 1) for star in stars)

    def _read(self, module_file: str) -> Optional[Tuple[FrozenSet[str], Tuple[str, ...]]]:
        if module_file not in self._names:
            self._names[module_file] = _top_level_names(module_file)
        return self._names[module_file]


def _top_level_names(module_file: str) -> Optional[Tuple[FrozenSet[str], Tuple[str, ...]]]:
    """The names a module binds at its top level (in `if`/`try` blocks too), and the files of
    the modules it star-imports relatively."""
    try:
        source, _ = decode(read_file(module_file, _MAX_BYTES))  # a FIFO, a device or a huge file raise
        if source is None:
            return None
        tree = ast.parse(source.text)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: List[str] = []
    stars: List[str] = []
    here = os.path.dirname(module_file)
    stack: List[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.extend(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import):
            names.extend((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    star = _relative_file(here, node.level, node.module)
                    if star is not None:
                        stars.append(star)
                else:
                    names.append(alias.asname or alias.name)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, block, ()):
                    stack.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])
    return frozenset(names), tuple(stars)


def _relative_file(here: str, level: int, module: Optional[str]) -> Optional[str]:
    if level == 0:
        return None  # an absolute star import: another package's names, not followed
    base = here
    for _ in range(level - 1):
        base = os.path.dirname(base)
    target = os.path.join(base, *module.split(".")) if module else base
    for candidate in (target + ".py", os.path.join(target, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None
