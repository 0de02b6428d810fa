"""The installed TVM as a rule's confirmation sees it (`checks.confirmation.LiveTVM`).

Built on the registry snapshot and a way to ask the child (`Confirmer.run`, which owns the
session); the runs it makes are cached for the whole `check --confirm`, and a run TVM gives
no answer to becomes the rules' `NoAnswer`.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set

from tvmlint.analysis.contexts import PassCtx, and_list
from tvmlint.base.diagnostics import Finding
from tvmlint.base.versions import Version, format_version
from tvmlint.checks.confirmation import LiveTVM, NoAnswer, RegisteredPass, Verdict
from tvmlint.companion import CompanionError
from tvmlint.companion.registry import Snapshot, build_recipe
from tvmlint.knowledge.api_history import get_history
from tvmlint.knowledge.target import get_knowledge

# Why a finding could not be confirmed, when the same reason holds for many: said once for
# all of them (companion/options.py), not under every finding
NO_RELAY = "no Relay"  # the installed TVM has none
NOT_CHECKABLE = "not checkable"  # a rule that writes no confirmation
OTHER_RELEASE = "other release"  # the finding is about another release than the installed one


def relay_removed() -> str:
    """The release that dropped tvm.relay, from rules/api_history.toml."""
    for symbol in get_history().by_old.get("tvm.relay", ()):
        if symbol.removed:
            return f"removed in {symbol.removed}"
    return "removed"


class Live(LiveTVM):
    # what is not LiveTVM's is private: a rule sees the installed TVM's facts, not how they are had
    def __init__(self, snapshot: Snapshot, ask: Callable[[dict], dict],
                 target_for: Callable[[Finding], Optional[Version]]):
        self._snapshot = snapshot
        self._child = ask
        self._target_for = target_for
        self._probes: Dict[str, dict] = {}
        self._runs: Dict[str, object] = {}

    @property
    def tvm(self) -> str:
        return f"TVM {self._snapshot.version}"

    @property
    def passes(self) -> Sequence[RegisteredPass]:
        return self._snapshot.passes

    @property
    def by_name(self) -> Mapping[str, RegisteredPass]:
        return self._snapshot.by_name

    @property
    def configs(self) -> Mapping[str, str]:
        return self._snapshot.configs

    def _ask(self, request: dict) -> dict:
        try:
            return self._child(request)
        except CompanionError as error:
            raise NoAnswer(str(error)) from error

    # -- what the installed TVM cannot speak to ----------------------------------------
    def target(self, finding: Finding) -> Optional[Version]:
        facts = finding.facts or {}
        return facts.get("target") or self._target_for(finding)

    def other_release(self, finding: Finding) -> Optional[Verdict]:
        target, live = self.target(finding), self._snapshot.release
        if target is None or live is None or target == live:
            return None
        return Verdict(None, f"the finding is about TVM {format_version(target)}; the installed {self.tvm} cannot speak for that release",
                       said_once=OTHER_RELEASE)

    def _no_relay(self, names: Iterable[str], target: Optional[Version]) -> Optional[Verdict]:
        if self._snapshot.has_relay or target is None:
            return None
        shown = sorted(set(names) & relay_names(target))
        if not shown:
            return None
        return Verdict(
            None,
            f"the installed {self.tvm} has no Relay ({relay_removed()}), so it cannot check "
            f"{and_list(shown)}; install the TVM release you target (or use --tvm-python) to confirm",
            said_once=NO_RELAY,
        )

    def cannot_speak(self, finding: Finding, names: Iterable[str]) -> Optional[Verdict]:
        return self._no_relay(names, self.target(finding)) or self.other_release(finding)

    # -- runs in the installed TVM -------------------------------------------------------
    def config_error(self, key: str, value: object) -> Optional[str]:
        answer = self._ask({"op": "config", "items": [[key, value]]})["results"][0]
        return answer.get("error", "") if answer["raised"] else None

    def can_probe(self, api: str) -> bool:
        from tvmlint.companion.probes import PROBES

        return api in PROBES

    def probe(self, api: str, ctx: PassCtx, levels: Sequence[int]) -> List[bool]:
        settings = [_setting(ctx, level) for level in levels]
        request = {"op": "probe", "api": api, "build": build_recipe(api), "settings": settings}
        key = repr(request)
        if key not in self._probes:
            self._probes[key] = self._ask(request)
        return [row["changed"] for row in self._probes[key]["results"]]

    def instrumented(self, api: Optional[str], members: Sequence[str], ctx: PassCtx):
        from tvmlint.companion.pipeline import Setting, checked, request

        asked = request(api or "sequential", Setting(ctx.opt_level, ctx.required or (), ctx.disabled or ()), members=members)
        key = repr(asked)
        if key not in self._runs:
            answer = self._ask(asked)
            try:
                self._runs[key] = checked(answer)
            except CompanionError as error:
                raise NoAnswer(str(error)) from error
        return self._runs[key]


def _setting(ctx: PassCtx, level: int) -> dict:
    return {"opt_level": level, "required": sorted(ctx.required or ()), "disabled": sorted(ctx.disabled or ())}


def relay_names(target: Version) -> Set[str]:
    """Every pass name the tables give a tvm.relay API at `target`, members included."""
    names: Set[str] = set()
    knowledge = get_knowledge(target)

    def collect(members):
        for member in members:
            names.add(member.name)
            collect(member.members)

    for api, spec in knowledge.passes_by_api.items():
        if api.startswith("tvm.relay."):
            names.add(spec.name)
            collect(spec.members)
    for api in knowledge.runners:
        if api.startswith("tvm.relay."):
            collect(knowledge.what_runs(api).runs)
    return names
