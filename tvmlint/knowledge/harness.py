"""rules/harness.toml: how test runners call code nothing else calls by name."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import FrozenSet, Tuple

from tvmlint.knowledge.location import rules_dir
from tvmlint.knowledge.tables import load_from


@dataclass(frozen=True)
class Harness:
    """rules/harness.toml: how test runners call code nothing else calls by name."""

    test_file_prefixes: Tuple[str, ...]
    test_file_suffixes: Tuple[str, ...]
    test_class_prefix: str
    test_function_prefix: str
    unittest_bases: FrozenSet[str]
    unittest_method_prefix: str
    keep_context_decorators: Tuple[str, ...]  # qualified-name prefixes
    harmless_fixtures: FrozenSet[str]
    fixture_decorators: FrozenSet[str]
    parameter_factories: FrozenSet[str]
    raise_with_calls: FrozenSet[str]
    raise_with_methods: FrozenSet[str]
    # [deliberate_skip]: how near a comment must be, and what it must say, for a skip to be on purpose
    skip_lines_above: int
    skip_lines_below: int
    skip_about: Tuple[str, ...]
    skip_says: Tuple[str, ...]

    def says_skip_on_purpose(self, comments: str, skipped_names) -> bool:
        """Whether comment text speaks of the level (or a skipped pass) and says something does not run."""
        text = comments.lower()
        about = any(word in text for word in self.skip_about) or any(n.lower() in text for n in skipped_names)
        return about and any(word in text for word in self.skip_says)

    def is_test_module(self, module_name: str) -> bool:
        stem = module_name.rpartition(".")[2]
        return stem.startswith(self.test_file_prefixes) or stem.endswith(self.test_file_suffixes)

    def keeps_context(self, decorator: str) -> bool:
        return decorator.startswith(self.keep_context_decorators)


def harness() -> Harness:
    return _harness(str(rules_dir()))


@functools.lru_cache(maxsize=None)
def _harness(directory: str) -> Harness:
    raw = load_from(directory, "harness.toml")
    pytest, unittest, fixtures, raises = raw["pytest"], raw["unittest"], raw["fixtures"], raw["expect_raise"]
    deliberate = raw["deliberate_skip"]
    return Harness(
        tuple(pytest["file_prefixes"]), tuple(pytest["file_suffixes"]),
        pytest["class_prefix"], pytest["function_prefix"],
        frozenset(unittest["bases"]), unittest["method_prefix"],
        tuple(raw["decorators"]["keep_context"]),
        frozenset(fixtures["harmless"]), frozenset(fixtures["decorators"]),
        frozenset(fixtures["parameters"]),
        frozenset(raises["with_calls"]), frozenset(raises["with_methods"]),
        int(deliberate["lines_above"]), int(deliberate["lines_below"]),
        tuple(deliberate["about"]), tuple(deliberate["says_skipped"]),
    )
