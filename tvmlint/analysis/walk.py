"""A read-only walk over a libcst tree, visiting what libcst's `visit` visits, in its order.

libcst's own `visit` rebuilds every node on the way out (so that a transformer
can swap children), and that copy costs about four times the walk itself. The
analysis and the rules only read the tree: they get the same `on_visit` /
`on_leave` calls here, on the same nodes in the same order, without the copies.
`tests/test_walk.py` holds the two walks to the same sequence over real files.
Attribute hooks (`visit_Call_func`) are not called: no visitor here has one.

Nor are libcst's whitespace, punctuation and operator nodes (`SimpleWhitespace`,
`Comma`, `Add`, `LeftParen`: `trivia`) visited: they hold no code, and they are
more than half of a module's nodes (42% of those of a TVMScript test are
`SimpleWhitespace` alone). A visitor that hooks one is refused.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from tvmlint.analysis.lazy import cst

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


class Visitor:
    """A visitor that only reads, for `walk`: `visit_<Node>` (returning False skips the
    children) and `leave_<Node>`, called as libcst's CSTVisitor calls them.

    Plain Python, so modules that define visitors load without libcst (`tvmlint.analysis.lazy`).
    `get_visitors` is what batching (`Batched`) asks, as libcst's BatchableCSTVisitor
    answers it, but looked up once per class rather than per instance.
    """

    def on_visit(self, node: cst.CSTNode) -> bool:
        visit = _method(type(self), "visit_", type(node))
        return visit is None or visit(self, node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        leave = _method(type(self), "leave_", type(original_node))
        if leave is not None:
            leave(self, original_node)

    def get_visitors(self) -> Dict[str, Callable[[cst.CSTNode], object]]:
        kind = type(self)
        names = _VISITOR_NAMES.get(kind)
        if names is None:
            names = _VISITOR_NAMES[kind] = tuple(
                name for name in dir(kind) if name.startswith(("visit_", "leave_")) and callable(getattr(kind, name))
            )
        return {name: getattr(self, name) for name in names}


_VISITOR_NAMES: Dict[type, Tuple[str, ...]] = {}
_METHODS: Dict[Tuple[type, str, type], Optional[Callable]] = {}


def _method(visitor: type, prefix: str, kind: type) -> Optional[Callable]:
    """A visitor class's `visit_<Node>` / `leave_<Node>` function, looked up once per node class
    (visitors set their hooks on the class, never on an instance)."""
    key = (visitor, prefix, kind)
    try:
        return _METHODS[key]
    except KeyError:
        found = _METHODS[key] = getattr(visitor, prefix + kind.__name__, None)
        return found


_TRIVIA: Optional[FrozenSet[type]] = None


def trivia() -> FrozenSet[type]:
    """The node classes the walk leaves out: libcst's whitespace and its operators and
    punctuation (its `whitespace` and `op` modules), and the brackets, which hold only whitespace."""
    global _TRIVIA
    if _TRIVIA is None:
        from libcst._nodes import op, whitespace

        found = {
            kind for module in (whitespace, op) for kind in vars(module).values()
            if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and kind.__module__ == module.__name__
        }
        found |= {
            cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace,
            cst.RightCurlyBrace,
        }
        _TRIVIA = frozenset(found)
    return _TRIVIA


# whether the walk enters a value of a class: a libcst node that is not trivia. CSTNode is an
# abstract class, and an isinstance check against one costs several times a dict lookup, for
# every field of every node
_WALKED: Dict[type, bool] = {}


def is_walked_class(kind: type) -> bool:
    known = _WALKED.get(kind)
    if known is None:
        known = _WALKED[kind] = issubclass(kind, cst.CSTNode) and kind not in trivia()
    return known


_CHECKED: Set[type] = set()


def _refuse_trivia_hooks(visitor: type) -> None:
    if visitor in _CHECKED:
        return
    hooks = {name.partition("_")[2] for name in dir(visitor) if name.startswith(("visit_", "leave_")) and _own(visitor, name)}
    hooked = {kind.__name__ for kind in trivia()} & hooks
    if hooked:
        raise ValueError(f"{visitor.__name__}: hooks on {', '.join(sorted(hooked))}, which the walk does not visit")
    _CHECKED.add(visitor)


def _own(visitor: type, name: str) -> bool:
    # libcst's visitor classes define every hook, doing nothing: only a hook written over them counts
    owner = next(kind for kind in visitor.__mro__ if name in vars(kind))
    return not owner.__module__.startswith("libcst.")


def walk(node: cst.CSTNode, visitor: Visitor) -> None:
    """`node.visit(visitor)` for a visitor that only reads: on_visit, the children unless it
    returned False, then on_leave."""
    _refuse_trivia_hooks(type(visitor))
    on_visit, on_leave = visitor.on_visit, visitor.on_leave
    order = _ORDER
    nodes = _WALKED

    def go(node: cst.CSTNode) -> None:
        if on_visit(node):
            kind = type(node)
            fields = order.get(kind) or child_fields(kind)
            for name in fields:
                value = getattr(node, name)
                kind = type(value)
                if kind is tuple or kind is list:
                    for item in value:
                        known = nodes.get(type(item))
                        if known or (known is None and is_walked_class(type(item))):
                            go(item)
                else:
                    known = nodes.get(kind)
                    if known or (known is None and is_walked_class(kind)):
                        go(value)
        on_leave(node)

    try:
        go(node)
    finally:
        # `go` refers to itself through its closure: a cycle that would keep the visitor, and
        # all it holds, alive until the cycle collector walks it (tvmlint.run.engine._let_go)
        go = None  # noqa: F841


class Batched(Visitor):
    """Several visitors' `visit_<Node>` / `leave_<Node>` methods called in one walk, as
    libcst's `visit_batched` calls them (visits in visitor order, leaves likewise)."""

    def __init__(self, visitors: Iterable[Visitor]):
        methods: Dict[str, List[Callable[[cst.CSTNode], object]]] = {}
        for visitor in visitors:
            _refuse_trivia_hooks(type(visitor))
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


def walk_batched(node: cst.CSTNode, visitors: Iterable[Visitor]) -> None:
    walk(node, Batched(visitors))
