"""Other names a project's module is imported by.

A file's module name comes from the `__init__.py` files above it
(tvmlint.run.engine.module_name_for). Python finds the same file under other
names too, and real projects use them:
- a folder without `__init__.py` is a namespace package (PEP 420):
  `from mutators.generators import model` imports `mutators/generators/model.py`
  although `generators/` has no `__init__.py` (its module name is `model`);
- a script's own folder is first on `sys.path`: `from parameters import Proc`, in
  a script beside `parameters.py`, imports it although that folder is a package
  whose module name for it is `tvm.parameters`;
- a package's inner folder is on `sys.path` when scripts run from inside the
  project (its root, or a folder of it, is the working directory or on
  PYTHONPATH): `from common.quantize_helper import quantize` imports
  `tvm_autoq/common/quantize_helper.py` although the project's root has an
  `__init__.py` too (its module name is `tvm_autoq.common.quantize_helper`).
  Only a dotted name of two parts or more counts: a bare name is too often
  another package's.

`ModuleAliases.canonical(name, importer)` turns a qualified name written in the
importer's terms into the one the defining file's own results use, or gives it
back unchanged. A name two files could stand for is never resolved to either.
"""

from __future__ import annotations

import os
from typing import Dict, Iterable, List, Optional, Set, Tuple

_AMBIGUOUS = ""


def _module_parts(path: str) -> Tuple[str, ...]:
    head, name = os.path.split(os.path.normpath(path))
    stem = name[:-3] if name.endswith(".py") else name.rpartition(".")[0] or name
    parts = [part for part in head.split(os.sep) if part not in ("", ".")]
    if stem != "__init__":
        parts.append(stem)
    return tuple(parts)


def _add(table: Dict, key, module: str) -> None:
    known = table.get(key)
    table[key] = module if known is None or known == module else _AMBIGUOUS


class ModuleAliases:
    def __init__(self, modules: Iterable[Tuple[str, str]]):
        """`modules`: (path, module name) of every file of the run."""
        # another dotted name (longer, through folders with no __init__.py, or shorter,
        # without its outer packages) -> the module name
        self.longer: Dict[str, str] = {}
        # (folder, bare name) -> the module name of that folder's file of that name
        self.siblings: Dict[Tuple[str, str], str] = {}
        self.modules: Set[str] = set()
        for path, module in modules:
            self.modules.add(module)
            parts = _module_parts(path)
            own = tuple(module.split("."))
            for start in range(1, len(own) - 1):
                _add(self.longer, ".".join(own[start:]), module)
            if not parts or parts[-len(own):] != own:
                continue
            for start in range(len(parts) - len(own) - 1, -1, -1):
                longer = parts[start:]
                if not all(part.isidentifier() for part in longer):
                    break
                _add(self.longer, ".".join(longer), module)
            if len(own) > 1:  # a module of a package: its bare name only means it beside it
                _add(self.siblings, (os.path.dirname(os.path.normpath(path)), own[-1]), module)
        for module in self.modules:
            # a module's own name means that module, never another's shorter name
            self.longer.pop(module, None)
        # the first part of every other name: a name starting otherwise is never one (most are not)
        self.heads = {alias.partition(".")[0] for alias in self.longer} | {bare for _folder, bare in self.siblings}
        self.names: Dict[str, Tuple[str, ...]] = {}  # module name -> its longer names
        for alias, module in self.longer.items():
            if module:
                self.names[module] = self.names.get(module, ()) + (alias,)
        self.beside: Dict[str, Tuple[Tuple[str, str], ...]] = {}  # module name -> (its folder, bare name)
        for (folder, bare), module in self.siblings.items():
            if module:
                self.beside[module] = self.beside.get(module, ()) + ((folder, bare),)

    def canonical(self, name: str, importer: Optional[str] = None) -> str:
        """`name` with its module part named as the module's own results name it, when
        that part is another name of exactly one module of the run."""
        if name.partition(".")[0] not in self.heads:
            return name
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:cut])
            module = None
            if cut == 1 and importer is not None:
                # a script's folder comes first on sys.path, before any top-level module of that name
                module = self.siblings.get((os.path.dirname(os.path.normpath(importer)), head))
            if module is None:
                if head in self.modules:
                    return name  # a module's own name is what it means
                module = self.longer.get(head)
            if module:
                return ".".join((module, *parts[cut:]))
            if module == _AMBIGUOUS:
                return name
        return name

    def spellings(self, name: str) -> Tuple[List[str], List[Tuple[str, str]]]:
        """The other ways a file may write `name` (a qualified name as its module's own results
        give it): those any file may use, and (folder, name) for those only a file in that
        folder may use (a script's sibling, by its bare name)."""
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:cut])
            if head in self.modules:
                rest = parts[cut:]
                anywhere = [".".join((alias, *rest)) for alias in self.names.get(head, ())]
                beside = [(folder, ".".join((bare, *rest))) for folder, bare in self.beside.get(head, ())]
                return anywhere, beside
        return [], []
