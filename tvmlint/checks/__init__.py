"""The checks: one module per rule (or per small family), found by discovery.

A module defines one or more `tvmlint.checks.rule.Rule` subclasses; adding a rule
means adding a module here and its docs in rules/catalog/.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from typing import Dict, Optional, Type

from tvmlint.checks.rule import Rule

# the modules here that say what a rule is, or what a family of rules shares, rather than being one
_FRAMEWORK = frozenset({"rule", "prefilter_spec", "api_usage", "context_args", "words", "confirmation", "live_tree",
                        "finding_subject"})


@functools.lru_cache(maxsize=None)
def all_rules() -> Dict[str, Type[Rule]]:
    found: Dict[str, Type[Rule]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name in _FRAMEWORK:
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Rule) and value is not Rule and value.__module__ == module.__name__:
                found[value.code] = value
    return dict(sorted(found.items()))


def confirming_rules() -> Dict[str, Type[Rule]]:
    """The rules `check --confirm` can check against the installed TVM: those that write a `confirm`."""
    return {code: rule for code, rule in all_rules().items() if rule.confirm.__func__ is not Rule.confirm.__func__}


def rule_of(code: str) -> Optional[Type[Rule]]:
    """The rule of `code`, loading its module alone (named for the code, as
    checks/tvm002_unused_noqa.py): a run that needs one rule does not load every check."""
    if all_rules.cache_info().currsize:
        return all_rules().get(code)
    prefix = code.lower() + "_"
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name.startswith(prefix):
            module = importlib.import_module(f"{__name__}.{module_info.name}")
            for _, value in inspect.getmembers(module, inspect.isclass):
                if issubclass(value, Rule) and getattr(value, "code", None) == code:
                    return value
    return None
