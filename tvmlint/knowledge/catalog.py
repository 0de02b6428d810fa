"""The rule catalog: rules/catalog/TVMnnn.toml, one file per rule.

Each file holds the rule's metadata and its documentation (what it does, why it
is bad, an example, what to use instead). The docs are data so that
`tvmlint rule`, SARIF and the language server can serve them without importing
the checks.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional

from tvmlint.knowledge.location import rules_dir
from tvmlint.knowledge.tables import load_toml

SEVERITIES = ("error", "warning", "info")
# when a rule judges: while a module is analysed, or after a run's noqa step has suppressed
# findings, from the directives and what they suppressed (TVM002); the runner reads this
# without loading the checks
STAGES = ("analysis", "noqa")
# ruff's two axes of a rule's fix: whether its findings come with one (ruff's FixAvailability,
# whose None is "never" here), and whether `fix` applies it unasked or only with --unsafe-fixes
# (ruff's applicability); "mixed": some findings' fixes are safe and others' unsafe
FIX_AVAILABILITY = ("always", "sometimes", "never")
FIX_SAFETY = ("safe", "unsafe", "mixed")
DOCS_URL = "https://github.com/tvmlint/tvmlint/blob/main/rules/catalog/{code}.toml"


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    default: bool  # selected when the user selects nothing
    fix_availability: str  # FIX_AVAILABILITY
    fix_safety: Optional[str]  # FIX_SAFETY; None where no fix is ever offered
    summary: str
    what: str
    why: str
    example: str
    instead: str
    # the kind of mistake it finds, which recall is measured per (rules/catalog/README: gating,
    # api, settings, float16, names; tool for the linter's own)
    family: str = "tool"
    stage: str = "analysis"  # one of STAGES

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code)

    @property
    def fix_sentence(self) -> str:
        """The two axes as the rule's page says them."""
        if self.fix_availability == "never":
            return "never available"
        safety = {
            "safe": "safe: `tvmlint fix` applies it",
            "unsafe": "unsafe: applied only with `--unsafe-fixes`",
            "mixed": "safe for some findings, unsafe for others (`--unsafe-fixes`)",
        }[self.fix_safety or ""]
        return f"{self.fix_availability} available, {safety}"

    def render_markdown(self) -> str:
        return (
            f"# {self.code} {self.name}\n\n"
            f"Severity: {self.severity}. Selected by default: {'yes' if self.default else 'no'}. "
            f"Fix: {self.fix_sentence}.\n\n"
            f"## What it does\n{self.what.strip()}\n\n"
            f"## Why is this bad?\n{self.why.strip()}\n\n"
            f"## Example\n```python\n{self.example.strip()}\n```\n\n"
            f"## Use instead\n```python\n{self.instead.strip()}\n```\n"
        )


@functools.lru_cache(maxsize=None)
def _load(directory: str) -> Dict[str, RuleInfo]:
    from pathlib import Path

    catalog: Dict[str, RuleInfo] = {}
    for path in sorted((Path(directory) / "catalog").glob("TVM*.toml")):
        raw = load_toml(path)
        info = RuleInfo(
            code=raw["code"],
            name=raw["name"],
            severity=raw["severity"],
            default=bool(raw.get("default", True)),
            fix_availability=raw["fix_availability"],
            fix_safety=raw.get("fix_safety"),
            summary=raw["summary"],
            what=raw.get("what", ""),
            why=raw.get("why", ""),
            example=raw.get("example", ""),
            instead=raw.get("instead", ""),
            family=raw.get("family", "tool"),
            stage=raw.get("stage", "analysis"),
        )
        if info.severity not in SEVERITIES:
            raise ValueError(f"{path}: severity must be one of {SEVERITIES}")
        if info.stage not in STAGES:
            raise ValueError(f"{path}: stage must be one of {STAGES}")
        if info.fix_availability not in FIX_AVAILABILITY:
            raise ValueError(f"{path}: fix_availability must be one of {FIX_AVAILABILITY}")
        if (info.fix_safety is None) != (info.fix_availability == "never"):
            raise ValueError(f"{path}: fix_safety is given exactly when a fix is available ({FIX_SAFETY})")
        if info.fix_safety is not None and info.fix_safety not in FIX_SAFETY:
            raise ValueError(f"{path}: fix_safety must be one of {FIX_SAFETY}")
        catalog[info.code] = info
    return catalog


def load_catalog() -> Dict[str, RuleInfo]:
    return _load(str(rules_dir()))


def rule_info(code: str) -> RuleInfo:
    return load_catalog()[code]


def judged_after_noqa() -> FrozenSet[str]:
    """The codes whose rule judges after the noqa step (`stage = "noqa"`)."""
    return frozenset(code for code, info in load_catalog().items() if info.stage == "noqa")
