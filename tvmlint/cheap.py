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
import re
import warnings
from dataclasses import dataclass
from typing import AbstractSet, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

PARSE_ERROR = "TVM001"


@functools.lru_cache(maxsize=None)
def roots_of(knowledge) -> FrozenSet[str]:
    """Top-level packages of every API the knowledge names: no TVM name resolves without one."""
    return frozenset(api.split(".")[0] for api in knowledge.api_prefixes()) | {"tvm"}


def parse(text: str) -> Tuple[Optional[ast.Module], Optional[Tuple[int, int, str]]]:
    """(tree, None), or (None, (line, column, why)) when the stdlib parser rejects the text."""
    try:
        # no file name: given one, CPython re-reads the offending line from that file on disk to
        # place a syntax error, so the column came from the saved file, not the text checked (an
        # editor's or stdin's buffer), and from a line cut at its buffer's length
        with warnings.catch_warnings():
            # the code's own business (an invalid escape such as "\d": a SyntaxWarning printed
            # for each from Python 3.12), not the user's run's
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=""), None
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
        self._bindings: Dict[str, Set[str]] = {}
        self._stars: List[str] = []
        self._scan(ast.walk(tree), imports=True)
        self.defined: Set[str] = set()
        self._define(tree.body, module_name, self._bindings, self.defined)
        self.names |= self.defined
        self._resolve()
        in_roots = module_name.split(".")[0] in roots
        self.uses_roots = in_roots or any(
            q.split(".")[0] in roots for qs in self._bindings.values() for q in qs
        ) or any(star.split(".")[0] in roots for star in self._stars)

    def part(self, statements: Iterable[ast.stmt]) -> "UsedNames":
        """What these statements alone use, resolved through the whole module's imports."""
        part = object.__new__(UsedNames)
        part.module_name, part.package = self.module_name, self.package
        part.names = set()
        part._bindings, part._stars = self._bindings, self._stars
        statements = list(statements)
        part._scan((node for statement in statements for node in ast.walk(statement)), imports=False)
        part.defined = set()
        self._define(statements, self.module_name, {}, part.defined)
        part.names |= part.defined
        part._resolve()
        part.uses_roots = self.uses_roots
        return part

    def _scan(self, nodes: Iterable[ast.AST], imports: bool) -> None:
        # what rules that judge a call's arguments, or a literal dtype, ask for
        self.calls_to: Dict[str, List[ast.Call]] = {}
        self.unpacked: Set[str] = set()  # callees whose result is unpacked straight into names
        self.called_outside_with: Set[str] = set()
        self.identifiers: Set[str] = set()  # every bare name and attribute name, resolved or not
        strings: Set[str] = set()
        self._unpacked_calls: Set[int] = set()
        self._chains: List[ast.AST] = []
        self._calls: List[ast.Call] = []
        self._entered: Set[int] = set()
        bindings = self._bindings
        for node in nodes:
            kind = type(node)
            if kind is ast.Name or kind is ast.Attribute:
                self._chains.append(node)
            elif kind is ast.Call:
                self._calls.append(node)
            elif kind is ast.Constant and type(node.value) is str and len(node.value) <= 64:
                strings.add(node.value)
            elif kind is ast.Assign and isinstance(node.value, ast.Call) and isinstance(node.targets[0], (ast.Tuple, ast.List)):
                self._unpacked_calls.add(id(node.value))
            elif kind is ast.With or kind is ast.AsyncWith:
                self._entered.update(id(item.context_expr) for item in node.items)
            elif kind is ast.Import:
                for alias in node.names:
                    if imports:
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
                        if imports:
                            self._stars.append(module)
                        continue
                    full = f"{module}.{alias.name}"
                    self.names.add(full)
                    if imports:
                        bindings.setdefault(alias.asname or alias.name, set()).add(full)
        self.strings: FrozenSet[str] = frozenset(strings)

    def _resolve(self) -> None:
        resolved: Dict[int, Set[str]] = {}
        bindings, stars = self._bindings, self._stars
        for node in self._chains:
            self.identifiers.add(node.id if type(node) is ast.Name else node.attr)
            text = _dotted(node)
            if text is None:
                continue
            head, _, rest = text.partition(".")
            found = {f"{q}.{rest}" if rest else q for q in bindings.get(head, ())}
            found.update(f"{star}.{text}" for star in stars)
            if found:
                resolved[id(node)] = found
                self.names.update(found)
        for call in self._calls:
            callees = resolved.get(id(call.func), ())
            for callee in callees:
                self.calls_to.setdefault(callee, []).append(call)
            if id(call) in self._unpacked_calls:
                self.unpacked.update(callees)
            if id(call) not in self._entered:
                self.called_outside_with.update(callees)
        del self._chains, self._calls, self._entered, self._unpacked_calls

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

    @staticmethod
    def _define(body: Iterable[ast.stmt], prefix: str, bindings: Dict[str, Set[str]], names: Set[str]) -> None:
        # The analysis names the module's own functions and classes `module.f`, `module.C.f`:
        # inside TVM's own package such a name can be an API.
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                full = f"{prefix}.{statement.name}"
                names.add(full)
                bindings.setdefault(statement.name, set()).add(full)
                if isinstance(statement, ast.ClassDef):
                    UsedNames._define(statement.body, full, {}, names)

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
    """The qualified names a module may call, reference or define, one per line, and those it
    defines again with a leading `=`: what a later round asks of a skipped file (does it call,
    pass on or define this project helper? `tvmlint.compact.mentions_any`)."""
    return _mentions(used.names, used.defined)


def _mentions(names: Iterable[str], defined: Iterable[str]) -> str:
    return "\n" + "\n".join(sorted(names)) + "\n" + "".join(f"={name}\n" for name in sorted(defined))


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

    def wanting(self, used: UsedNames) -> FrozenSet[str]:
        """The codes of the rules that can fire in a module: the others need not even run on it."""
        return frozenset(rule.code for rule in self.rules if rule.wants(used, self.knowledge))


_UNITS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass
class Pruned:
    """A module with the top-level definitions no selected rule can need blanked out."""

    text: str  # line for line the original: blanked lines keep only their line ending
    tree: ast.Module  # the stdlib tree of `text` (the original's, less the blanked statements)
    mentions: str  # what the blanked definitions call, reference or define (`mentions`)


def prune(
    text: str,
    tree: ast.Module,
    used: UsedNames,
    selection: "Selection",
    follow: Optional[Tuple[AbstractSet[str], AbstractSet[str]]] = None,
) -> Optional[Pruned]:
    """Blank the top-level functions and classes that can hold no finding; None when all can.

    A definition is kept when the selected rules want it together with the
    module-level statements (which are always kept: imports, constants, a
    module-level `with`), or when a kept definition names it (a helper it
    calls, a context it enters): the analysis then resolves every name in a
    kept definition as it would in the whole module. Its callers are blanked
    like any other definition: when a finding turns out to depend on them (a
    helper judged under its callers' contexts), the runner's later rounds
    analyse the file again with `follow`: (names whose callers matter, names
    whose definitions matter), and keep the definitions that name (or define) one.
    """
    units = [statement for statement in tree.body if isinstance(statement, _UNITS)]
    if not units:
        return None
    top = used.part(statement for statement in tree.body if not isinstance(statement, _UNITS))
    parts = [used.part([unit]) for unit in units]
    kept = [selection.wanted(merged(top, part)) for part in parts]
    if follow is not None:
        callers_of, defined = follow
        kept = [
            keep or not part.names.isdisjoint(callers_of) or not part.defined.isdisjoint(defined)
            for keep, part in zip(kept, parts)
        ]
    if all(kept):
        return None
    defined = [_defined_names(unit) for unit in units]
    # what kept definitions name (helpers, callbacks, context factories) is kept with them
    named: Set[str] = set().union(*(parts[i].identifiers for i, keep in enumerate(kept) if keep))
    grown = True
    while grown:
        grown = False
        for i, keep in enumerate(kept):
            if not keep and not defined[i].isdisjoint(named):
                kept[i] = grown = True
                named |= parts[i].identifiers
    if all(kept):
        return None
    lines = _LINE.findall(text)
    mentioned: Set[str] = set()
    defines: Set[str] = set()
    for unit, part, keep in zip(units, parts, kept):
        if keep:
            continue
        mentioned |= part.names
        defines |= part.defined
        first = min([unit.lineno, *(decorator.lineno for decorator in unit.decorator_list)])
        for index in range(first - 1, unit.end_lineno):
            line = lines[index]
            lines[index] = line[len(line.rstrip("\r\n")):]
    blanked = {id(unit) for unit, keep in zip(units, kept) if not keep}
    body = [statement for statement in tree.body if id(statement) not in blanked]
    return Pruned("".join(lines), ast.Module(body=body, type_ignores=[]), _mentions(mentioned, defines))


def _defined_names(unit: ast.stmt) -> Set[str]:
    names = {unit.name}
    if isinstance(unit, ast.ClassDef):
        names.update(s.name for s in unit.body if isinstance(s, _UNITS))
    return names


def merged(first: UsedNames, second: UsedNames) -> UsedNames:
    """The names two parts of one module use together."""
    both = object.__new__(UsedNames)
    both.module_name, both.package = first.module_name, first.package
    both._bindings, both._stars = first._bindings, first._stars
    both.names = first.names | second.names
    both.defined = first.defined | second.defined
    both.called_outside_with = first.called_outside_with | second.called_outside_with
    both.calls_to = {name: calls[:] for name, calls in first.calls_to.items()}
    for name, calls in second.calls_to.items():
        both.calls_to.setdefault(name, []).extend(calls)
    both.unpacked = first.unpacked | second.unpacked
    both.identifiers = first.identifiers | second.identifiers
    both.strings = first.strings | second.strings
    both.uses_roots = first.uses_roots or second.uses_roots
    return both
