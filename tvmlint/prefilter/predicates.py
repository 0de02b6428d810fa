"""The small predicates a `Prefilter` spec names: questions about the names a module uses
(`tvmlint.analysis.used_names.UsedNames`, read from the stdlib parser's tree), each the
stdlib-tree shadow of what a rule's analysis judges, and each allowed to say yes too often,
never no when the rule could report.
"""

from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING, Callable, Dict, Tuple

from tvmlint.analysis.used_names import BY_NAME, UsedNames, call_arguments, roots_of
from tvmlint.analysis.written_levels import literal_levels
from tvmlint.knowledge.harness import harness
from tvmlint.knowledge.numerics import (
    accumulation,
    compute_apis,
    declarations,
    low_default,
    sum_apis,
)
from tvmlint.knowledge.registry import config_key_verdict
from tvmlint.knowledge.target import (
    Knowledge,
    highest_gated_level,
    level_positions,
    lowest_default_level,
    pass_levels,
)
from tvmlint.prefilter.names import history_methods, renamed_keyword_apis

if TYPE_CHECKING:
    from tvmlint.prefilter.view import RuleView


def uses_trigger(used: UsedNames, view: "RuleView") -> bool:
    """The default: the module uses one of the rule's trigger names (any TVM name without them)."""
    names = view.triggers
    return used.uses_roots if names is None else used.uses_any(names)


def _gives_argument(used: UsedNames, view: "RuleView") -> bool:
    # a PassContext given one of the arguments the rule judges, or `**kwargs` that may hold one
    if not view.spec.arguments:
        return uses_trigger(used, view)
    for qualname, factory in view.knowledge.context_factories.items():
        for call in used.calls_to.get(qualname, ()):
            args, hidden = call_arguments(call, factory.params)
            if hidden or any(name in args for name in view.spec.arguments):
                return True
    return False


def _unknown_config_key(used: UsedNames, view: "RuleView") -> bool:
    # only a literal config dict's string keys are judged, so a module whose config dicts hold
    # registered keys only cannot be reported
    knowledge = view.knowledge
    for qualname, factory in knowledge.context_factories.items():
        if "config" not in factory.params:
            continue
        for call in used.calls_to.get(qualname, ()):
            config = call_arguments(call, factory.params)[0].get("config")
            if not isinstance(config, ast.Dict):
                continue
            for key in config.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    if config_key_verdict(knowledge.version, key.value) is not None:
                        return True
    return False


def _api_history(used: UsedNames, view: "RuleView") -> bool:
    # entries cover what lies under a module or class too: ask the history about every name;
    # a method ([[method]]) is asked for by its name, in a module that uses TVM
    from tvmlint.knowledge.api_history import get_history

    version = view.knowledge.version
    if used.uses_roots and not used.identifiers.isdisjoint(history_methods(version)):
        return True
    renamed = renamed_keyword_apis(version)
    if renamed and not renamed.isdisjoint(used.names):
        return True  # an API one of whose keywords the release renamed ([[keyword]])
    history = get_history()
    return any(history.use(name, version) is not None for name in used.names)


def _build_tuple_unpacked(used: UsedNames, view: "RuleView") -> bool:
    # only `graph, lib, params = relay.build(...)` itself is reported
    names = view.triggers
    return bool(names) and not used.unpacked.isdisjoint(names)


def _level_literal_out_of_range(used: UsedNames, view: "RuleView") -> bool:
    """Only a call whose opt_level is a literal the rule would report."""
    knowledge = view.knowledge
    callees = {**knowledge.context_factories, **knowledge.sequential_classes}
    for qualname, spec in callees.items():
        for call in used.calls_to.get(qualname, ()):
            level = call_arguments(call, spec.params)[0].get("opt_level")
            if isinstance(level, ast.UnaryOp) and isinstance(level.op, ast.USub):
                level = level.operand
                if isinstance(level, ast.Constant):
                    return True  # any negative literal
            if isinstance(level, ast.Constant) and not (
                type(level.value) is int and pass_levels()[0] <= level.value <= pass_levels()[1]
            ):
                return True
    return False


def _created_outside_with(used: UsedNames, view: "RuleView") -> bool:
    # a context created right in a `with` item is entered: only other calls can be findings
    return used.calls_outside_with(view.triggers)


def _sequential_given_level(used: UsedNames, view: "RuleView") -> bool:
    # only a Sequential given an opt_level can be reported
    for qualname, spec in view.knowledge.sequential_classes.items():
        for call in used.calls_to.get(qualname, ()):
            args, hidden = call_arguments(call, spec.params)
            if hidden or "opt_level" in args:
                return True
    return False


@functools.lru_cache(maxsize=None)
def _declaring(version) -> frozenset:
    buffer_types, decls, tensors = declarations(version)
    return buffer_types | frozenset(decls) | frozenset(tensors) | compute_apis(version)


def _may_accumulate_low(accumulated, part: UsedNames) -> bool:
    """Whether a buffer some block adds into may be low-precision, by what that part's
    declarations of that name give (`UsedNames.declared`): a low-precision literal, a bare name
    (`declared_dtype` reads the dtype through it), or no declaration in the part (it lies
    outside: kept). A declaration with neither gives another dtype, or none: the declaring
    API's default, which no row of numerics.toml makes low (`low_default`)."""
    low = accumulation().low_precision
    for name in accumulated:
        literals = part.declared.get(name)
        if literals is None or not low.isdisjoint(literals) or BY_NAME in literals or low_default():
            return True
    return False


def _low_precision_sum(used: UsedNames, view: "RuleView") -> bool:
    # the accumulator's dtype is only ever judged from a string literal ("float16"), written
    # in the declaration or bound to the name the declaration gives (`dtype = "float16"`).
    # By the module's declarations together (`UsedNames` holds them by name, not one by one):
    # a buffer every declaration of which gives another dtype literal is left out, even where
    # one of them gives a name instead (the cheap stage would then miss it; the ecosystem
    # trees' float16 files give the same findings with it on and off)
    if not uses_trigger(used, view):
        return False
    knowledge = view.knowledge
    sums = sum_apis(knowledge.version)
    if used.strings.isdisjoint(accumulation().low_precision):
        # no low-precision literal here: only a parameter that calls in other modules give
        # can be low (ArgumentWait). A module under TVM's own packages is never given one:
        # a call of a TVM function is TVM's API, and no call site of it is followed
        if used.module_name.partition(".")[0] in roots_of(knowledge):
            return False
        # nor is a test module's kernel builder: tests call their own
        if harness().is_test_module(used.module_name):
            return False
        # (a kernel builder's dtype parameter, by its name: `dtype`, `out_dtype`, `accum_dtype`;
        # or another module's constant the module imports, `from config import *`: ConstantWait)
        if not (any("dtype" in name for name in used.identifiers) or used.imports_from_outside(roots_of(knowledge))):
            return False
        by_name = any(BY_NAME in literals for _, literals in used.declared.items())
        return by_name and (used.uses_any(sums) or bool(used.accumulated))
    return used.uses_any(sums) or _may_accumulate_low(used.accumulated, used)


WANTS: Dict[str, Callable[[UsedNames, "RuleView"], bool]] = {
    "gives_argument": _gives_argument,
    "unknown_config_key": _unknown_config_key,
    "api_history": _api_history,
    "build_tuple_unpacked": _build_tuple_unpacked,
    "level_literal_out_of_range": _level_literal_out_of_range,
    "created_outside_with": _created_outside_with,
    "sequential_given_level": _sequential_given_level,
    "low_precision_sum": _low_precision_sum,
}


def _sum_in_function(function: UsedNames, module: UsedNames, knowledge: Knowledge) -> bool:
    # Findings are a block's or a te.sum's in the function, and a function's declarations
    # are seen only inside it: a function with no sum, and no block adding into a buffer
    # that may be low-precision by the function's own declarations (`_may_accumulate_low`),
    # holds none, unless the module computes tensors (below). (Whether a test builds the
    # kernel, and what a dtype name is bound to, are read from the whole original text:
    # blanking never changes them.)
    if function.uses_any(sum_apis(knowledge.version)):
        return True
    if module.uses_any(compute_apis(knowledge.version)):
        # a module that computes tensors may give one a function's return value as its dtype
        # (`te.compute(shape, decode_func)`, a decode helper it calls): any function may count
        return True
    return _may_accumulate_low(function.accumulated, function)


def _sum_in_body(statement: UsedNames, module: UsedNames, knowledge: Knowledge) -> bool:
    # blanked, a statement also takes its declarations with it, and another of the same name
    # (a parameter's annotation) would give the dtype: one that may declare a buffer or tensor stays
    return _sum_in_function(statement, module, knowledge) or statement.uses_any(_declaring(knowledge.version))


# name -> (whether a nested function may hold a finding, whether a statement in a kept
# function's body may); each given (the part, the whole module's names, the knowledge).
# A rule says False only when its findings in a function come from that function alone,
# judged by what the function or the scopes around it declare, and no finding elsewhere
# depends on the function.
INNER: Dict[str, Tuple[Callable[[UsedNames, UsedNames, Knowledge], bool], ...]] = {
    "low_precision_sum": (_sum_in_function, _sum_in_body),
}


def _gated_above_default(tree: ast.Module, knowledge: Knowledge, text: str) -> bool:
    # no pass this release gates sits above the default level (0.27: all at 0 or 1), and the
    # module writes no level above it for a pass or a Sequential of its own
    default = lowest_default_level(knowledge)
    if highest_gated_level(knowledge) > default:
        return False
    positions = level_positions(knowledge)
    if text.isascii() and not any(name in text for name in positions):
        return True  # no decorator or Sequential of its own, nor an alias made from one's name
    return all(level <= default for level in literal_levels(tree, positions))


LOW: Dict[str, Callable[[ast.Module, Knowledge, str], bool]] = {
    "gated_above_default": _gated_above_default,
}
