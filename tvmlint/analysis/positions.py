"""Line and column of libcst nodes, computed only for the top-level statements that need them.

libcst's PositionProvider renders the whole module to count lines and columns:
it costs twice the parse, and most analysed files only ever ask where a few
nodes are (a finding, a PassContext named in a message). A top-level statement
always starts at column 0, and the stdlib parser already knows the line of its
first token, so each statement can be rendered on its own, starting at the
right line, the first time one of its nodes is asked for. A statement inside a
block renders alone too, indented as its blocks indent it: a finding deep in a
TVMScript module of a thousand lines renders its own line, not the module. A
node in a compound statement's header (a parameter's annotation, a `with`
item) renders the header alone, the statement's blocks cut to a `pass`.

Every top-level statement rendered checks that it ends where the next one
begins, every statement in a block that it starts and ends where the stdlib
parser says, and a header that it and its first statement start where that
parser says; when any accounting disagrees (a construct this module did not
foresee), the statement around it renders instead, and in the end the whole
module falls back to libcst's own provider, so positions are never wrong.

The line of a call the analysis records for the cross-module step (most test
functions call a helper) does not need rendering at all: it is the line of the
stdlib parser's call at the same rank among the statement's calls through the
same name, when both parsers count the same number of them.
"""

from __future__ import annotations

import ast
from types import SimpleNamespace
from typing import Callable, Dict, List, Optional, Protocol, Tuple

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState

_MISSING = object()


def parse_quietly(text: str) -> Optional[ast.Module]:
    from tvmlint.analysis.used_names import parse

    return parse(text)[0]


def _first_line(statement: ast.stmt) -> int:
    """The line of a statement's first token (its first decorator's, if any)."""
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def first_lines(tree: ast.Module) -> List[int]:
    """The line of the first token of each top-level statement."""
    return [_first_line(statement) for statement in tree.body]


def _calls_by_name(statements: List[ast.stmt]) -> Dict[Optional[str], List[int]]:
    found = []
    for statement in statements:
        for node in ast.walk(statement):
            if type(node) is ast.Call:
                func = node.func
                key = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
                # source order, an outer call before the calls it starts with (`f(a)(b)`)
                found.append((node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset, key))
    found.sort()
    by_name: Dict[Optional[str], List[int]] = {}
    for line, _, _, _, key in found:
        by_name.setdefault(key, []).append(line)
    return by_name


# The stdlib parser's counterparts of libcst's compound statements, by name (TryStar and
# Match are newer than the oldest Python tvmlint runs on).
_COUNTERPARTS = {
    "FunctionDef": ("FunctionDef", "AsyncFunctionDef"), "ClassDef": ("ClassDef",), "With": ("With", "AsyncWith"),
    "For": ("For", "AsyncFor"), "While": ("While",), "If": ("If",), "Try": ("Try",), "TryStar": ("TryStar",),
    "Match": ("Match",),
}


def _blocks_of(statement: cst.CSTNode) -> List[cst.BaseSuite]:
    """A compound statement's blocks in source order (an elif is a statement, not a block)."""
    found = [getattr(statement, "body", None)]
    found.extend(handler.body for handler in getattr(statement, "handlers", ()))
    orelse = getattr(statement, "orelse", None)
    if orelse is not None and not isinstance(orelse, cst.If):
        found.append(orelse.body)
    finalbody = getattr(statement, "finalbody", None)
    if finalbody is not None:
        found.append(finalbody.body)
    found.extend(case.body for case in getattr(statement, "cases", ()))
    return [block for block in found if block is not None]


def _blocks(statement: cst.CSTNode, theirs: ast.stmt) -> Optional[List[Tuple[cst.BaseSuite, List[ast.stmt]]]]:
    """The blocks of a compound statement, each with the stdlib parser's list of the same statements."""
    if type(theirs).__name__ not in _COUNTERPARTS.get(type(statement).__name__, ()):
        return None
    stdlib = [theirs.body] if hasattr(theirs, "body") else []
    stdlib.extend(handler.body for handler in getattr(theirs, "handlers", ()))
    orelse = getattr(statement, "orelse", None)
    if orelse is not None and not isinstance(orelse, cst.If):
        stdlib.append(theirs.orelse)
    if getattr(statement, "finalbody", None) is not None:
        stdlib.append(theirs.finalbody)
    stdlib.extend(case.body for case in getattr(theirs, "cases", ()))
    mine = _blocks_of(statement)
    return list(zip(mine, stdlib)) if len(mine) == len(stdlib) else None


# compound statements whose header renders without their blocks (a `try` must keep a handler)
_HEADED = (cst.FunctionDef, cst.ClassDef, cst.With, cst.For, cst.While, cst.If)


def _block_holding(statement: cst.CSTNode, child: cst.CSTNode) -> Optional[cst.IndentedBlock]:
    for block in _blocks_of(statement):
        if isinstance(block, cst.IndentedBlock) and any(item is child for item in block.body):
            return block
    return None


def _is_elif(statement: Optional[cst.CSTNode], child: cst.CSTNode) -> bool:
    return isinstance(statement, cst.If) and statement.orelse is child


def _child_statements(statement: cst.CSTNode, theirs: ast.stmt, child: cst.CSTNode) -> Optional[List[ast.stmt]]:
    """The stdlib parser's statements for `child`, a statement in one of `statement`'s blocks."""
    if _is_elif(statement, child):
        return theirs.orelse[:1] if len(theirs.orelse) == 1 and isinstance(theirs.orelse[0], ast.If) else None
    for block, stdlib in _blocks(statement, theirs) or ():
        if not isinstance(block, cst.IndentedBlock):
            continue
        position = 0
        found: Optional[List[ast.stmt]] = None
        for item in block.body:
            size = len(item.body) if isinstance(item, cst.SimpleStatementLine) else 1
            if item is child:
                found = stdlib[position:position + size]
            position += size
        if position != len(stdlib):
            return None  # the parsers count this block's statements differently
        if found is not None:
            return found
    return None


class StatementsOf(Protocol):
    """Where a node sits among the statements, as the analysis records it while it walks."""

    def top_statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]: ...

    def statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]: ...

    def parent_statement_of(self, statement: cst.CSTNode) -> Optional[cst.CSTNode]: ...


class LazyPositions:
    """A read-only mapping node -> CodeRange, as `MetadataWrapper.resolve(PositionProvider)` gives.

    `statements.top_statement_of(node)` names the top-level statement holding a node (the analysis
    records it as it walks); `tree()` gives the stdlib parser's tree of the same
    text, or None; it is only called once a position is asked for.
    """

    def __init__(
        self,
        module: cst.Module,
        text: str,
        tree: Callable[[], Optional[ast.Module]],
        statements: "StatementsOf",
        exact: bool = False,
        nested: bool = True,
    ):
        self.module = module
        # the innermost statement holding a node and the statement holding a statement: a
        # node deep in a large class (a TVMScript module) renders one line, not the class
        # (`nested=False`: only the top-level statement is asked)
        self.statement_of = statements.statement_of if nested else None
        self.parent_of = statements.parent_statement_of
        self._stdlib: Dict[cst.CSTNode, Optional[List[ast.stmt]]] = {}
        self.text = text
        self.exact = exact  # never guess a line from the stdlib tree (`hint_line`)
        self._hints: Dict[tuple, int] = {}
        self.owner_of = statements.top_statement_of
        self._tree = tree
        self._computed: Dict[cst.CSTNode, CodeRange] = {}
        self._done: set = set()
        self._headers: set = set()  # compound statements whose header was rendered (or tried)
        self._full = False
        self._starts: Optional[Dict[cst.CSTNode, int]] = None
        self._next: Dict[cst.CSTNode, int] = {}
        self._groups: Dict[cst.CSTNode, List[ast.stmt]] = {}
        self._calls: Dict[cst.CSTNode, Dict[Optional[str], List[int]]] = {}
        self._lines: Optional[List[str]] = None

    def _index_statements(self) -> Dict[cst.CSTNode, int]:
        tree = self._tree()
        if tree is None:
            return {}
        lines = first_lines(tree)
        body = self.module.body
        starts: List[int] = []
        position = 0
        for statement in body:
            if position >= len(lines):
                return {}
            starts.append(lines[position] - len(statement.leading_lines))
            # libcst keeps `a; b` as one statement line where the stdlib parser has two statements
            size = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            self._groups[statement] = tree.body[position:position + size]
            position += size
        if position != len(lines) or (starts and starts[0] != 1 + len(self.module.header)):
            self._groups = {}
            return {}
        # the last statement ends where the footer's lines begin (libcst renders a missing final newline)
        end = len(NEWLINE_RE.split(self.text)) + (0 if self.module.has_trailing_newline else 1) - len(self.module.footer)
        self._next = {statement: (starts[i + 1] if i + 1 < len(body) else end) for i, statement in enumerate(body)}
        return dict(zip(body, starts))

    def call_line(self, call: cst.Call, key: Optional[str], rank: int, count: int) -> int:
        """The line of the `rank`-th of the `count` calls through name `key` in its statement."""
        lines = self._call_lines(call, key)
        if lines is not None and len(lines) == count:
            return lines[rank]
        return self[call].start.line

    def hint_line(self, call: cst.Call, key: Optional[str], rank: int) -> int:
        """`call_line` in the middle of the walk, before the statement's calls are all counted:
        the caller must check `hints_hold` once they are, and walk again `exact` if not."""
        if not self.exact:
            lines = self._call_lines(call, key)
            if lines is not None and rank < len(lines):
                self._hints[(self.owner_of(call), key)] = len(lines)
                return lines[rank]
        return self[call].start.line

    def hints_hold(self, counts: Dict[tuple, int]) -> bool:
        return all(counts.get(key) == count for key, count in self._hints.items())

    def _call_lines(self, call: cst.Call, key: Optional[str]) -> Optional[List[int]]:
        if self._starts is None:
            self._starts = self._index_statements()
        statement = self.owner_of(call)
        group = self._groups.get(statement) if statement is not None else None
        if group is None:
            return None
        calls = self._calls.get(statement)
        if calls is None:
            calls = self._calls[statement] = _calls_by_name(group)
        return calls.get(key, [])

    def _render(self, statement: cst.CSTNode) -> bool:
        if self._starts is None:
            self._starts = self._index_statements()
        start = self._starts.get(statement)
        if start is None:
            return False
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=SimpleNamespace(_computed=self._computed),
        )
        state.line = start
        try:
            statement._codegen(state)
        except Exception:  # libcst's internals moved: its own provider still works
            return False
        if (state.line, state.column) != (self._next[statement], 0):
            return False
        self._done.add(statement)
        return True

    def _stdlib_statements(self, statement: cst.CSTNode) -> Optional[List[ast.stmt]]:
        """The stdlib parser's statements for a libcst statement (several for `a; b`), found
        from the top-level statement down through the blocks; None where the two disagree."""
        if statement in self._stdlib:
            return self._stdlib[statement]
        parent = self.parent_of(statement) if self.parent_of is not None else None
        found: Optional[List[ast.stmt]] = None
        if parent is None:
            if self._starts is None:
                self._starts = self._index_statements()
            found = self._groups.get(statement)
        else:
            above = self._stdlib_statements(parent)
            if above is not None and len(above) == 1:
                found = _child_statements(parent, above[0], statement)
        self._stdlib[statement] = found
        return found

    def _indents(self, statement: cst.CSTNode) -> Optional[List[str]]:
        """The indentation the blocks around a statement give it, outermost first."""
        indents: List[str] = []
        child, parent = statement, self.parent_of(statement)
        while parent is not None:
            if not _is_elif(parent, child):  # an elif stands where its `if` does
                block = _block_holding(parent, child)
                if block is None:
                    return None
                indents.append(self.module.default_indent if block.indent is None else block.indent)
            child, parent = parent, self.parent_of(parent)
        indents.reverse()
        return indents

    def _render_nested(self, statement: cst.CSTNode) -> bool:
        """Render a statement inside a block on its own, from the line the stdlib parser gives its
        first token; kept only if its start and end fall where that parser says they do."""
        if _is_elif(self.parent_of(statement), statement):
            return False  # rendered alone it would read `if`
        stdlib = self._stdlib_statements(statement)
        indents = self._indents(statement) if stdlib else None
        if indents is None:
            return False
        rendered: Dict[cst.CSTNode, CodeRange] = {}
        state = PositionProvidingCodegenState(
            default_indent=self.module.default_indent,
            default_newline=self.module.default_newline,
            provider=SimpleNamespace(_computed=rendered),
        )
        state.line = _first_line(stdlib[0]) - len(statement.leading_lines)
        state.indent_tokens = indents
        try:
            statement._codegen(state)
        except Exception:  # libcst's internals moved: the top-level statement still renders
            return False
        if isinstance(statement, cst.SimpleStatementLine):
            if len(statement.body) != len(stdlib):
                return False
            pairs = list(zip(statement.body, stdlib))
        else:
            pairs = [(statement, stdlib[0])]
        for node, theirs in pairs:
            where = rendered.get(node)
            if where is None or (where.start.line, where.start.column, where.end.line, where.end.column) != (
                theirs.lineno, self._column(theirs.lineno, theirs.col_offset),
                theirs.end_lineno, self._column(theirs.end_lineno, theirs.end_col_offset),
            ):
                return False
        self._computed.update(rendered)
        self._done.add(statement)
        return True

    def _render_header(self, statement: cst.CSTNode) -> bool:
        """Render a compound statement's header on its own: the statement with its first block cut
        to a `pass` that keeps the first statement's leading lines (and no else). Kept only if the
        statement starts, and that `pass` starts, where the stdlib parser puts the statement and
        its first statement: the header's lines were then counted as the whole statement counts them."""
        if statement in self._headers or not isinstance(statement, _HEADED):
            return False
        self._headers.add(statement)
        block = statement.body
        parent = self.parent_of(statement) if self.parent_of is not None else None
        if not isinstance(block, cst.IndentedBlock) or not block.body or _is_elif(parent, statement):
            return False
        stdlib = self._stdlib_statements(statement)
        if not stdlib or len(stdlib) != 1 or not getattr(stdlib[0], "body", None):
            return False
        theirs, first = stdlib[0], stdlib[0].body[0]
        indents = self._indents(statement) if parent is not None else []
        if indents is None:
            return False
        stand_in = cst.SimpleStatementLine([cst.Pass()], leading_lines=block.body[0].leading_lines)
        changes = {"body": block.with_changes(body=[stand_in])}
        if getattr(statement, "orelse", None) is not None:
            changes["orelse"] = None
        try:
            copy = statement.with_changes(**changes)
            rendered: Dict[cst.CSTNode, CodeRange] = {}
            state = PositionProvidingCodegenState(
                default_indent=self.module.default_indent,
                default_newline=self.module.default_newline,
                provider=SimpleNamespace(_computed=rendered),
            )
            state.line = _first_line(theirs) - len(statement.leading_lines)
            state.indent_tokens = indents
            copy._codegen(state)
        except Exception:  # libcst's internals moved: the whole statement still renders
            return False
        starts = rendered.get(copy), rendered.get(stand_in)
        if None in starts or [(where.start.line, where.start.column) for where in starts] != [
            (theirs.lineno, self._column(theirs.lineno, theirs.col_offset)),
            (_first_line(first), self._column(_first_line(first), first.col_offset)),
        ]:
            return False
        for made in (copy, changes["body"], stand_in, *stand_in.body):
            rendered.pop(made, None)
        self._computed.update(rendered)
        return True

    def _column(self, line: int, offset: Optional[int]) -> int:
        """A column in characters from the stdlib parser's offset in UTF-8 bytes."""
        if self._lines is None:
            self._lines = NEWLINE_RE.split(self.text)
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        if text.isascii() or offset is None:
            return -1 if offset is None else offset
        return len(text.encode("utf-8")[:offset].decode("utf-8", errors="replace"))

    def _all(self) -> None:
        self._computed.update(MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider))
        self._full = True

    def _find(self, node: cst.CSTNode) -> object:
        found = self._computed.get(node, _MISSING)
        if found is not _MISSING or self._full:
            return found
        # the innermost statement in a block that renders alone (an elif does not: its `if` does)
        inner = self.statement_of(node) if self.statement_of is not None else None
        while inner is not None:
            if inner in self._done:
                break
            # a node in a header (a parameter's annotation, a `with` item) needs the header only
            if self._render_header(inner):
                found = self._computed.get(node, _MISSING)
                if found is not _MISSING:
                    return found
            if self.parent_of(inner) is None:
                break
            if self._render_nested(inner):
                found = self._computed.get(node, _MISSING)
                if found is not _MISSING:
                    return found
                break
            inner = self.parent_of(inner)
        statement = self.owner_of(node)
        if statement is None or statement in self._done or not self._render(statement):
            self._computed.clear()
            self._all()
        return self._computed.get(node, _MISSING)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._find(node)
        if found is _MISSING:
            raise KeyError(node)
        return found  # type: ignore[return-value]

    def get(self, node: cst.CSTNode, default=None):
        found = self._find(node)
        return default if found is _MISSING else found

    def __contains__(self, node: object) -> bool:
        return self._find(node) is not _MISSING  # type: ignore[arg-type]
