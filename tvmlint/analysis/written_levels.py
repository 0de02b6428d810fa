"""The integer literals a module gives as a PassContext's opt_level, read from its stdlib tree.

The cheap stage (`tvmlint.run.low_contexts`) and TVM303's screen ask which levels a
module writes; both must see every level the analysis could, and may see more.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from tvmlint.analysis.used_names import nodes


def literal_levels(tree: ast.Module, positions: Dict[str, Optional[int]]) -> List[int]:
    """Every integer literal a module gives as the opt_level of a call whose callee's last
    name is in `positions` (its value: where opt_level goes without a keyword, None: never,
    -1: anywhere), or a name it binds to one (`import ... as`, `x = ...`, `x := ...`).
    A level written as a name counts every integer literal the module assigns that name
    anywhere (more than the analysis, which follows a name bound once, never fewer)."""
    positions = dict(positions)
    calls: List[ast.Call] = []
    assigned: List[Tuple[List[str], ast.expr]] = []
    known = dict(positions)
    for node in nodes(tree.body):  # every node but contexts and operators, none of which counts here
        kind = type(node)
        if kind is ast.Call:
            calls.append(node)
        elif kind is ast.alias and node.asname:
            last = node.name.rsplit(".", 1)[-1]
            if last in known:
                positions[node.asname] = merge(positions.get(node.asname, known[last]), known[last])
        elif kind is ast.Assign:
            assigned.append(([t.id for t in node.targets if type(t) is ast.Name], node.value))
        elif kind is ast.AnnAssign and node.value is not None and type(node.target) is ast.Name:
            assigned.append(([node.target.id], node.value))
        elif kind is ast.NamedExpr:
            assigned.append(([node.target.id], node.value))
    grown = True
    while grown:  # `PC = tvm.transform.PassContext`, and a name assigned that name
        grown = False
        for targets, value in assigned:
            last = last_name(value)
            if last is None or last not in positions:
                continue
            for target in targets:
                if target not in positions:
                    positions[target] = positions[last]
                    grown = True
    constants: Dict[str, List[int]] = {}
    for targets, value in assigned:
        literal = int_value(value)
        if literal is not None:
            for target in targets:
                constants.setdefault(target, []).append(literal)
    levels: List[Optional[int]] = []

    def given(node: ast.AST) -> None:
        if type(node) is ast.Name:
            levels.extend(constants.get(node.id, ()))
        else:
            levels.append(int_value(node))

    for call in calls:
        last = last_name(call.func)
        if last is None or last not in positions:
            continue
        for keyword in call.keywords:
            if keyword.arg == "opt_level":
                given(keyword.value)
        at = positions[last]
        if at is None:
            continue
        for position, arg in enumerate(call.args):
            if type(arg) is ast.Starred:
                break
            if at == -1 or position == at:
                given(arg)
    return [level for level in levels if level is not None]


def merge(first: Optional[int], second: Optional[int]) -> Optional[int]:
    return first if first == second else -1


def last_name(node: ast.AST) -> Optional[str]:
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        return node.attr
    return None


def int_value(node: ast.AST) -> Optional[int]:
    """An integer literal's value, negative ones too (as `tvmlint.analysis.module.int_literal`)."""
    sign = 1
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        node, sign = node.operand, -1
    if type(node) is ast.Constant and type(node.value) is int:
        return sign * node.value
    return None
