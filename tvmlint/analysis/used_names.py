"""What a module may use, read from the stdlib parser's tree: its names resolved through its
imports, the calls made to each, and the literals a few rules ask about (`UsedNames`).

The cheap stage (`tvmlint.run.cheap`) asks this of every file that may interest a
selected rule, and the rules answer from it whether they want the module
(`tvmlint.checks.rule.Rule.wants`). It over-approximates the names
`tvmlint.analysis.module` resolves (every binding in every scope counts), so a rule
that wants a module here never misses a finding the analysis would make. Nothing
here imports or runs the code it reads.
"""

from __future__ import annotations

import ast
import functools
import warnings
from typing import (
    AbstractSet,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Set,
    Tuple,
)

from tvmlint.analysis.constants import constant_names
from tvmlint.analysis.module_returns import (
    could_return_module,
    dotted_name,
    module_returned,
)
from tvmlint.analysis.reach import absolute_module, define


@functools.lru_cache(maxsize=None)
def roots_of(knowledge) -> FrozenSet[str]:
    """Top-level packages of every API the knowledge names: no TVM name resolves without one."""
    return frozenset(api.split(".")[0] for api in knowledge.api_prefixes()) | {"tvm"}


def parses(text: str) -> bool:
    """Whether the stdlib parser accepts the text, without building its tree: a third less
    work than `parse` (CPython's symbol-table pass stands in for the tree's Python objects).
    False also where only the symbol-table pass objects (`nonlocal x` at module level): the
    caller then asks `parse`, so the same text gets the same verdict either way."""
    try:
        import _symtable
    except ImportError:  # not CPython
        return parse(text)[0] is not None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _symtable.symtable(text, "", "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True


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


# Nodes no rule asks about: Load/Store contexts and operators (shared singletons).
LEAVES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def child_fields(kind: type) -> Tuple[str, ...]:
    """The fields of a node type that can hold nodes a question asks about (no contexts, operators)."""
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in ("ctx", "op", "ops", "type_comment"))
    return fields


def nodes(roots: Iterable[ast.AST], inner: Optional[List[ast.stmt]] = None) -> Iterator[ast.AST]:
    """Every node under `roots` but contexts and operators, in no particular order; with `inner`,
    the statements of their blocks go into it instead (`UsedNames._scan_part`).

    `ast.walk` asks every node for every field through a generator, operators
    and contexts included: this is twice as fast, and the stage walks every
    file that names TVM.
    """
    stack = list(roots)
    pop, push = stack.pop, stack.append
    known = _CHILD_FIELDS.get
    node_type, leaves = ast.AST, LEAVES
    while stack:
        node = pop()
        yield node
        kind = type(node)
        for name in known(kind) or child_fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                if inner is not None and value and isinstance(value[0], ast.stmt):
                    inner.extend(value)
                    continue
                for item in value:
                    if isinstance(item, node_type) and not isinstance(item, leaves):
                        push(item)
            elif isinstance(value, node_type) and not isinstance(value, leaves):
                push(value)


# In `UsedNames.declared`, for a declaration some argument of which (not the first positional)
# is a bare name: that name may give the dtype (`T.alloc_buffer((n,), dtype)`).
BY_NAME = "\0by name"


def _declare(declared: Dict[str, Set[str]], name: str, value: ast.AST) -> None:
    if type(value) is ast.Call:
        given = [*value.args, *(keyword.value for keyword in value.keywords)]
    elif type(value) is ast.Subscript:
        given = value.slice.elts if type(value.slice) is ast.Tuple else [value.slice]
    else:
        return
    # recorded even with no literal: a declaration that gives none leaves the default dtype
    literals = declared.setdefault(name, set())
    for item in given:
        kind = type(item)
        if kind is ast.Constant:
            if type(item.value) is str:
                literals.add(item.value)
        elif kind is ast.Name and item is not given[0]:
            literals.add(BY_NAME)


def _buffer(node: ast.AST) -> Optional[str]:
    """`C` for a subscript `C[...]`."""
    if type(node) is ast.Subscript and type(node.value) is ast.Name:
        return node.value.id
    return None


def _accumulated(body: List[ast.stmt]) -> Set[str]:
    """The buffers a `with` body (a TVMScript block) initialises and adds into: stored into
    directly in a nested `with` entered through a call (its `T.init()`), then stored into again
    directly in the body with `+=`/`-=`, or from a value that reads the buffer (`C[i] = C[i] + x`).

    A superset of the reductions TVM401 judges: it asks which calls are `T.init` and whether
    the read is a term of a sum; a file with none cannot hold its block findings."""
    initialised: Set[str] = set()
    for statement in body:
        if (type(statement) is ast.With or type(statement) is ast.AsyncWith) and any(
            type(item.context_expr) is ast.Call for item in statement.items
        ):
            for inner in statement.body:
                if type(inner) is ast.Assign:
                    initialised.update(name for name in map(_buffer, inner.targets) if name)
    if not initialised:
        return initialised
    summed: Set[str] = set()
    for statement in body:
        if type(statement) is ast.AugAssign and type(statement.op) in (ast.Add, ast.Sub):
            name = _buffer(statement.target)
            if name in initialised:
                summed.add(name)
        elif type(statement) is ast.Assign and len(statement.targets) == 1:
            name = _buffer(statement.targets[0])
            if name in initialised and any(_buffer(read) == name for read in nodes([statement.value])):
                summed.add(name)
    return summed



class UsedNames:
    """The qualified names a module may use, as far as its imports and definitions tell.

    `names`: every qualified name some Name/Attribute chain or import may stand
    for; `called_outside_with`: those called anywhere except directly as a
    `with` item; `uses_roots`: whether any binding reaches a top-level package
    in `roots` (or the module itself lives in one, so relative imports do).
    """

    def __init__(self, tree: ast.Module, module_name: str, is_package: bool, roots: AbstractSet[str],
                 reexports: Optional[Dict[str, str]] = None):
        self.module_name = module_name
        self.package = module_name if is_package else module_name.rpartition(".")[0]
        self.names: Set[str] = set()
        self._bindings: Dict[str, Set[str]] = {}
        self._stars: List[str] = []
        # `relay` after `from utils import *` of a project module (Knowledge.star_reexports),
        # as the analysis reads it: asked only where a star import comes from outside `roots`
        self._reexports: Tuple[Dict[str, str], AbstractSet[str]] = (reexports or {}, roots)
        # chain text -> (what it stands for, every name it and its prefixes add): the module's
        # bindings are every part's, and TVMScript spells the same few chains thousands of times
        self._chains_resolved: Dict[str, Tuple[Set[str], Set[str]]] = {}
        self.defined: Set[str] = set()
        define(tree.body, module_name, self._bindings, self.defined)
        # names other modules may import as settings (tvmlint.analysis.constants): defined too,
        # for a later round's question, though no rule's trigger is one
        self.constants: Set[str] = {f"{module_name}.{name}" for name in constant_names(tree)}
        # Each top-level statement on its own (what `prune` weighs), resolved once every import
        # of the module is known; the module is their union.
        scanned = []
        for statement in tree.body:
            part = self._empty_part()
            part._scan(nodes([statement]), imports=True)
            scanned.append(part)
        self._parts: Dict[int, UsedNames] = {}
        self._scanned: Dict[int, UsedNames] = {}  # a nested statement's own uses (`_scan_part`)
        for statement, part in zip(tree.body, scanned):
            define([statement], module_name, {}, part.defined)
            part.names |= part.defined
            part._resolve()
            self._parts[id(statement)] = part
        in_roots = module_name.split(".")[0] in roots
        self.uses_roots = in_roots or any(
            q.split(".")[0] in roots for qs in self._bindings.values() for q in qs
        ) or any(star.split(".")[0] in roots for star in self._stars)
        for part in scanned:
            part.uses_roots = self.uses_roots
        _union_into(self, scanned)
        self.names |= self.defined

    def _empty_part(self) -> "UsedNames":
        part = object.__new__(UsedNames)
        part.module_name, part.package = self.module_name, self.package
        part.names, part.defined = set(), set()
        part._bindings, part._stars, part._reexports = self._bindings, self._stars, self._reexports
        part._chains_resolved = self._chains_resolved
        part._parts = {}
        return part

    def part(self, statements: Iterable[ast.stmt]) -> "UsedNames":
        """What these statements alone use, resolved through the whole module's imports."""
        statements = list(statements)
        known = [self._parts.get(id(statement)) for statement in statements]
        part = self._empty_part()
        part.uses_roots = self.uses_roots
        if all(found is not None for found in known):
            _union_into(part, known)
            return part
        _union_into(part, [self._scan_part(statement) for statement in statements])
        define(statements, self.module_name, {}, part.defined)
        part.names |= part.defined
        return part

    def _scan_part(self, statement: ast.stmt) -> "UsedNames":
        """What one statement uses, its blocks included (no definitions): its own nodes scanned,
        its blocks' statements' parts joined. Kept, so that weighing a function and then each
        statement in it (`prune`) scans every node once, not once per level around it."""
        known = self._scanned.get(id(statement))
        if known is not None:
            return known
        # without recursion: an `elif` chain nests each `if` in the one before, and real
        # code writes chains of hundreds (a tuning script's table of 500 shapes)
        scanned: Dict[int, Tuple["UsedNames", List[ast.stmt]]] = {}
        order: List[ast.stmt] = []
        stack = [statement]
        while stack:
            current = stack.pop()
            if id(current) in self._scanned or id(current) in scanned:
                continue
            inner: List[ast.stmt] = []
            part = self._empty_part()
            part._scan(nodes([current], inner), imports=False)
            part._resolve()
            scanned[id(current)] = (part, inner)
            order.append(current)
            stack.extend(inner)
        for current in reversed(order):  # each block's statements before the statement holding it
            part, inner = scanned[id(current)]
            if inner:
                whole = self._empty_part()
                _union_into(whole, [part, *(self._scanned[id(child)] for child in inner)])
                part = whole
            self._scanned[id(current)] = part
        return self._scanned[id(statement)]

    def _scan(self, nodes: Iterable[ast.AST], imports: bool) -> None:
        # what rules that judge a call's arguments, or a literal dtype, ask for
        self.calls_to: Dict[str, List[ast.Call]] = {}
        self.unpacked: Set[str] = set()  # callees whose result is unpacked straight into names
        self.called_outside_with: Set[str] = set()
        self.identifiers: Set[str] = set()  # every bare name and attribute name, resolved or not
        strings: Set[str] = set()
        # what TVM401 asks of a TVMScript block: the buffers it accumulates into (`_accumulated`),
        # and the string literals each name's declaration (a parameter's annotation, `x = f(...)`)
        # gives right in its arguments or subscript
        self.accumulated: Set[str] = set()
        self.declared: Dict[str, Set[str]] = {}
        self._unpacked_calls: Set[int] = set()
        self._chains: List[ast.AST] = []
        self._calls: List[ast.Call] = []
        self._entered: Set[int] = set()
        self._inner: Set[int] = set()  # a.b in a.b.c: resolved with the whole chain
        self.binds = False  # imports, or declares a name global: reaches past its own scope
        identifiers, chains, inner = self.identifiers, self._chains, self._inner
        bindings = self._bindings
        for node in nodes:
            kind = type(node)
            if kind is ast.Name:
                identifiers.add(node.id)
                chains.append(node)
            elif kind is ast.Attribute:
                identifiers.add(node.attr)
                chains.append(node)
                value = node.value
                if type(value) is ast.Attribute or type(value) is ast.Name:
                    inner.add(id(value))
            elif kind is ast.Call:
                self._calls.append(node)
            elif kind is ast.Constant and type(node.value) is str and len(node.value) <= 64:
                strings.add(node.value)
            elif kind is ast.Assign:
                target = node.targets[0]
                if type(target) is ast.Name:
                    if len(node.targets) == 1:
                        _declare(self.declared, target.id, node.value)
                        if type(node.value) is ast.Call:
                            self._bind_returned_module(node.value, target.id, imports)
                elif isinstance(node.value, ast.Call) and isinstance(target, (ast.Tuple, ast.List)):
                    self._unpacked_calls.add(id(node.value))
            elif kind is ast.arg:
                if node.annotation is not None:
                    _declare(self.declared, node.arg, node.annotation)
            elif kind is ast.With or kind is ast.AsyncWith:
                self._entered.update(id(item.context_expr) for item in node.items)
                self.accumulated |= _accumulated(node.body)
            elif kind is ast.Import:
                self.binds = True
                for alias in node.names:
                    if imports:
                        if alias.asname:
                            bindings.setdefault(alias.asname, set()).add(alias.name)
                        else:
                            top = alias.name.split(".")[0]
                            bindings.setdefault(top, set()).add(top)
                    self.names.add(alias.name)
            elif kind is ast.ImportFrom:
                self.binds = True
                module = absolute_module(node, self.package)
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
            elif kind is ast.Global or kind is ast.Nonlocal:
                self.binds = True
        self.strings: FrozenSet[str] = frozenset(strings)

    def _bind_returned_module(self, call: ast.Call, target: str, imports: bool) -> None:
        # `tvm = try_import_tvm()`: what the analysis binds (tvmlint.analysis.module_returns)
        function = dotted_name(call.func)
        if not could_return_module(function):
            return
        first = call.args[0] if call.args else None
        text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        module = module_returned(function, text, target, self._reexports[1])
        if module is None:
            return
        self.binds = True
        self.names.add(module)
        if imports:
            self._bindings.setdefault(target, set()).add(module)

    def _resolve(self) -> None:
        resolved: Dict[int, Set[str]] = {}
        bindings, stars = self._bindings, self._stars
        reexports, roots = self._reexports
        if not any(star.partition(".")[0] not in roots for star in stars):
            reexports = {}
        names, inner = self.names, self._inner
        memo = self._chains_resolved
        seen: Set[str] = set()  # chains whose names this part holds already
        for node in self._chains:
            if id(node) in inner:
                continue
            text = dotted_name(node)
            if text is None:
                continue
            known = memo.get(text)
            if known is None:
                parts = text.split(".")
                heads = bindings.get(parts[0], ())
                if not heads and parts[0] in reexports:
                    heads = (reexports[parts[0]],)
                found: Set[str] = set()
                added: Set[str] = set()
                if heads or stars:
                    # the chain and every prefix of it: a.b.c also uses a.b and a
                    for end in range(1, len(parts) + 1):
                        rest = ".".join(parts[1:end])
                        prefix = ".".join(parts[:end])
                        found = {f"{q}.{rest}" if rest else q for q in heads}
                        found.update(f"{star}.{prefix}" for star in stars)
                        added |= found
                known = memo[text] = (found, added)
            found, added = known
            if text not in seen:
                seen.add(text)
                names |= added
            if found:
                resolved[id(node)] = found
        for call in self._calls:
            callees = resolved.get(id(call.func), ())
            for callee in callees:
                self.calls_to.setdefault(callee, []).append(call)
            if id(call) in self._unpacked_calls:
                self.unpacked.update(callees)
            if id(call) not in self._entered:
                self.called_outside_with.update(callees)
        del self._chains, self._calls, self._entered, self._unpacked_calls, self._inner

    def uses_any(self, names: AbstractSet[str]) -> bool:
        return not self.names.isdisjoint(names)

    def imports_from_outside(self, roots: AbstractSet[str]) -> bool:
        """Whether the module imports names one by one or by `*` from a module not under
        `roots`: a name it reads may be another module's constant (`from config import *`)."""
        if any(star.partition(".")[0] not in roots for star in self._stars):
            return True
        return any(len(qualified) == 1 and "." in next(iter(qualified)) and next(iter(qualified)).partition(".")[0] not in roots
                   for qualified in self._bindings.values())

    def calls_outside_with(self, names: AbstractSet[str]) -> bool:
        return not self.called_outside_with.isdisjoint(names)


def call_arguments(call: ast.Call, params: Tuple[str, ...]) -> Tuple[Dict[str, ast.expr], bool]:
    """A call's arguments by parameter name (as `tvmlint.analysis.module.call_arguments` maps them),
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
    pass on or define this project helper? `tvmlint.run.compact.mentions_any`)."""
    return mentions_of(used.names, used.defined | getattr(used, "constants", set()))


def mentions_of(names: Iterable[str], defined: Iterable[str]) -> str:
    return "\n" + "\n".join(sorted(names)) + "\n" + "".join(f"={name}\n" for name in sorted(defined))


def merged(first: UsedNames, second: UsedNames) -> UsedNames:
    """The names two parts of one module use together."""
    both = object.__new__(UsedNames)
    both.module_name, both.package = first.module_name, first.package
    both._bindings, both._stars, both._reexports = first._bindings, first._stars, first._reexports
    both.names = first.names | second.names
    both.defined = first.defined | second.defined
    both.called_outside_with = first.called_outside_with | second.called_outside_with
    both.calls_to = {name: calls[:] for name, calls in first.calls_to.items()}
    for name, calls in second.calls_to.items():
        both.calls_to.setdefault(name, []).extend(calls)
    both.unpacked = first.unpacked | second.unpacked
    both.identifiers = first.identifiers | second.identifiers
    both.strings = first.strings | second.strings
    both.accumulated = first.accumulated | second.accumulated
    # a view, not a copy: prune merges the module-level part with each definition's in turn
    both.declared = _DeclaredUnion(first.declared, second.declared)
    both.uses_roots = first.uses_roots or second.uses_roots
    both.binds = first.binds or second.binds
    return both


def _union_into(into: UsedNames, parts: Iterable[UsedNames]) -> None:
    """Set `into`'s names, calls and literals to the union of `parts` (statements of one module)."""
    into.names = set(into.names)
    into.defined = set(into.defined)
    into.calls_to = {}
    into.unpacked, into.called_outside_with, into.identifiers = set(), set(), set()
    into.accumulated = set()
    strings: Set[str] = set()
    parts = list(parts)
    into.binds = any(part.binds for part in parts)
    into.declared = _declared_union([part.declared for part in parts])
    for part in parts:
        into.accumulated |= part.accumulated
        into.names |= part.names
        into.defined |= part.defined
        for name, calls in part.calls_to.items():
            into.calls_to.setdefault(name, []).extend(calls)
        into.unpacked |= part.unpacked
        into.called_outside_with |= part.called_outside_with
        into.identifiers |= part.identifiers
        strings |= part.strings
    into.strings = frozenset(strings)


class _DeclaredUnion:
    """Two parts' `declared` tables read as one (`get`, `items`), without copying either."""

    __slots__ = ("tables",)

    def __init__(self, *tables) -> None:
        self.tables = tables

    def __contains__(self, name: str) -> bool:
        return any(name in table for table in self.tables)

    def __getitem__(self, name: str) -> Set[str]:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def get(self, name: str, default=None):
        found = [table[name] for table in self.tables if name in table]
        if not found:
            return default
        return found[0] if len(found) == 1 else set().union(*found)

    def items(self):
        return _declared_union(self.tables).items()


def _declared_union(tables: Iterable[Dict[str, Set[str]]]) -> Dict[str, Set[str]]:
    out: Dict[str, Set[str]] = {}
    for table in tables:
        for name, literals in table.items():
            out.setdefault(name, set()).update(literals)
    return out
