"""The cheap stage: the stdlib parser decides which files the libcst analysis must see.

libcst costs about ten times the stdlib `ast` parser, and most files of a large
tree cannot hold a finding. For each file this stage checks the syntax (TVM001),
asks `tvmlint.reach` whether the file can use any name a selected rule needs (its
imports and the attribute chains its text spells), and only then resolves the
names the file uses through its imports the way
`tvmlint.analysis` does, but over-approximating (every binding in every scope
counts), and asks each selected rule whether it `wants` the module. A rule that
says nothing wants any module that uses a TVM name, so a new rule is never
starved. A file whose text names no TVM package root and that lives outside
TVM's own packages cannot use a TVM name at all: it is skipped before any rule
is even imported. It never imports or runs the code it reads.
"""

from __future__ import annotations

import ast
import copy
import functools
import re
import warnings
from dataclasses import dataclass
from typing import AbstractSet, Dict, FrozenSet, Iterable, Iterator, List, Optional, Set, Tuple

from tvmlint.reach import Reach, absolute_module, define

PARSE_ERROR = "TVM001"


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
        # chain text -> (what it stands for, every name it and its prefixes add): the module's
        # bindings are every part's, and TVMScript spells the same few chains thousands of times
        self._chains_resolved: Dict[str, Tuple[Set[str], Set[str]]] = {}
        self.defined: Set[str] = set()
        define(tree.body, module_name, self._bindings, self.defined)
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
        part._bindings, part._stars = self._bindings, self._stars
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
        inner: List[ast.stmt] = []
        part = self._empty_part()
        part._scan(nodes([statement], inner), imports=False)
        part._resolve()
        if inner:
            whole = self._empty_part()
            _union_into(whole, [part, *(self._scan_part(child) for child in inner)])
            part = whole
        self._scanned[id(statement)] = part
        return part

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

    def _resolve(self) -> None:
        resolved: Dict[int, Set[str]] = {}
        bindings, stars = self._bindings, self._stars
        names, inner = self.names, self._inner
        memo = self._chains_resolved
        seen: Set[str] = set()  # chains whose names this part holds already
        for node in self._chains:
            if id(node) in inner:
                continue
            text = _dotted(node)
            if text is None:
                continue
            known = memo.get(text)
            if known is None:
                parts = text.split(".")
                heads = bindings.get(parts[0], ())
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
        # Modules that define passes with TVM's decorators tell the project which pass names
        # exist, for the rules that judge names (Rule.reads_defined_passes, tvmlint.project).
        # This stage reads every such module's names from its tree (`defined_passes`); a
        # module's own definitions are also kept for its analysis when such a rule runs on it.
        self.readers = [rule for rule in self.rules if rule.reads_defined_passes]
        self.decorators: FrozenSet[str] = frozenset(knowledge.decorators) if self.readers else frozenset()
        # a module that defines passes is read for their names: its decorators count
        tokens: Set[str] = {name.rsplit(".", 1)[-1] for name in self.decorators}
        for rule in self.rules:
            tokens.update(rule.tokens(knowledge))
        self.tokens: FrozenSet[str] = frozenset(tokens)
        self._patterns = [
            (rule.code, re.compile(pattern)) for rule in self.rules
            for pattern in [rule.text_pattern(knowledge)] if pattern is not None
        ]
        self._reaches: Dict[FrozenSet[str], Optional[Reach]] = {}
        self.reach = self._reach_without(frozenset())

    def _reach_without(self, out: FrozenSet[str]) -> Optional[Reach]:
        """The question for the rules not in `out` (None when nothing is left to look for)."""
        if out not in self._reaches:
            targets: Set[str] = set(self.decorators)
            for rule in self.rules:
                if rule.code not in out:
                    names = rule.trigger_names(self.knowledge)
                    targets |= self.roots if names is None else names  # none: any module using TVM
            # every rule's `wants` asks for one of its triggers or a name under one (a history entry)
            self._reaches[out] = Reach(targets) if targets else None
        return self._reaches[out]

    def may_want(self, tree: Optional[ast.Module], text: str, module_name: str, is_package: bool) -> bool:
        """Whether a selected rule may want a module (or it may define passes): its text holds a
        token, and the module can use a name of a rule whose text pattern it matches. Without
        the parser's tree (None) the text's imports answer: False only where the tree's would."""
        if not self.text_may_need(text, module_name):
            return False
        out = frozenset(code for code, pattern in self._patterns if pattern.search(text) is None)
        reach = self._reach_without(out) if out else self.reach
        if reach is None:
            return False
        if tree is None:
            return reach.may_use_text(text, module_name, is_package)
        return reach.may_use(tree, text, module_name, is_package)

    def text_may_need(self, text: str, module_name: str) -> bool:
        if not self.rules:
            return False
        if module_name.split(".")[0] in self.roots:
            return True  # relative imports inside TVM's own package name no root
        return any(token in text for token in self.tokens)

    def wanted(self, used: UsedNames) -> bool:
        return any(rule.wants(used, self.knowledge) for rule in self.rules)

    def wanting(self, used: UsedNames) -> FrozenSet[str]:
        """The codes of the rules that can fire in a module: the others need not even run on it."""
        return frozenset(rule.code for rule in self.rules if rule.wants(used, self.knowledge))

    def awaits_low_context(self, used: UsedNames, tree: ast.Module, text: str) -> bool:
        """Whether every rule that wants a module can only fire in it under a context written
        below the default level (`Rule.needs_low_context`): the run asks for it again when a
        file of it writes one that can reach it (`tvmlint.low_contexts`)."""
        wanting = [rule for rule in self.rules if rule.wants(used, self.knowledge)]
        return bool(wanting) and all(rule.needs_low_context(tree, self.knowledge, text) for rule in wanting)

    def inner_judges(self, module: UsedNames) -> Optional[List[type]]:
        """The rules that decide what inside a module's kept definitions can go: those that
        want it (a rule that reads definitions wants the module, and its hooks keep everything)."""
        return [rule for rule in self.rules if rule.wants(module, self.knowledge)]

    def function_may_hold(self, function: UsedNames, module: UsedNames, judges: List[type]) -> bool:
        """Whether a function nested in a kept definition may hold a finding of one of `judges`
        (`Rule.may_hold_in_function`), or matter to one elsewhere."""
        if function.binds:
            return True  # an import in it may bind a name the analysis resolves elsewhere
        return any(rule.may_hold_in_function(function, module, self.knowledge) for rule in judges)

    def statement_may_matter(self, statement: UsedNames, module: UsedNames, judges: List[type]) -> bool:
        """Whether a statement of a kept function (or of a loop or `if` in it) may hold a finding
        of one of `judges`, or declare what one depends on (`Rule.may_matter_in_body`)."""
        if statement.binds:
            return True
        return any(rule.may_matter_in_body(statement, module, self.knowledge) for rule in judges)

    def pass_definers(self, used: UsedNames) -> FrozenSet[str]:
        """The decorators whose definitions a module's analysis must keep: all of them when a
        rule that reads them runs on it."""
        if any(rule.wants(used, self.knowledge) for rule in self.readers):
            return self.decorators
        return frozenset()

    def defined_passes(self, tree: ast.Module, used: UsedNames) -> FrozenSet[str]:
        """The pass names a module defines with TVM's decorators, when a selected rule reads
        them: what `tvmlint.analysis` records, read from this stage's tree, so that no module
        is analysed only for its names. A decorator's literal `name=`, else the name of the
        function or class it decorates; a call `module_pass(f, ..., name="X")` counts with
        a literal name only. A name given by an expression is no name."""
        calls = [
            (call, self.knowledge.decorators[api])
            for api in self.decorators for call in used.calls_to.get(api, ())
        ]
        if not calls:
            return frozenset()
        decorating = {
            id(decorator): unit.name
            for unit in ast.walk(tree) if isinstance(unit, _UNITS)
            for decorator in unit.decorator_list if isinstance(decorator, ast.Call)
        }
        names: Set[str] = set()
        for call, spec in calls:
            default = decorating.get(id(call))
            if default is not None:
                params = tuple(param for param in spec.params if param != "pass_func")
            elif call.args and not isinstance(call.args[0], ast.Starred):
                params = spec.params
            else:
                continue  # `module_pass(opt_level=1)` not decorating: its pass is made elsewhere
            given = call_arguments(call, params)[0].get("name")
            if given is None:
                name = default
            else:
                name = given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else None
            if name:
                names.add(name)
        return frozenset(names)


_UNITS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass
class Pruned:
    """A module with what no selected rule can need blanked out (definitions, and inside kept
    definitions, functions and statements)."""

    text: str  # line for line the original: blanked lines keep only their line ending (and a string over them)
    tree: ast.Module  # the stdlib tree of `text` (the original's, less the blanked statements)
    mentions: str  # what the blanked definitions call, reference or define (`mentions`)
    # False when every definition is blanked and the module-level statements alone set off no
    # rule: the module as a whole was wanted only for names its definitions use apart (a buffer
    # `C` declared float16 in one test function and summed into in another)
    holds_findings: bool = True


def prune(
    text: str,
    tree: ast.Module,
    used: UsedNames,
    selection: "Selection",
    follow: Optional[Tuple[AbstractSet[str], AbstractSet[str]]] = None,
) -> Optional[Pruned]:
    """Blank the top-level functions and classes that can hold no finding, and inside the kept
    ones what the rules that want the module say cannot matter (`_InnerBlanks`); None when
    nothing can be blanked.

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
    definers = selection.pass_definers(used)
    kept = [selection.wanted(merged(top, part)) or part.uses_any(definers) for part in parts]
    if follow is not None:
        callers_of, defined = follow
        kept = [keep or not part.defined.isdisjoint(defined) for keep, part in zip(kept, parts)]
        # A caller of a followed function passes it the context it was called under: its own
        # callers in this module matter too. Keeping them now, not round by round, spares a
        # libcst pass of the module per level of calls.
        followed = set(callers_of)
        grown = True
        while grown:
            grown = False
            for i, part in enumerate(parts):
                if part.names.isdisjoint(followed):
                    continue
                if not kept[i]:
                    kept[i] = grown = True
                if not part.defined <= followed:
                    followed |= part.defined
                    grown = True
    if not all(kept):
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
    # A later round keeps what `follow` names, nested or not: it analyses kept definitions whole.
    judges = None if follow is not None else selection.inner_judges(used)
    inner, around = ({}, set()) if not judges else _InnerBlanks(text, used, selection, judges).of(units, kept)
    if all(kept) and not inner:
        return None
    lines = _LINE.findall(text)
    mentioned: Set[str] = set()
    defines: Set[str] = set()
    standing: Dict[int, ast.stmt] = {}
    for statement, part in inner.values():
        mentioned |= part.names
        defines |= part.defined
        opening = lines[statement.lineno - 1]
        indent = opening[:len(opening) - len(opening.lstrip(" \t"))]  # the block's, as written
        # one string statement stands for it (a block cannot be left empty)
        standing[id(statement)] = _string_over(lines, *_blank(lines, statement), indent)
    blanked = {id(unit): part for unit, part, keep in zip(units, parts, kept) if not keep}
    body: List[ast.stmt] = []
    for statement in tree.body:
        part = blanked.get(id(statement))
        if part is None:
            body.append(_with_inner_blanked(statement, standing, around) if id(statement) in around else statement)
            continue
        mentioned |= part.names
        defines |= part.defined
        first, last = _blank(lines, statement)
        if body:
            # One string statement over the same lines: libcst makes nodes (and the analysis
            # visits them) for every empty line, and blanked definitions are most of what it
            # would read. Not first in the module: there a string is its docstring.
            body.append(_string_over(lines, first, last))
    holds = any(kept) or selection.wanted(top)
    return Pruned("".join(lines), ast.Module(body=body, type_ignores=[]), _mentions(mentioned, defines), holds)


def _blank(lines: List[str], definition: ast.stmt) -> Tuple[int, int]:
    """Empty a statement's lines, a definition's decorators included, to their line endings: (first, last)."""
    first = min([definition.lineno, *(decorator.lineno for decorator in getattr(definition, "decorator_list", ()))])
    last = definition.end_lineno
    for number in range(first - 1, last):
        line = lines[number]
        lines[number] = line[len(line.rstrip("\r\n")):]
    return first, last


def _string_over(lines: List[str], first: int, last: int, indent: str = "") -> ast.stmt:
    """Write an empty string over blanked lines first..last, at `indent`, and give the stdlib
    parser's view of it."""
    quote = '""' if first == last else '"""'
    lines[first - 1] = indent + quote + lines[first - 1]
    if first != last:
        lines[last - 1] = quote + lines[last - 1]
    column, width = len(indent), len(quote)
    end = width if first != last else column + width
    value = ast.Constant(value="\n" * (last - first) if first != last else "", lineno=first, col_offset=column,
                         end_lineno=last, end_col_offset=end)
    return ast.Expr(value=value, lineno=first, col_offset=column, end_lineno=last, end_col_offset=end)


_BRANCHES = (ast.For, ast.AsyncFor, ast.While, ast.If)


class _InnerBlanks:
    """What can go inside kept definitions, when every rule that wants the module says so:

    - a function in a kept definition's body or in its classes' bodies that can hold none of
      their findings (`Rule.may_hold_in_function`). TVMScript tests hold a module of several
      functions per test, and often only some add into a low-precision buffer;
    - in a function that stays, a statement that can hold none and declares nothing they
      read (`Rule.may_matter_in_body`), looked for in the loops and `if`s too: most of a
      scheduled TVMScript function is blocks that add into nothing.

    `of` gives them by id, each with what it uses, and the ids of every statement around one."""

    def __init__(self, text: str, used: UsedNames, selection: "Selection", judges: List[type]):
        self.lines = _LINE.findall(text)  # numbered as the parser numbers them
        self.used, self.selection, self.judges = used, selection, judges
        self.found: Dict[int, Tuple[ast.stmt, UsedNames]] = {}
        self.around: Set[int] = set()

    def of(self, units: List[ast.stmt], kept: List[bool]) -> Tuple[Dict[int, Tuple[ast.stmt, UsedNames]], Set[int]]:
        for unit, keep in zip(units, kept):
            if keep:
                self._definitions(unit.body, (id(unit),), isinstance(unit, ast.ClassDef))
        return self.found, self.around

    def _definitions(self, statements: List[ast.stmt], path: Tuple[int, ...], in_class: bool) -> None:
        for index, statement in enumerate(statements):
            if isinstance(statement, ast.ClassDef):
                self._definitions(statement.body, path + (id(statement),), True)
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                part = self.used.part([statement])
                if not self.selection.function_may_hold(part, self.used, self.judges):
                    self._take(statement, part, path)
                else:
                    self._definitions(statement.body, path + (id(statement),), False)
            elif not in_class:  # a function's own statement
                self._statement(statements, index, path)

    def _statement(self, statements: List[ast.stmt], index: int, path: Tuple[int, ...]) -> None:
        statement = statements[index]
        if not self._alone(statements, index):
            return
        part = self.used.part([statement])
        if not self.selection.statement_may_matter(part, self.used, self.judges):
            self._take(statement, part, path)
        elif isinstance(statement, _BRANCHES):
            inner = path + (id(statement),)
            for branch in (statement.body, statement.orelse):
                for at in range(len(branch)):
                    if isinstance(branch[at], _UNITS):
                        self._definitions([branch[at]], inner, False)
                    else:
                        self._statement(branch, at, inner)

    def _alone(self, statements: List[ast.stmt], index: int) -> bool:
        """Whether a statement has its lines to itself (not `a = 1; b = 2`, nor after `if x:`)."""
        statement = statements[index]
        if index > 0 and statements[index - 1].end_lineno >= statement.lineno:
            return False
        if index + 1 < len(statements) and statements[index + 1].lineno <= statement.end_lineno:
            return False
        return self.lines[statement.lineno - 1][:statement.col_offset].strip(" \t") == ""

    def _take(self, statement: ast.stmt, part: UsedNames, path: Tuple[int, ...]) -> None:
        self.found[id(statement)] = (statement, part)
        self.around.update(path)


def _with_inner_blanked(node: ast.stmt, standing: Dict[int, ast.stmt], around: AbstractSet[int]) -> ast.stmt:
    """`node`, or a copy whose bodies hold the strings standing for what was blanked in them
    (the original tree stays whole: the file's other checks read it)."""
    copied = None
    for field in ("body", "orelse"):
        statements = getattr(node, field, None)
        if not statements:
            continue
        new: List[ast.stmt] = []
        for statement in statements:
            swap = standing.get(id(statement))
            if swap is None and id(statement) in around:
                swap = _with_inner_blanked(statement, standing, around)
            new.append(statement if swap is None else swap)
        if any(a is not b for a, b in zip(new, statements)):
            copied = copied or copy.copy(node)
            setattr(copied, field, new)
    if copied is None:
        return node
    # it ends where its last statement ends, which may now be a string
    last = "orelse" if getattr(node, "orelse", None) else "body"
    tail = getattr(copied, last)[-1]
    if tail is not getattr(node, last)[-1]:
        copied.end_lineno, copied.end_col_offset = tail.end_lineno, tail.end_col_offset
    return copied


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
    both.accumulated = first.accumulated | second.accumulated
    both.declared = _declared_union([first.declared, second.declared])
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


def _declared_union(tables: Iterable[Dict[str, Set[str]]]) -> Dict[str, Set[str]]:
    out: Dict[str, Set[str]] = {}
    for table in tables:
        for name, literals in table.items():
            out.setdefault(name, set()).update(literals)
    return out
