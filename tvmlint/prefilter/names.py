"""What the names in a `Prefilter` spec stand for: sets of TVM names and text patterns, read
from the knowledge tables of a release (never listed by hand, so a new release needs no
change here). Each is worked out once per rule and release (`tvmlint.prefilter.view`).
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Dict, FrozenSet, Optional, Tuple

from tvmlint.base.versions import in_range, parse_version
from tvmlint.knowledge.api_history import get_history
from tvmlint.knowledge.nnvm import nnvm
from tvmlint.knowledge.numerics import (
    accumulation,
    fast_math,
    fast_math_builds,
    sum_apis,
    tvmscript_namespaces,
)
from tvmlint.knowledge.target import Knowledge, pass_levels

# name -> (knowledge, the rule's code) -> the set
NameSet = Callable[[Knowledge, str], FrozenSet[str]]


@functools.lru_cache(maxsize=None)
def renamed_keyword_apis(version) -> FrozenSet[str]:
    """The APIs one of whose keywords the release has renamed (api_history's [[keyword]])."""
    return frozenset(api for api, rows in get_history().keywords.items()
                     if any(version >= parse_version(k.removed) for k in rows))


@functools.lru_cache(maxsize=None)
def history_methods(version) -> Tuple[str, ...]:
    """The [[method]] names the history says something about at `version`."""
    return tuple(name for name, method in get_history().methods.items() if method.status(version))


def _history(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    version = knowledge.version
    return frozenset(s.old for s in get_history().symbols if s.status(version) is not None) | renamed_keyword_apis(version)


def _build_tuple(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    table = get_history().build_tuple
    if table is None or not in_range(knowledge.version, table.deprecated, table.removed):
        return frozenset()
    return frozenset(table.api)


def _holds(members, name: str) -> bool:
    return any(member.name == name or _holds(member.members, name) for member in members)


def fast_math_pipelines(knowledge: Knowledge, code: str = "") -> FrozenSet[str]:
    """Runners whose pipeline holds FastMath, and passes that are or hold it (a Sequential the
    file builds holds FastMath only if the file names one of them)."""
    name = fast_math().pass_name
    runners = {api for api, runner in knowledge.runners.items() if any(m.name == name for m in runner.runs)}
    wrappers = {api for api, spec in knowledge.passes_by_api.items() if spec.name == name or _holds(spec.members, name)}
    return frozenset(runners | wrappers)


def _fast_math_builds(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    # the config key acts on builds
    return fast_math_builds(knowledge.version)


def _gated_wrappers(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    # a pass whose members are all at the lowest level runs them whatever the level (LowerTIRx)
    lowest = pass_levels()[0]
    return frozenset(
        api for api, spec in knowledge.passes_by_api.items()
        if any(member.highest_level > lowest for member in spec.members)
    )


def _reporting_runners(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    return knowledge.runner_apis(code)


def _reporting_executors(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    return frozenset(api for api, kinds in knowledge.executors.items()
                     if any(runner.report == code for runner, _ in kinds.values()))


def _tvmscript_inits(knowledge: Knowledge, code: str) -> FrozenSet[str]:
    return frozenset(f"{namespace}.init" for namespace in tvmscript_namespaces())




NAME_SETS: Dict[str, NameSet] = {
    "context_factories": lambda knowledge, code: frozenset(knowledge.context_factories),
    "scope_objects": lambda knowledge, code: frozenset(knowledge.scope_objects),
    "sequential_classes": lambda knowledge, code: frozenset(knowledge.sequential_classes),
    "api_history": _history,
    "history_methods": lambda knowledge, code: frozenset(history_methods(knowledge.version)),
    "build_tuple": _build_tuple,
    "fast_math_pipelines": fast_math_pipelines,
    "fast_math_builds": _fast_math_builds,
    "gated_wrappers": _gated_wrappers,
    "reporting_runners": _reporting_runners,
    "reporting_executors": _reporting_executors,
    "tvmscript_inits": _tvmscript_inits,
    "te_sum": lambda knowledge, code: sum_apis(knowledge.version),
    "nnvm_build_config": lambda knowledge, code: nnvm().build_config_apis,
    "nnvm_opt_pass_level": lambda knowledge, code: nnvm().opt_pass_level_apis,
}


def _low_precision_literal(knowledge: Knowledge) -> Optional[str]:
    # libcst reads a string's value with its escapes undone (`"\x66loat16"`), so an escape
    # that can spell a letter counts too
    low = accumulation().low_precision_order
    return "|".join([*map(re.escape, low), r"\\[xuUN0-7]"])


def _history_method_call(knowledge: Knowledge) -> Optional[str]:
    names = history_methods(knowledge.version)
    return r"\.\s*(?:" + "|".join(sorted(names)) + r")\s*\(" if names else None


def _fast_math_config_true(knowledge: Knowledge) -> Optional[str]:
    # Where no pipeline of the target holds FastMath, only a config that sets the key to True
    # can report, and the analysis takes both from a dict literal: `"<key>": True`, maybe with
    # a prefix on the string, comments, line breaks or parentheses in between.
    key = fast_math().config_key
    if key is None or fast_math_pipelines(knowledge):
        return None
    gap = r"(?:\s|#[^\n]*|\\)*"
    return re.escape(key) + r"['\"]" + gap + ":" + r"(?:\s|#[^\n]*|\\|\()*" + r"True\b"


# name -> knowledge -> a regular expression (None: no pattern at this release)
PATTERNS: Dict[str, Callable[[Knowledge], Optional[str]]] = {
    "low_precision_literal": _low_precision_literal,
    # a name holding "dtype" (`def gemm(n, out_dtype)`): a parameter calls in other modules may give
    "dtype_name": lambda knowledge: "dtype",
    "history_method_call": _history_method_call,
    "fast_math_config_true": _fast_math_config_true,
}
