"""A module's constants: the module-level names other modules may import as settings.

`config.py` holding `DTYPE = "float16"`, read by a kernel through `from config import *`,
is how real projects set a dtype, and `OPT_LEVEL = 3` their PassContext's level. A name
counts only where the module binds it once, at module level, to a string literal that can
be a dtype's name or to an integer: a name bound twice, in a function through `global`, or
by a loop or an import, may hold anything when read.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, Optional, Set, Tuple

# a dtype's name ("float16", "bfloat16", "e4m3_float8"): what an importing rule reads
_LONGEST = 32

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def module_constants(tree: ast.Module, text: str = "global") -> Dict[str, Tuple[object, int]]:
    """name -> (its value, the line binding it), for names the module binds exactly once, at
    module level, by `NAME = "literal"` or `NAME = 3` (or an annotated one). `text`: the module's source,
    when known (no function of a text without the word `global` binds a module-level name)."""
    counts: Dict[str, int] = {}
    literal: Dict[str, Tuple[object, int]] = {}
    rebound: Set[str] = set()
    for statement in tree.body:
        literal.update(_literal_binding(statement))
    if not literal:
        return {}
    for node in _module_level(tree, "global" in text):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            rebound.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                rebound.add((alias.asname or alias.name).partition(".")[0])
    return {name: found for name, found in literal.items() if counts.get(name) == 1 and name not in rebound}


def _literal_binding(statement: ast.stmt) -> Dict[str, Tuple[object, int]]:
    """A top-level `NAME = "literal"` or `NAME = 3`'s name and (value, line); empty for any
    other statement."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return {}
    value = statement.value
    if (isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str)
            and value.value.isidentifier() and len(value.value) <= _LONGEST):
        return {target.id: (value.value, statement.lineno)}
    if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and type(value.value) is int:
        return {target.id: (value.value, statement.lineno)}
    return {}


def constant_names(tree: ast.Module) -> Set[str]:
    """The names `module_constants` may give, from the top-level statements alone: what a
    later round asks of a file it did not analyse (does it define `config.DTYPE`?)."""
    return {name for statement in tree.body for name in _literal_binding(statement)}


def option_dest(call: ast.Call) -> Optional[str]:
    """Where argparse stores an `add_argument(...)`'s value: `dest=`, else its first long flag
    (`--out-dtype` -> `out_dtype`), else its first short flag or positional name."""
    for keyword in call.keywords:
        if keyword.arg == "dest":
            return keyword.value.value if isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str) else None
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not flags:
        return None
    chosen = next((flag for flag in flags if flag.startswith("--")), flags[0])
    return chosen.lstrip("-").replace("-", "_")


def option_defaults(tree: ast.Module, text: str) -> Dict[str, Dict[str, str]]:
    """For each module-level function that builds a command line and returns what it parses
    (`def parse_args(): ...; args.add_argument("--out-dtype", default="float16"); return
    args.parse_args()`): its options' string defaults by where argparse stores them, leaving
    out an option the function sets again after parsing (`parsed.target = ...`) or declares
    twice. Another module's `ARGS = parse_args()` then reads `ARGS.out_dtype` as that default."""
    if "add_argument" not in text:
        return {}
    out: Dict[str, Dict[str, str]] = {}
    for function in tree.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        defaults: Dict[str, str] = {}
        seen: Set[str] = set()
        stored: Set[str] = set()
        parses = False
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "parse_args":
                    parses = True
                elif node.func.attr == "add_argument":
                    dest = option_dest(node)
                    if dest is None:
                        continue
                    if dest in seen:
                        defaults.pop(dest, None)
                        continue
                    seen.add(dest)
                    default = next((k.value for k in node.keywords if k.arg == "default"), None)
                    if isinstance(default, ast.Constant) and isinstance(default.value, str):
                        defaults[dest] = default.value
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                stored.add(node.attr)
        kept = {dest: value for dest, value in defaults.items() if dest not in stored}
        if parses and kept:
            out[function.name] = kept
    return out


def _module_level(tree: ast.Module, functions_bind: bool) -> Iterator[ast.AST]:
    """The module's nodes outside functions and classes (their names and decorators excepted),
    with every `global` statement of the functions (they bind module-level names)."""
    stack = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                yield ast.Name(id=node.name, ctx=ast.Store())
            if functions_bind:
                stack.extend(_globals(node))
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _globals(scope: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(scope):
        if isinstance(node, ast.Global):
            yield node
