"""Calls that hand back a module: the name they are assigned to stands for it.

`importlib.import_module("tvm.relay")` and `__import__("tvm")` name the module they return.
A library's lazy import, `tvm = try_import_tvm()` (gluon-nlp, gluon-cv), is defined where
the analysis of one file cannot look; the call is read as the import it names when both
sides say so: the function is called `try_import_<package>` or `import_<package>` and its
result is bound to that very name. The analysis (module.py) and the pre-filter's names
(used_names.py) both ask here, so they agree.
"""

from __future__ import annotations

import ast
import re
from typing import AbstractSet, Optional

_IMPORTERS = ("importlib.import_module", "import_module", "__import__")
_PREFIXES = ("try_import_", "import_", "_try_import_", "lazy_import_")


# the same calls as the text spells them, assigned at the start of a line: (target, module)
# for `relay = importlib.import_module("tvm.relay")`, (target, "") for `tvm = try_import_tvm()`
# (tvmlint.analysis.reach.TextImports reads them, strings and comments included, as it reads imports)
SPELT = re.compile(
    r"^[ \t]*(?P<target>\w+)[ \t]*=[ \t]*[\w.]*\b(?:"
    r"(?:import_module|__import__)\([ \t]*[\"'](?P<module>[\w.]+)[\"']"
    r"|(?:_?try_|lazy_)?import_(?P=target)[ \t]*\()", re.M)


def could_return_module(function: Optional[str]) -> bool:
    """Whether a call of `function` (a dotted name) is one `module_returned` reads: the cheap
    question asked first, for every assignment of a call's result."""
    if function is None:
        return False
    last = function.rsplit(".", 1)[-1]
    return last in ("import_module", "__import__") or last.startswith(_PREFIXES)


def module_returned(function: Optional[str], first_string: Optional[str], target: Optional[str],
                    roots: Optional[AbstractSet[str]]) -> Optional[str]:
    """The module a call returns, for a call of `function` (its dotted name as written, or
    None) whose first argument is `first_string` (a string literal, else None), assigned to
    the name `target` (None: not to one name); None when it is not one of TVM's (`roots`;
    None: any module, for a question that over-approximates)."""
    if function is None:
        return None
    if function in _IMPORTERS and first_string:
        module = first_string.split(".")[0] if function == "__import__" else first_string
        return module if roots is None or module.split(".")[0] in roots else None
    last = function.rsplit(".", 1)[-1]
    for prefix in _PREFIXES:
        if target is not None and last == prefix + target and (roots is None or target in roots):
            return target
    return None


def dotted_name(node: ast.AST) -> Optional[str]:
    """`a.b.c` of a stdlib-parser name or attribute chain; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
