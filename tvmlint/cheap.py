"""The cheap stage: the stdlib parser decides which files the libcst analysis must see.

libcst costs about ten times the stdlib `ast` parser, and most files of a large
tree cannot hold a finding. For each file this stage checks the syntax (TVM001),
resolves the names the file uses through its imports the way
`tvmlint.analysis` does, but over-approximating (every binding in every scope
counts), and asks each selected rule whether it `wants` the module. A rule that
says nothing wants any module that uses a TVM name, so a new rule is never
starved. A file whose text names no TVM package root and that lives outside
TVM's own packages cannot use a TVM name at all: it is skipped before any rule
is even imported. It never imports or runs the code it reads.
"""

from __future__ import annotations

import ast
import functools
from typing import AbstractSet, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

PARSE_ERROR = "TVM001"


@functools.lru_cache(maxsize=None)
def roots_of(knowledge) -> FrozenSet[str]:
    """Top-level packages of every API the knowledge names: no TVM name resolves without one."""
    return frozenset(api.split(".")[0] for api in knowledge.api_prefixes()) | {"tvm"}


def parse(text: str, path: str) -> Tuple[Optional[ast.Module], Optional[Tuple[int, int, str]]]:
    """(tree, None), or (None, (line, column, why)) when the stdlib parser rejects the text."""
    try:
        return ast.parse(text, filename=path), None
    except SyntaxError as error:
        return None, (error.lineno or 1, error.offset or 1, f"The file could not be parsed: {error.msg}")
    except (RecursionError, MemoryError):
        return None, (1, 1, "The file could not be parsed: it is too deeply nested")
    except ValueError as error:  # e.g. a NUL byte that decoding let through
        return None, (1, 1, f"The file could not be parsed: {error}")


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class UsedNames:
    """The qualified names a module may use, as far as its imports and definitions tell.

    `names`: every qualified name some Name/Attribute chain or import may stand
    for; `called_outside_with`: those called anywhere except directly as a
    `with` item; `uses_roots`: whether any binding reaches a top-level package
    in `roots` (or the module itself lives in one, so relative imports do).
    """

    def __init__(self, tree: ast.Module, module_name: str, is_package: bool, roots: AbstractSet[str]):
        self.module_name = module_name
        self.package = module_name if is_package else module_name.rpartition(".")[0]
        self.names: Set[str] = set()
        self.called_outside_with: Set[str] = set()
        # what rules that judge a call's arguments, or a literal dtype, ask for
        self.calls_to: Dict[str, List[ast.Call]] = {}
        self.unpacked: Set[str] = set()  # callees whose result is unpacked straight into names
        strings: Set[str] = set()
        unpacked_calls: Set[int] = set()
        bindings: Dict[str, Set[str]] = {}
        stars: List[str] = []
        chains: List[ast.AST] = []
        calls: List[ast.Call] = []
        entered: Set[int] = set()
        for node in ast.walk(tree):
            kind = type(node)
            if kind is ast.Name or kind is ast.Attribute:
                chains.append(node)
            elif kind is ast.Call:
                calls.append(node)
            elif kind is ast.Constant and type(node.value) is str and len(node.value) <= 64:
                strings.add(node.value)
            elif kind is ast.Assign and isinstance(node.value, ast.Call) and isinstance(node.targets[0], (ast.Tuple, ast.List)):
                unpacked_calls.add(id(node.value))
            elif kind is ast.With or kind is ast.AsyncWith:
                entered.update(id(item.context_expr) for item in node.items)
            elif kind is ast.Import:
                for alias in node.names:
                    if alias.asname:
                        bindings.setdefault(alias.asname, set()).add(alias.name)
                    else:
                        top = alias.name.split(".")[0]
                        bindings.setdefault(top, set()).add(top)
                    self.names.add(alias.name)
            elif kind is ast.ImportFrom:
                module = self._absolute(node)
                if module is None:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(module)
                        continue
                    full = f"{module}.{alias.name}"
                    self.names.add(full)
                    bindings.setdefault(alias.asname or alias.name, set()).add(full)
        self._define(tree.body, module_name, bindings)
        resolved: Dict[int, Set[str]] = {}
        for node in chains:
            text = _dotted(node)
            if text is None:
                continue
            head, _, rest = text.partition(".")
            found = {f"{q}.{rest}" if rest else q for q in bindings.get(head, ())}
            found.update(f"{star}.{text}" for star in stars)
            if found:
                resolved[id(node)] = found
                self.names.update(found)
        for call in calls:
            callees = resolved.get(id(call.func), ())
            for callee in callees:
                self.calls_to.setdefault(callee, []).append(call)
            if id(call) in unpacked_calls:
                self.unpacked.update(callees)
            if id(call) not in entered:
                self.called_outside_with.update(callees)
        self.strings: FrozenSet[str] = frozenset(strings)
        in_roots = module_name.split(".")[0] in roots
        self.uses_roots = in_roots or any(q.split(".")[0] in roots for qs in bindings.values() for q in qs) or any(
            star.split(".")[0] in roots for star in stars
        )

    def _absolute(self, node: ast.ImportFrom) -> Optional[str]:
        if not node.level:
            return node.module
        base = self.package.split(".") if self.package else []
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)] if node.level - 1 <= len(base) else []
        parts = [part for part in base if part]
        if node.module:
            parts.append(node.module)
        return ".".join(parts) or None

    def _define(self, body: Iterable[ast.stmt], prefix: str, bindings: Dict[str, Set[str]]) -> None:
        # The analysis names the module's own functions and classes `module.f`, `module.C.f`:
        # inside TVM's own package such a name can be an API.
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                full = f"{prefix}.{statement.name}"
                self.names.add(full)
                bindings.setdefault(statement.name, set()).add(full)
                if isinstance(statement, ast.ClassDef):
                    self._define(statement.body, full, {})

    def uses_any(self, names: AbstractSet[str]) -> bool:
        return not self.names.isdisjoint(names)

    def calls_outside_with(self, names: AbstractSet[str]) -> bool:
        return not self.called_outside_with.isdisjoint(names)


def call_arguments(call: ast.Call, params: Tuple[str, ...]) -> Tuple[Dict[str, ast.expr], bool]:
    """A call's arguments by parameter name (as `tvmlint.analysis.call_arguments` maps them),
    and whether `*`/`**` hides some."""
    mapped: Dict[str, ast.expr] = {}
    hidden = any(isinstance(arg, ast.Starred) for arg in call.args)
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if position < len(params):
            mapped[params[position]] = arg
    for keyword in call.keywords:
        if keyword.arg is None:
            hidden = True
        else:
            mapped[keyword.arg] = keyword.value
    return mapped, hidden


def mentions(used: UsedNames) -> str:
    """The qualified names a module may call, reference or define, one per line: what a later
    round asks of a skipped file (does it call, pass on or define this project helper?)."""
    return "\n" + "\n".join(sorted(used.names)) + "\n"


def mentions_any(mentioned: str, names: Iterable[str]) -> bool:
    return any(f"\n{name}\n" in mentioned for name in names)


class Selection:
    """What the selected rules of one run need from the cheap stage, computed once."""

    def __init__(self, rules: Iterable[type], knowledge):
        self.knowledge = knowledge
        self.roots = roots_of(knowledge)
        self.rules = [rule for rule in rules if rule.code != PARSE_ERROR]
        # Modules that define passes with TVM's decorators tell the whole project which pass
        # names exist (tvmlint.project): they are analysed whenever any rule is selected.
        self.providers: FrozenSet[str] = frozenset(knowledge.decorators)
        tokens: Set[str] = {name.rsplit(".", 1)[-1] for name in self.providers}
        for rule in self.rules:
            tokens.update(rule.tokens(knowledge))
        self.tokens: FrozenSet[str] = frozenset(tokens)

    def text_may_need(self, text: str, module_name: str) -> bool:
        if not self.rules:
            return False
        if module_name.split(".")[0] in self.roots:
            return True  # relative imports inside TVM's own package name no root
        return any(token in text for token in self.tokens)

    def wanted(self, used: UsedNames) -> bool:
        return used.uses_any(self.providers) or any(rule.wants(used, self.knowledge) for rule in self.rules)
