"""The pass names an expression may hold on some path, each with the string that writes it.

`ModuleAnalysis.pass_name_elements` answers what a pass list certainly is, or nothing; a name
that no pass has is a mistake wherever it may reach a context, so TVM104 also asks this looser
question: a name bound on several paths is each of its values (`skip = None` in one branch,
`skip = ALL - keep` in another), a set difference whose right side is unknown keeps every name
of its left side, and what cannot be read adds no name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Tuple

from tvmlint.analysis.lazy import cst
from tvmlint.analysis.results import ParamRef

if TYPE_CHECKING:
    from tvmlint.analysis.module import ModuleAnalysis, Scope

Named = List[Tuple[str, "cst.SimpleString"]]

_COLLECTIONS = ("list", "sorted", "set", "frozenset", "tuple")
_DEPTH = 8


def may_pass_names(analysis: "ModuleAnalysis", node: Optional[cst.BaseExpression], scope: "Scope") -> Named:
    return _MayNames(analysis).names(node, scope, 0, frozenset())


def names_through_parameter(analysis: "ModuleAnalysis", ref: "ParamRef", seen: frozenset = frozenset()) -> Named:
    """The pass names the calls in this module may give a function's parameter, following a
    caller that passes its own parameter on. Calls from other modules are not read."""
    if ref.function in seen or len(seen) > 4:
        return []
    out: Named = []
    for site in analysis.callsites:
        if site.callee != ref.function or site.scope is None or not isinstance(site.node, cst.Call):
            continue
        given = _argument(site.node, ref)
        if given is None:
            continue
        passed_on = dict(site.args).get(ref.name if _by_keyword(site.node, ref) else ref.position)
        if isinstance(passed_on, ParamRef):
            out.extend(names_through_parameter(analysis, passed_on, seen | {ref.function}))
        else:
            out.extend(may_pass_names(analysis, given, site.scope))
    return out


def _by_keyword(call: cst.Call, ref: "ParamRef") -> bool:
    return any(arg.keyword is not None and arg.keyword.value == ref.name for arg in call.args)


def _argument(call: cst.Call, ref: "ParamRef") -> Optional[cst.BaseExpression]:
    position = 0
    for arg in call.args:
        if arg.star:
            return None  # past `*args`, positions are not known
        if arg.keyword is not None:
            if arg.keyword.value == ref.name:
                return arg.value
            continue
        if ref.position is not None and position == ref.position:
            return arg.value
        position += 1
    return None


class _MayNames:
    def __init__(self, analysis: "ModuleAnalysis"):
        self.analysis = analysis
        self.assigned: Dict[int, Dict[str, List[cst.BaseExpression]]] = {}

    def names(self, node, scope: "Scope", depth: int, seen: frozenset) -> Named:
        if node is None or depth > _DEPTH:
            return []
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            out: Named = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    out.extend(self.names(element.value, scope, depth + 1, seen))
                elif isinstance(element.value, cst.SimpleString) and isinstance(element.value.evaluated_value, str):
                    out.append((element.value.evaluated_value, element.value))
            return out
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.Add, cst.BitOr)):
                return self.names(node.left, scope, depth + 1, seen) + self.names(node.right, scope, depth + 1, seen)
            if isinstance(node.operator, (cst.Subtract, cst.BitAnd)):
                left = self.names(node.left, scope, depth + 1, seen)
                # what the right side certainly holds decides; an unknown right side may take
                # any name out (or keep any), so each name on the left may remain
                right = self.analysis.pass_name_elements(node.right)
                if right is None:
                    return left
                written = {name for name, _ in right}
                if isinstance(node.operator, cst.Subtract):
                    return [pair for pair in left if pair[0] not in written]
                return [pair for pair in left if pair[0] in written]
            return []
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _COLLECTIONS
                and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star):
            return self.names(node.args[0].value, scope, depth + 1, seen)
        if isinstance(node, cst.Name) and node.value not in seen:
            owner = _binding_scope(node.value, scope)
            if owner is None or owner.node is None:
                return []
            out = []
            for value in self._values(owner, node.value):
                out.extend(self.names(value, owner, depth + 1, seen | {node.value}))
            return out
        return []

    def _values(self, scope: "Scope", name: str) -> List[cst.BaseExpression]:
        """Every expression `scope`'s own body assigns to `name` (`=`, `+=`, `|=`, annotated)."""
        table = self.assigned.get(id(scope.node))
        if table is None:
            table = self.assigned[id(scope.node)] = _assignments(scope.node)
        return table.get(name, [])


def _binding_scope(name: str, scope: Optional["Scope"]) -> Optional["Scope"]:
    first = True
    while scope is not None:
        if (first or scope.kind != "class") and name in scope.bindings:
            return scope
        first = False
        scope = scope.parent
    return None


def _assignments(scope_node: cst.CSTNode) -> Dict[str, List[cst.BaseExpression]]:
    out: Dict[str, List[cst.BaseExpression]] = {}
    for statement in _own_statements(scope_node):
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, cst.Name):
                    out.setdefault(target.target.value, []).append(statement.value)
        elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)) and statement.value is not None:
            if isinstance(statement.target, cst.Name):
                out.setdefault(statement.target.value, []).append(statement.value)
    return out


def _own_statements(scope_node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The small statements of a module's or function's body, in nested blocks too, not in
    nested functions, classes or lambdas (their names are their own)."""
    stack: List[cst.CSTNode] = list(scope_node.body.children if isinstance(scope_node, cst.FunctionDef)
                                    else scope_node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from node.body
        elif isinstance(node, cst.BaseSmallStatement):  # a one-line function's body
            yield node
        elif isinstance(node, (cst.BaseCompoundStatement, cst.IndentedBlock, cst.Else, cst.ExceptHandler, cst.Finally)):
            stack.extend(node.children)
