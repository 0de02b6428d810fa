"""Whether a module can use any of a set of qualified names, without resolving all of its names.

The cheap stage resolves every name of a module through its imports
(`tvmlint.analysis.used_names.UsedNames`) before asking the rules whether they want it: on
apache/tvm's tree that costs as much as parsing, and four modules in five turn
out to use no name a rule asks about. This answers first, from the module's
imports and definitions and from the attribute chains its text spells after
each imported name (`tvm.relay.build`, `T.init`), and it errs only one way:
when it says no, `UsedNames` could not name a target or anything under one.

The text is read the way the stdlib parser reads a chain: whitespace, line
continuations, comments and closing parentheses may stand between a name and
its attribute (`(tvm)\\n  .build`). A chain inside a string or a comment counts
too, which only makes the answer yes more often.

Most modules can be ruled out before the stdlib parser builds their tree at all
(`Reach.may_use_text`): their imports are read from the text the same way, every
`import` it spells counted, so the bindings found hold the tree's. Such a module
only needs the parser's verdict for TVM001 (`tvmlint.analysis.used_names.parses`), a third
less work than its tree.
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import (
    AbstractSet,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Pattern,
    Set,
    Tuple,
)

from tvmlint.analysis.module_returns import SPELT, dotted_name, module_returned

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# what may separate the parts of a chain: an import binds the head, the text spells the rest
_GAP = r"(?:\s|\\(?:\r\n|\r|\n)|#[^\r\n]*[\r\n]|\))*"
_WORD = re.compile(r"\w+")
_COMMENT = re.compile(r"#[^\r\n]*")


def enclosing(name: str) -> Iterator[str]:
    """The names `name` lies under: `a` and `a.b` for `a.b.c`."""
    end = name.find(".")
    while end != -1:
        yield name[:end]
        end = name.find(".", end + 1)




class Imports:
    """A module's bindings as `UsedNames` makes them: every import statement at any depth
    (local name -> what it stands for), the modules it star-imports, and the qualified
    names its imports and its own definitions (`module.f`, `module.C.m`) put in scope."""

    def __init__(self, tree: ast.Module, module_name: str, is_package: bool):
        self.package = module_name if is_package else module_name.rpartition(".")[0]
        self.bound: Dict[str, Set[str]] = {}
        self.stars: List[str] = []
        self.names: Set[str] = set()
        stack: List[ast.AST] = list(tree.body)
        while stack:  # statements only: an import is never part of an expression
            node = stack.pop()
            kind = type(node)
            if kind is ast.Import:
                for alias in node.names:
                    self.names.add(alias.name)
                    local, target = (alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2
                    self.bound.setdefault(local, set()).add(target)
            elif kind is ast.ImportFrom:
                self._import_from(node)
            elif kind is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name \
                    and type(node.value) is ast.Call:
                self._returned_module(node.value, node.targets[0].id)
            else:
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    statements = getattr(node, field, None)
                    if statements:
                        stack.extend(statements)
        define(tree.body, module_name, self.bound, self.names)

    def _returned_module(self, call: ast.Call, target: str) -> None:
        # `tvm = try_import_tvm()`: bound as the analysis binds it (tvmlint.analysis.module_returns)
        first = call.args[0] if call.args else None
        text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        module = module_returned(dotted_name(call.func), text, target, None)
        if module is not None:
            self.names.add(module)
            self.bound.setdefault(target, set()).add(module)

    def _import_from(self, node: ast.ImportFrom) -> None:
        module = absolute_module(node, self.package)
        if module is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self.stars.append(module)
                continue
            full = f"{module}.{alias.name}"
            self.names.add(full)
            self.bound.setdefault(alias.asname or alias.name, set()).add(full)


def absolute_module(node: ast.ImportFrom, package: str) -> Optional[str]:
    """The module a `from ... import` names, relative imports resolved against `package`."""
    return _absolute(node.level, node.module, package)


def _absolute(level: int, module: Optional[str], package: str) -> Optional[str]:
    if not level:
        return module
    base = package.split(".") if package else []
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    parts = [part for part in base if part]
    if module:
        parts.append(module)
    return ".".join(parts) or None


# What may separate two tokens of one logical line: blanks and line continuations.
_BLANK = r"(?:[ \t\f]|\\(?:\r\n|\r|\n))*"
_DOTTED = rf"\w+(?:{_BLANK}\.{_BLANK}\w+)*"
# The keyword comes first and what may not precede it after: a pattern that starts with an
# assertion is tried at every position of the text, one that starts with a word is searched for.
# (Each blank run is followed by the token it separates, so no run can be split two ways.)
_FROM = re.compile(rf"from(?<![\w.]from)((?:{_BLANK}\.)*(?:{_BLANK}{_DOTTED})?){_BLANK}import(?!\w)")
_IMPORT = re.compile(r"import(?<![\w.]import)(?!\w)")
# the rest of a logical line: up to a line end that no backslash continues, a `;` or a comment
_REST = re.compile(r"(?:[^\r\n;#\\]|\\(?:\r\n|\r|\n)?)*")
# a comment inside the parentheses may hold a parenthesis; it runs to the end of its line, so
# no character can be read either way (that would backtrack without end on an unclosed list)
_PARENTHESIZED = re.compile(rf"{_BLANK}\(((?:[^)#]|#[^\r\n]*(?![^\r\n]))*)\)")
_OPENING = re.compile(rf"{_BLANK}\(")
_ITEM = re.compile(rf"^({_DOTTED})(?:\s+as\s+(\w+))?$")
_SPACE = re.compile(r"\s+|\\(?:\r\n|\r|\n)")
# How far an import list is read. A longer one (none is, in practice) sends the module to the
# parser, so that a text of many unclosed lists or long lines costs no more than a few reads.
_LONGEST_LIST = 4 * 1024


class TextImports:
    """What `Imports` finds, read from the text without the parser: every `import` the text
    spells, strings and comments included, so it finds a superset of the module's imports.
    `complete` is False when it cannot vouch for that (a letter outside ASCII, which the
    parser normalises): the caller asks the parser instead.
    Definitions are not read: `Reach.may_use_text` sends the modules they matter in to the parser."""

    def __init__(self, text: str, module_name: str, is_package: bool):
        self.package = module_name if is_package else module_name.rpartition(".")[0]
        self.bound: Dict[str, Set[str]] = {}
        self.stars: List[str] = []
        self.names: Set[str] = set()
        self.complete = True
        # every `import` the text spells: a list without parentheses ends before the next one,
        # since a real list holds no keyword (a `;`, a comment or the line's end comes first)
        for match in SPELT.finditer(text):
            # `tvm = try_import_tvm()`, `relay = importlib.import_module("tvm.relay")`: bound
            # as the tree's Imports binds them (a superset: `__import__("tvm.relay")` binds more)
            module = match.group("module") or match.group("target")
            self.names.add(module)
            self.bound.setdefault(match.group("target"), set()).update({module, module.split(".")[0]})
        keywords = list(_IMPORT.finditer(text))
        self._starts = [match.start() for match in keywords]
        froms = set()
        for match in _FROM.finditer(text):
            froms.add(match.end())
            self._from(match.group(1), text, match.end())
        for match in keywords:
            if match.end() not in froms:
                self._import(self._rest(text, match.end()))

    def _rest(self, text: str, end: int) -> str:
        """The rest of the logical line after the keyword that ends at `end`."""
        after = bisect.bisect_left(self._starts, end)
        stop = min(self._starts[after] if after < len(self._starts) else len(text), end + _LONGEST_LIST)
        found = _REST.match(text, end, stop)
        if found.end() == end + _LONGEST_LIST:
            self.complete = False
        return found.group()

    def _items(self, listed: str) -> List[Tuple[str, Optional[str]]]:
        """The (name, alias) pairs of an import list; none when it is no import statement's
        list (a string's or a comment's words): every item of a real one reads as one."""
        if not listed.isascii():
            self.complete = False
            return []
        items = []
        for item in _COMMENT.sub("", listed).split(","):
            item = _SPACE.sub(" ", item).strip()
            if not item:
                continue
            found = _ITEM.match(item)
            if found is None:
                return []
            items.append((found.group(1).replace(" ", ""), found.group(2)))
        return items

    def _import(self, listed: str) -> None:
        for name, alias in self._items(listed):
            self.names.add(name)
            local, target = (alias, name) if alias else (name.split(".")[0],) * 2
            self.bound.setdefault(local, set()).add(target)

    def _from(self, spelled: str, text: str, end: int) -> None:
        if not spelled.isascii():
            self.complete = False
            return
        spelled = _SPACE.sub("", spelled)
        level = len(spelled) - len(spelled.lstrip("."))
        module = _absolute(level, spelled[level:] or None, self.package)
        parenthesized = _PARENTHESIZED.match(text, end, end + _LONGEST_LIST)
        if parenthesized is None and _OPENING.match(text, end) and len(text) > end + _LONGEST_LIST:
            self.complete = False  # its closing parenthesis, if any, is beyond what is read
            return
        listed = parenthesized.group(1) if parenthesized else self._rest(text, end)
        if module is None:
            return  # as `Imports` does: nothing it can name
        if _SPACE.sub("", listed) == "*":
            self.stars.append(module)
            return
        items = self._items(listed)
        if any("." in name for name, _ in items):
            return  # `from m import a.b` is no import statement: a string's words
        for name, alias in items:
            full = f"{module}.{name}"
            self.names.add(full)
            self.bound.setdefault(alias or name, set()).add(full)


def define(body: Iterable[ast.stmt], prefix: str, bindings: Dict[str, Set[str]], names: Set[str]) -> None:
    """The functions and classes a block defines, named as the analysis names them (`module.f`,
    `module.C.f`: inside TVM's own package such a name can be an API); the block's own are bound."""
    for statement in body:
        if isinstance(statement, _SCOPES):
            full = f"{prefix}.{statement.name}"
            names.add(full)
            bindings.setdefault(statement.name, set()).add(full)
            if isinstance(statement, ast.ClassDef):
                define(statement.body, full, {}, names)
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Dict):
            # a table of the block's functions (`CONFIGS = {"C2D": conv2d}`): a read of the table
            # may call any of them (`CONFIGS[name](...)`), so it names them
            table = _function_table(statement, bindings)
            if table:
                bindings[statement.targets[0].id] = table


def _function_table(statement: ast.Assign, bindings: Dict[str, Set[str]]) -> Set[str]:
    """What `NAME = {key: function, ...}` names, when every value is a function bound above."""
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name) or not statement.value.values:
        return set()
    found: Set[str] = set()
    for value in statement.value.values:
        if not isinstance(value, ast.Name) or value.id not in bindings:
            return set()
        found |= bindings[value.id]
    return found


class Reach:
    """Targets (qualified names) and the question: can a module use one, or a name under one?"""

    def __init__(self, targets: AbstractSet[str], reexports: Optional[Dict[str, str]] = None):
        self.targets: FrozenSet[str] = frozenset(targets)
        # `relay` after `from utils import *` of a project module (Knowledge.star_reexports)
        self.reexports: Dict[str, str] = dict(reexports or {})
        # every proper prefix of a target: a chain that leaves them can reach none
        self.prefixes: FrozenSet[str] = frozenset(
            ".".join(parts[:end]) for parts in (target.split(".") for target in targets) for end in range(1, len(parts))
        )
        self._chains: Dict[Tuple[str, ...], Pattern[str]] = {}

    def covers(self, name: str) -> bool:
        """Whether `name` is a target or lies under one."""
        targets = self.targets
        return name in targets or any(prefix in targets for prefix in enclosing(name))

    def may_use(self, tree: ast.Module, text: str, module_name: str, is_package: bool) -> bool:
        if self.covers(module_name.split(".")[0]):
            return True  # a root itself is a target (a rule that wants any module using TVM)
        return self._may_use(Imports(tree, module_name, is_package), text)

    def may_use_text(self, text: str, module_name: str, is_package: bool) -> bool:
        """`may_use` without the parser's tree: False only where `may_use` would say False.
        A module whose own definitions could be targets, or whose imports the text does not
        show plainly, gets True (the caller asks the parser)."""
        if self.covers(module_name.split(".")[0]) or self.covers(module_name) or module_name in self.prefixes:
            return True
        imports = TextImports(text, module_name, is_package)
        return not imports.complete or self._may_use(imports, text)

    def _may_use(self, imports, text: str) -> bool:
        if any(self.covers(name) for name in imports.names):
            return True
        heads: Dict[str, Set[str]] = {}
        for local, targets in imports.bound.items():
            for target in targets:
                if self.covers(target):
                    return True
                if target in self.prefixes:
                    heads.setdefault(local, set()).add(target)
        if any(self._star_may_use(module, text) for module in imports.stars):
            return True
        if any(module not in self.prefixes and not self.covers(module) for module in imports.stars):
            words = None
            for local, target in self.reexports.items():
                if local in imports.bound:
                    continue
                if self.covers(target):
                    words = set(_WORD.findall(text)) if words is None else words
                    if local in words:
                        return True
                elif target in self.prefixes:
                    heads.setdefault(local, set()).add(target)
        return bool(heads) and self._chain_reaches(heads, text)

    def _star_may_use(self, module: str, text: str) -> bool:
        # after `from m import *` any bare name may stand for m.<name>: ask for the words
        if self.covers(module):
            return True
        if module not in self.prefixes:
            return False
        words = set(_WORD.findall(text))
        start = len(module) + 1
        return any(
            target.startswith(module + ".") and all(part in words for part in target[start:].split("."))
            for target in self.targets
        )

    def _chain_reaches(self, heads: Dict[str, Set[str]], text: str) -> bool:
        key = tuple(sorted(heads))
        pattern = self._chains.get(key)
        if pattern is None:
            # each name first, then what may not precede it (see _FROM): the text is searched
            # for the names' first letters instead of tried at every position
            alternatives = "|".join(f"{re.escape(head)}(?<![\\w.]{re.escape(head)})" for head in key)
            pattern = self._chains[key] = re.compile(rf"({alternatives})((?:{_GAP}\.{_GAP}\w+)+)")
        targets, prefixes = self.targets, self.prefixes
        seen: Set[Tuple[str, str]] = set()  # TVMScript spells the same few chains thousands of times
        for match in pattern.finditer(text):
            chain = match.group(1, 2)
            if chain in seen:
                continue
            seen.add(chain)
            rest = _WORD.findall(_COMMENT.sub("", chain[1]) if "#" in chain[1] else chain[1])
            for start in heads[match.group(1)]:
                name = start
                for part in rest:
                    name = f"{name}.{part}"
                    if name in targets:
                        return True
                    if name not in prefixes:
                        break
        return False
