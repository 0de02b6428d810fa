"""What the selected rules of a run need of a file, asked of the stdlib parser's view of it.

libcst costs about ten times the stdlib `ast` parser, and most files of a large tree
cannot hold a finding. A `Selection` holds the selected rules' specs at one release
(`tvmlint.prefilter.view`) and answers, a step at a time and cheapest first: does the
text hold a word any rule asks for; can the module (its imports and the attribute chains
its text spells, `tvmlint.analysis.reach`) use a name one needs; and, once the names it
uses are resolved through its imports the way `tvmlint.analysis.module` does (but
over-approximating: every binding in every scope counts), which rules want it. A rule
whose spec says nothing wants any module that uses a TVM name, so a new rule is never
starved. It never imports or runs the code it reads.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

from tvmlint.analysis.reach import Reach
from tvmlint.analysis.used_names import UsedNames, call_arguments, roots_of
from tvmlint.knowledge.harness import harness
from tvmlint.prefilter.view import RuleView, view_of

PARSE_ERROR = "TVM001"
_UNITS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Selection:
    """What the selected rules of one run need from the cheap stage, computed once."""

    def __init__(self, rules: Iterable[type], knowledge):
        self.knowledge = knowledge
        self.roots = roots_of(knowledge)
        self.rules: List[RuleView] = [view_of(rule, knowledge) for rule in rules if rule.code != PARSE_ERROR]
        # Modules that define passes with TVM's decorators tell the project which pass names
        # exist, for the rules that judge names (Prefilter.reads_defined_passes, tvmlint.analysis.project).
        # This stage reads every such module's names from its tree (`defined_passes`); a
        # module's own definitions are also kept for its analysis when such a rule runs on it.
        self.readers = [rule for rule in self.rules if rule.reads_defined_passes]
        self.decorators: FrozenSet[str] = frozenset(knowledge.decorators) if self.readers else frozenset()
        # a module that defines passes is read for their names: its decorators count
        tokens: Set[str] = {name.rsplit(".", 1)[-1] for name in self.decorators}
        for rule in self.rules:
            tokens.update(rule.tokens)
        self.tokens: FrozenSet[str] = frozenset(tokens)
        self._patterns = [
            (rule.code, re.compile(pattern)) for rule in self.rules
            for pattern in [rule.text_pattern] if pattern is not None
        ]
        self._outside = [
            (rule.code, re.compile(pattern)) for rule in self.rules
            for pattern in [rule.text_pattern_outside_tvm] if pattern is not None
        ]
        self._reaches: Dict[FrozenSet[str], Optional[Reach]] = {}
        self.reach = self._reach_without(frozenset())
        # methods of TVM's objects (`x.asnumpy()`): their text in a module that uses TVM is enough
        self._methods = [
            re.compile(pattern) for rule in self.rules for pattern in [rule.method_pattern] if pattern
        ]
        self._roots_reach = Reach(self.roots, knowledge.star_reexports) if self._methods else None

    def _reach_without(self, out: FrozenSet[str]) -> Optional[Reach]:
        """The question for the rules not in `out` (None when nothing is left to look for)."""
        if out not in self._reaches:
            targets: Set[str] = set(self.decorators)
            for rule in self.rules:
                if rule.code not in out:
                    names = rule.triggers
                    targets |= self.roots if names is None else names  # none: any module using TVM
            # every rule's `wants` asks for one of its triggers or a name under one (a history entry)
            self._reaches[out] = Reach(targets, self.knowledge.star_reexports) if targets else None
        return self._reaches[out]

    def may_want(self, tree: Optional[ast.Module], text: str, module_name: str, is_package: bool) -> bool:
        """Whether a selected rule may want a module (or it may define passes): its text holds a
        token, and the module can use a name of a rule whose text pattern it matches. Without
        the parser's tree (None) the text's imports answer: False only where the tree's would."""
        if not self.text_may_need(text, module_name):
            return False
        if self._roots_reach is not None and any(pattern.search(text) for pattern in self._methods):
            uses_tvm = (self._roots_reach.may_use_text(text, module_name, is_package) if tree is None
                        else self._roots_reach.may_use(tree, text, module_name, is_package))
            if uses_tvm:
                return True
        out = frozenset(code for code, pattern in self._patterns if pattern.search(text) is None)
        if out and self._outside and module_name.split(".")[0] not in self.roots and not harness().is_test_module(module_name):
            out -= {code for code, pattern in self._outside if code in out and pattern.search(text)}
        reach = self._reach_without(out) if out else self.reach
        if reach is None:
            return False
        if tree is None:
            return reach.may_use_text(text, module_name, is_package)
        return reach.may_use(tree, text, module_name, is_package)

    def text_may_need(self, text: str, module_name: str) -> bool:
        if not self.rules:
            return False
        if module_name.split(".")[0] in self.roots:
            return True  # relative imports inside TVM's own package name no root
        return any(token in text for token in self.tokens)

    def wanted(self, used: UsedNames) -> bool:
        return any(rule.wants(used) for rule in self.rules)

    def wanting(self, used: UsedNames) -> FrozenSet[str]:
        """The codes of the rules that can fire in a module: the others need not even run on it."""
        return frozenset(rule.code for rule in self.rules if rule.wants(used))

    def awaits_low_context(self, used: UsedNames, tree: ast.Module, text: str) -> bool:
        """Whether every rule that wants a module can only fire in it under a context written
        below the default level (`Prefilter.low_context`): the run asks for it again when a
        file of it writes one that can reach it (`tvmlint.run.low_contexts`)."""
        wanting = [rule for rule in self.rules if rule.wants(used)]
        return bool(wanting) and all(rule.needs_low_context(tree, text) for rule in wanting)

    def inner_judges(self, module: UsedNames) -> List[RuleView]:
        """The rules that decide what inside a module's kept definitions can go: those that
        want it (a rule that reads definitions wants the module, and its hooks keep everything)."""
        return [rule for rule in self.rules if rule.wants(module)]

    def function_may_hold(self, function: UsedNames, module: UsedNames, judges: List[RuleView]) -> bool:
        """Whether a function nested in a kept definition may hold a finding of one of `judges`
        (`Prefilter.inner`), or matter to one elsewhere."""
        if function.binds:
            return True  # an import in it may bind a name the analysis resolves elsewhere
        return any(rule.may_hold_in_function(function, module) for rule in judges)

    def statement_may_matter(self, statement: UsedNames, module: UsedNames, judges: List[RuleView]) -> bool:
        """Whether a statement of a kept function (or of a loop or `if` in it) may hold a finding
        of one of `judges`, or declare what one depends on (`Prefilter.inner`)."""
        if statement.binds:
            return True
        return any(rule.may_matter_in_body(statement, module) for rule in judges)

    def follows_named(self, used: UsedNames) -> bool:
        """Whether a rule that wants these names reads what the definitions they name do
        (Prefilter.reads_named_definitions)."""
        return any(rule.reads_named_definitions and rule.wants(used) for rule in self.rules)

    def keeps_callers(self, used: UsedNames) -> bool:
        """Whether a rule that wants the module reads what its calls pass (Prefilter.reads_callers)."""
        return any(rule.reads_callers and rule.wants(used) for rule in self.rules)

    def pass_definers(self, used: UsedNames) -> FrozenSet[str]:
        """The decorators whose definitions a module's analysis must keep: all of them when a
        rule that reads them runs on it."""
        if any(rule.wants(used) for rule in self.readers):
            return self.decorators
        return frozenset()

    def defined_passes(self, tree: ast.Module, used: UsedNames) -> FrozenSet[str]:
        """The pass names a module defines with TVM's decorators, when a selected rule reads
        them: what `tvmlint.analysis.module` records, read from this stage's tree, so that no module
        is analysed only for its names. A decorator's literal `name=`, else the name of the
        function or class it decorates; a call `module_pass(f, ..., name="X")` counts with
        a literal name only. A name given by an expression is no name."""
        calls = [
            (call, self.knowledge.decorators[api])
            for api in self.decorators for call in used.calls_to.get(api, ())
        ]
        if not calls:
            return frozenset()
        decorating = {
            id(decorator): unit.name
            for unit in ast.walk(tree) if isinstance(unit, _UNITS)
            for decorator in unit.decorator_list if isinstance(decorator, ast.Call)
        }
        names: Set[str] = set()
        for call, spec in calls:
            default = decorating.get(id(call))
            if default is not None:
                params = tuple(param for param in spec.params if param != "pass_func")
            elif call.args and not isinstance(call.args[0], ast.Starred):
                params = spec.params
            else:
                continue  # `module_pass(opt_level=1)` not decorating: its pass is made elsewhere
            given = call_arguments(call, params)[0].get("name")
            if given is None:
                name = default
            else:
                name = given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else None
            if name:
                names.add(name)
        return frozenset(names)
