"""A read-only walk over a libcst tree, visiting what libcst's `visit` visits, in its order.

libcst's own `visit` rebuilds every node on the way out (so that a transformer
can swap children), and that copy costs about four times the walk itself. The
analysis and the rules only read the tree: they get the same `on_visit` /
`on_leave` calls here, on the same nodes in the same order, without the copies.
`tests/test_walk.py` holds the two walks to the same sequence over real files.
Attribute hooks (`visit_Call_func`) are not called: no visitor here has one.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Iterable, List, Tuple

import libcst as cst

_ORDER: Dict[type, Tuple[str, ...]] = {}


def child_fields(kind: type) -> Tuple[str, ...]:
    """The fields of a node class that hold children, in the order libcst visits them.

    Each class's `_visit_and_replace_children` names its fields as string
    constants, in source order, one call per field; the compiled constants keep
    that order, so no source has to be read.
    """
    order = _ORDER.get(kind)
    if order is None:
        fields = {field.name for field in dataclasses.fields(kind)}
        seen: List[str] = []
        for constant in kind._visit_and_replace_children.__code__.co_consts:
            if type(constant) is str and constant in fields and constant not in seen:
                seen.append(constant)
        order = _ORDER[kind] = tuple(seen)
    return order


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a visitor that only reads: on_visit, the children unless it
    returned False, then on_leave."""
    on_visit, on_leave = visitor.on_visit, visitor.on_leave
    order = _ORDER
    node_type = cst.CSTNode

    def go(node: cst.CSTNode) -> None:
        if on_visit(node):
            kind = type(node)
            fields = order.get(kind) or child_fields(kind)
            for name in fields:
                value = getattr(node, name)
                if isinstance(value, node_type):
                    go(value)
                elif type(value) is tuple or type(value) is list:
                    for item in value:
                        if isinstance(item, node_type):
                            go(item)
        on_leave(node)

    go(node)


class Batched(cst.CSTVisitor):
    """Several visitors' `visit_<Node>` / `leave_<Node>` methods called in one walk, as
    libcst's `visit_batched` calls them (visits in visitor order, leaves likewise)."""

    def __init__(self, visitors: Iterable[cst.BatchableCSTVisitor]):
        super().__init__()
        methods: Dict[str, List[Callable[[cst.CSTNode], object]]] = {}
        for visitor in visitors:
            for name, method in visitor.get_visitors().items():
                if name.count("_") > 1:
                    raise ValueError(f"{type(visitor).__name__}.{name}: attribute hooks are not walked")
                methods.setdefault(name, []).append(method)
        self._visits: Dict[type, List[Callable]] = {}
        self._leaves: Dict[type, List[Callable]] = {}
        self._methods = methods

    def _for(self, table: Dict[type, List[Callable]], prefix: str, kind: type) -> List[Callable]:
        found = table.get(kind)
        if found is None:
            found = table[kind] = self._methods.get(prefix + kind.__name__, [])
        return found

    def on_visit(self, node: cst.CSTNode) -> bool:
        for method in self._visits.get(type(node)) or self._for(self._visits, "visit_", type(node)):
            method(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for method in self._leaves.get(type(original_node)) or self._for(self._leaves, "leave_", type(original_node)):
            method(original_node)


def walk_batched(node: cst.CSTNode, visitors: Iterable[cst.BatchableCSTVisitor]) -> None:
    walk(node, Batched(visitors))
