"""One rule's spec read at one release: what the wing asks of a file for that rule.

The only code that reads `Rule.prefilter` (tests/test_layout.py holds it to that). What
the spec names is worked out once per rule and release; the per-file questions
(`wants`, `may_hold_in_function`, ...) then cost one predicate call.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Optional, Tuple

from tvmlint.analysis.used_names import UsedNames, roots_of
from tvmlint.checks.prefilter_spec import Prefilter
from tvmlint.knowledge.target import Knowledge
from tvmlint.prefilter.names import NAME_SETS, PATTERNS
from tvmlint.prefilter.predicates import INNER, LOW, WANTS, uses_trigger


class RuleView:
    """`rule.prefilter` at `knowledge`'s release."""

    def __init__(self, rule: type, knowledge: Knowledge):
        spec: Prefilter = rule.prefilter
        self.code: str = rule.code
        self.spec = spec
        self.knowledge = knowledge
        self.reads_defined_passes = spec.reads_defined_passes
        self.reads_callers = spec.reads_callers
        self.reads_named_definitions = spec.reads_named_definitions
        # TVM qualified names one of which a module must use; None: any TVM name
        self.triggers: Optional[FrozenSet[str]] = (
            None if spec.triggers is None
            else frozenset().union(*(NAME_SETS[name](knowledge, self.code) for name in spec.triggers))
        )
        # words one of which a file's text must hold (the text pre-filter)
        if self.triggers is None:
            tokens = roots_of(knowledge)
        else:
            tokens = frozenset(name.rsplit(".", 1)[-1] for name in self.triggers)
        self.tokens: FrozenSet[str] = tokens.union(*(NAME_SETS[name](knowledge, self.code) for name in spec.tokens))
        self.text_pattern = self._pattern(spec.text_pattern)
        self.text_pattern_outside_tvm = self._pattern(spec.text_pattern_outside_tvm)
        self.method_pattern = self._pattern(spec.method_pattern)
        self.project_pattern = self._pattern(spec.project_pattern)
        self._wants = WANTS[spec.wants] if spec.wants is not None else uses_trigger
        self._inner = INNER[spec.inner] if spec.inner is not None else None
        self._low = LOW[spec.low_context] if spec.low_context is not None else None

    def _pattern(self, name: Optional[str]) -> Optional[str]:
        return None if name is None else PATTERNS[name](self.knowledge)

    def wants(self, used: UsedNames) -> bool:
        """Whether the libcst analysis must see a module for this rule, given the names it uses."""
        return self._wants(used, self)

    def may_hold_in_function(self, function: UsedNames, module: UsedNames) -> bool:
        """Whether a function nested in a definition may hold a finding of this rule (False
        lets `tvmlint.prefilter.prune` blank it)."""
        return True if self._inner is None else self._inner[0](function, module, self.knowledge)

    def may_matter_in_body(self, statement: UsedNames, module: UsedNames) -> bool:
        """Whether a statement in a kept function's body may hold a finding of this rule, or
        declare something one depends on."""
        return True if self._inner is None else self._inner[1](statement, module, self.knowledge)

    def needs_low_context(self, tree: ast.Module, text: str) -> bool:
        """Whether every finding of this rule in a module needs a context written below the
        default level (`tvmlint.run.low_contexts`)."""
        return False if self._low is None else self._low(tree, self.knowledge, text)


_VIEWS: Dict[Tuple[type, Knowledge], RuleView] = {}


def view_of(rule: type, knowledge: Knowledge) -> RuleView:
    """`RuleView(rule, knowledge)`, made once per process."""
    key = (rule, knowledge)
    found = _VIEWS.get(key)
    if found is None:
        found = _VIEWS[key] = RuleView(rule, knowledge)
    return found
