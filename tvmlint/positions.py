"""Line and column of libcst nodes, computed only for the top-level statements that need them.

libcst's PositionProvider renders the whole module to count lines and columns:
it costs twice the parse, and most analysed files only ever ask where a few
nodes are (a finding, a PassContext named in a message). A top-level statement
always starts at column 0, and the stdlib parser already knows the line of its
first token, so each statement can be rendered on its own, starting at the
right line, the first time one of its nodes is asked for.

Every statement rendered checks that it ends where the next one begins; when
any accounting disagrees (a construct this module did not foresee), the whole
module falls back to libcst's own provider, so positions are never wrong.

The line of a call the analysis records for the cross-module step (most test
functions call a helper) does not need rendering at all: it is the line of the
stdlib parser's call at the same rank among the statement's calls through the
same name, when both parsers count the same number of them.
"""

from __future__ import annotations

import ast
from types import SimpleNamespace
from typing import Callable, Dict, List, Optional

import libcst as cst
from libcst.metadata import CodeRange
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState

_MISSING = object()


def parse_quietly(text: str) -> Optional[ast.Module]:
    from tvmlint.cheap import parse

    return parse(text)[0]


def first_lines(tree: ast.Module) -> List[int]:
    """The line of the first token of each top-level statement (a decorator's, if any)."""
    lines = []
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", None)
        lines.append(min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno)
    return lines


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


class LazyPositions:
    """A read-only mapping node -> CodeRange, as `MetadataWrapper.resolve(PositionProvider)` gives.

    `owner_of(node)` names the top-level statement holding a node (the analysis
    records it as it walks); `tree()` gives the stdlib parser's tree of the same
    text, or None; it is only called once a position is asked for.
    """

    def __init__(
        self,
        module: cst.Module,
        text: str,
        tree: Callable[[], Optional[ast.Module]],
        owner_of: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
        exact: bool = False,
    ):
        self.module = module
        self.text = text
        self.exact = exact  # never guess a line from the stdlib tree (`hint_line`)
        self._hints: Dict[tuple, int] = {}
        self.owner_of = owner_of
        self._tree = tree
        self._computed: Dict[cst.CSTNode, CodeRange] = {}
        self._done: set = set()
        self._full = False
        self._starts: Optional[Dict[cst.CSTNode, int]] = None
        self._next: Dict[cst.CSTNode, int] = {}
        self._groups: Dict[cst.CSTNode, List[ast.stmt]] = {}
        self._calls: Dict[cst.CSTNode, Dict[Optional[str], List[int]]] = {}

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

    def _all(self) -> None:
        self._computed.update(MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider))
        self._full = True

    def _find(self, node: cst.CSTNode) -> object:
        found = self._computed.get(node, _MISSING)
        if found is not _MISSING or self._full:
            return found
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
