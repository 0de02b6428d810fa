"""`check --confirm`: each finding checked against the installed TVM.

A verdict (`checks.confirmation.Verdict`) is True (TVM agrees), False (TVM contradicts
the table the finding rests on: the finding is dropped and listed) or None (the installed
TVM cannot speak to it), always with the reason. Each rule confirms its own findings
(its `confirm` classmethod, found through the rules table); this side holds the child
session, and gathers the findings that are unconfirmable for one reason, to say it once.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from tvmlint.analysis.contexts import and_list
from tvmlint.base.diagnostics import Finding
from tvmlint.base.versions import Version
from tvmlint.checks import confirming_rules
from tvmlint.checks.confirmation import NoAnswer, Verdict
from tvmlint.companion import CompanionError
from tvmlint.companion.live import NOT_CHECKABLE, Live
from tvmlint.companion.process import ChildSession
from tvmlint.companion.registry import Snapshot


class Confirmer:
    def __init__(
        self,
        snapshot: Snapshot,
        python: str,
        timeout: float,
        target_for: Callable[[Finding], Optional[Version]] = lambda finding: None,
    ):
        self.snapshot = snapshot
        self.python = python
        self.timeout = timeout
        self.session = ChildSession(python, timeout)
        self._broken: Optional[str] = None
        self.live = Live(snapshot, self.run, target_for)
        # findings the installed TVM could not check, by a reason said once for all (Verdict.said_once)
        self.unchecked: Dict[str, List[Finding]] = {}

    @property
    def tvm(self) -> str:
        return self.live.tvm

    def run(self, request: dict) -> dict:
        # after one hang or crash, the other findings do not wait for TVM again
        if self._broken:
            raise CompanionError(self._broken)
        try:
            return self.session.ask(request)
        except CompanionError as error:
            self._broken = str(error)
            raise

    def verdict(self, finding: Finding) -> Verdict:
        rules = confirming_rules()
        rule = rules.get(finding.code)
        if rule is None:
            return Verdict(None, f"{finding.code} is not a rule the pass registry can check (those are {and_list(sorted(rules))})",
                           said_once=NOT_CHECKABLE)
        try:
            return rule.confirm(finding, self.live)
        except (CompanionError, NoAnswer) as error:
            return Verdict(None, f"the companion could not check it: {error}")

    def confirm_all(self, findings: Sequence[Finding]) -> Tuple[List[Finding], List[Finding]]:
        """(kept findings with their verdicts, refuted findings)."""
        kept: List[Finding] = []
        refuted: List[Finding] = []
        try:
            for finding in findings:
                verdict = self.verdict(finding)
                marked = dataclasses.replace(finding, confirmed=verdict.confirmed, confirmation=verdict.reason)
                (refuted if verdict.confirmed is False else kept).append(marked)
                if verdict.said_once is not None and verdict.confirmed is None:
                    self.unchecked.setdefault(verdict.said_once, []).append(marked)
        finally:
            self.session.close()
        return kept, refuted
