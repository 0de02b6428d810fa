"""What of a wanted module no selected rule can need, blanked out before libcst reads it.

Top-level functions and classes no rule wants (and, inside kept definitions, functions and
statements the rules' specs say cannot matter, `Prefilter.inner`) become empty strings over
the same lines, so that every position libcst gives is the original's. A definition that a
kept one names is kept with it; the runner's later rounds keep the callers a finding
turned out to depend on (`follow`).
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from typing import AbstractSet, Dict, FrozenSet, List, Optional, Set, Tuple

from tvmlint.analysis.used_names import UsedNames, mentions_of, merged
from tvmlint.prefilter.selection import Selection
from tvmlint.prefilter.view import RuleView

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


def _module_level_values(tree: ast.Module) -> Dict[str, Set[str]]:
    """The function names each module-level table `NAME = {key: function, ...}` holds as values:
    the tables the analysis calls through (tvmlint.analysis.module.FunctionTable)."""
    out: Dict[str, Set[str]] = {}
    for statement in tree.body:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Dict)):
            out.setdefault(statement.targets[0].id, set()).update(
                value.id for value in statement.value.values if isinstance(value, ast.Name))
    return out


def blankable_lines(text: str) -> FrozenSet[int]:
    """The lines `prune` may have blanked: those of the top-level functions and classes (with
    their decorators). Module-level statements are always kept, so a line outside these was
    analysed even in a file seen partly."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset(range(1, text.count("\n") + 2))  # not read: any line may be
    lines: Set[int] = set()
    for unit in tree.body:
        if isinstance(unit, _UNITS):
            first = min([unit.lineno, *(decorator.lineno for decorator in unit.decorator_list)])
            lines.update(range(first, (unit.end_lineno or unit.lineno) + 1))
    return frozenset(lines)


def prune(
    text: str,
    tree: ast.Module,
    used: UsedNames,
    selection: Selection,
    follow: Optional[Tuple[AbstractSet[str], AbstractSet[str]]] = None,
) -> Optional[Pruned]:
    """Blank the top-level functions and classes that can hold no finding, and inside the kept
    ones what the rules that want the module say cannot matter (`_InnerBlanks`); None when
    nothing can be blanked.

    A definition is kept when the selected rules want it together with the
    module-level statements (which are always kept: imports, constants, a
    module-level `with`), or when a kept definition names it (a helper it
    calls, a context it enters): the analysis then resolves every name in a
    kept definition as it would in the whole module. What a helper names in turn
    is kept too, unless every rule that wants the definition reads only the
    names the helpers bind (`Prefilter.reads_named_definitions`). Its callers
    are blanked like any other definition: when a finding turns out to depend on them (a
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
    wholes = [merged(top, part) for part in parts]
    kept = [selection.wanted(whole) or part.uses_any(definers) for whole, part in zip(wholes, parts)]
    # whether what a kept definition names is followed further (see `named` below); a later
    # round follows everything it keeps
    deep = [follow is not None or part.uses_any(definers) or selection.follows_named(whole)
            for whole, part in zip(wholes, parts)]
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
    for_names: List[int] = []  # definitions kept only for the names they bind
    keeps_callers = selection.keeps_callers(used)
    if not all(kept):
        defined = [_defined_names(unit) for unit in units]
        # what kept definitions name (helpers, callbacks, context factories) is kept with them;
        # for rules that read only the names a definition binds (Prefilter.reads_named_definitions),
        # only those definitions, not what they name in turn
        named: Set[str] = set().union(*(parts[i].identifiers for i, keep in enumerate(kept) if keep and deep[i]))
        bound: Set[str] = set().union(*(parts[i].identifiers for i, keep in enumerate(kept) if keep and not deep[i]))
        # and through a module-level name bound to them (`CONFIGS = {"C2D": conv2d}`, called as
        # `CONFIGS[name](...)`): what its value names
        tables = _module_level_values(tree)
        grown = True
        while grown:
            grown = False
            for name in named & tables.keys():
                if not tables[name] <= named:
                    named |= tables.pop(name)
                    grown = True
            for i, keep in enumerate(kept):
                if not (keep and deep[i]) and not defined[i].isdisjoint(named):
                    kept[i] = deep[i] = grown = True
                    named |= parts[i].identifiers
        for i, keep in enumerate(kept):
            if not keep and not defined[i].isdisjoint(bound):
                kept[i] = True
                for_names.append(i)
        if keeps_callers:
            # and the definitions that call a kept one: what they pass is read (reads_callers)
            grown = True
            while grown:
                grown = False
                called = set().union(*(parts[i].defined for i, keep in enumerate(kept) if keep))
                for i, keep in enumerate(kept):
                    if not keep and not parts[i].names.isdisjoint(called):
                        kept[i] = grown = True
    # A later round keeps what `follow` names, nested or not: it analyses kept definitions whole.
    judges = None if follow is not None else selection.inner_judges(used)
    # the text's lines, numbered as the parser numbers them (only once something may go)
    lines = _LINE.findall(text) if judges or for_names else None
    inner, around = ({}, set()) if not judges else _InnerBlanks(lines, used, selection, judges).of(units, kept)
    if for_names and not keeps_callers:
        # no rule wants what such a definition does (none wants it, and none that reads what
        # helpers do named it): its statements go, each for a string over its lines, and the
        # definition, its decorators and its parameters stay; an import in it stays too
        for i in for_names:
            unit = units[i]
            if id(unit) in around:
                continue  # something in it went already
            for index, statement in enumerate(unit.body):
                if not _alone(lines, unit.body, index):
                    continue
                part = used.part([statement])
                if not part.binds:
                    inner[id(statement)] = (statement, part)
                    around.add(id(unit))
    if all(kept) and not inner:
        return None
    if lines is None:
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
    return Pruned("".join(lines), ast.Module(body=body, type_ignores=[]), mentions_of(mentioned, defines), holds)


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
      their findings (`Prefilter.inner`). TVMScript tests hold a module of several
      functions per test, and often only some add into a low-precision buffer;
    - in a function that stays, a statement that can hold none and declares nothing they
      read (`Prefilter.inner`), looked for in the loops and `if`s too: most of a
      scheduled TVMScript function is blocks that add into nothing.

    `of` gives them by id, each with what it uses, and the ids of every statement around one."""

    def __init__(self, lines: List[str], used: UsedNames, selection: Selection, judges: List[RuleView]):
        self.lines = lines  # read before anything is blanked
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
        return _alone(self.lines, statements, index)

    def _take(self, statement: ast.stmt, part: UsedNames, path: Tuple[int, ...]) -> None:
        self.found[id(statement)] = (statement, part)
        self.around.update(path)


def _alone(lines: List[str], statements: List[ast.stmt], index: int) -> bool:
    """Whether a statement has its lines to itself (not `a = 1; b = 2`, nor after `if x:`)."""
    statement = statements[index]
    if index > 0 and statements[index - 1].end_lineno >= statement.lineno:
        return False
    if index + 1 < len(statements) and statements[index + 1].lineno <= statement.end_lineno:
        return False
    return lines[statement.lineno - 1][:statement.col_offset].strip(" \t") == ""


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
