"""The argument nodes of every PassContext the analysis saw created, by parameter name.

Rules about what a context is given (pass lists, config keys, opt_level) point at
the exact list element, dict key or literal, so they need the nodes, not only
the parsed `PassCtx`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from tvmlint.analysis.lazy import cst
from tvmlint.analysis.module import ContextValue, call_arguments
from tvmlint.base.diagnostics import Edit
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.checks.rule import Rule


@dataclass
class ContextCall:
    value: ContextValue
    qualname: str
    args: Dict[str, cst.BaseExpression]

    @property
    def call(self) -> cst.Call:
        return self.value.node

    def names(self, param: str) -> List[Tuple[str, cst.SimpleString]]:
        """The pass names given to `param` (required_pass, disabled_pass) as the analysis followed
        them where the context is made: inline, through a constant, a set operation."""
        return self.value.pass_names.get(param, [])


def context_calls(file) -> Iterator[ContextCall]:
    """Each PassContext creation in the file with its arguments mapped onto the factory's parameters."""
    factories = file.knowledge.context_factories
    for value in file.analysis.contexts:
        call = value.node
        if value.other is not None:
            continue  # no PassContext: it takes no pass lists, levels or config
        if not isinstance(call, cst.Call):
            continue
        qualname = file.qualname(call.func)
        factory = factories.get(qualname) if qualname else None
        if factory is None:
            continue
        args, _hidden = call_arguments(call, factory.params)
        yield ContextCall(value, qualname, args)


def string_elements(node: Optional[cst.BaseExpression]) -> List[Tuple[str, cst.SimpleString]]:
    """The plain string literals of a literal list/tuple/set (other elements are skipped)."""
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return []
    out = []
    for element in node.elements:
        if isinstance(element, cst.Element) and isinstance(element.value, cst.SimpleString):
            value = element.value.evaluated_value
            if isinstance(value, str):  # b'...' names no pass or key
                out.append((value, element.value))
    return out


def literal_keys(node: Optional[cst.BaseExpression]) -> List[Tuple[str, cst.SimpleString, cst.BaseExpression]]:
    """(key, key node, value node) for the plain string keys of a dict literal."""
    if not isinstance(node, cst.Dict):
        return []
    out = []
    for element in node.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            key = element.key.evaluated_value
            if isinstance(key, str):
                out.append((key, element.key, element.value))
    return out


def replace_string(file, node: cst.SimpleString, value: str) -> Edit:
    """An edit putting `value` in place of a string literal, keeping its quotes and prefix."""
    start, end = file.span(node)
    return Edit(start, end, f"{node.prefix}{node.quote}{value}{node.quote}")


class ContextSettingsRule(Rule):
    """A rule about what a PassContext is given: it can only fire where one is created
    (with one of the arguments it judges, its spec's `arguments` say)."""

    prefilter = Prefilter(triggers=("context_factories",))
