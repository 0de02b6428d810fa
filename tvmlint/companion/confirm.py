"""`check --confirm`: each finding checked against the installed TVM.

A verdict is True (TVM agrees), False (TVM contradicts the table the finding
rests on: the finding is dropped and listed) or None (the installed TVM cannot
speak to it), always with the reason. One function per rule code.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from tvmlint.analysis.contexts import Gated, PassCtx, and_list, gate
from tvmlint.base.diagnostics import Finding
from tvmlint.base.versions import Version, format_version
from tvmlint.companion import CompanionError
from tvmlint.companion.process import ChildSession
from tvmlint.companion.registry import LivePass, Snapshot, build_recipe
from tvmlint.knowledge.api_history import get_history
from tvmlint.knowledge.target import get_knowledge


def relay_removed() -> str:
    """The release that dropped tvm.relay, from rules/api_history.toml."""
    for symbol in get_history().by_old.get("tvm.relay", ()):
        if symbol.removed:
            return f"removed in {symbol.removed}"
    return "removed"


# Why a finding could not be confirmed, when the same reason holds for many: said once for
# all of them (companion/options.py), not under every finding
NO_RELAY = "no Relay"  # the installed TVM has none
NOT_CHECKABLE = "not checkable"  # a rule the pass registry cannot speak to
OTHER_RELEASE = "other release"  # the finding is about another release than the installed one


@dataclass(frozen=True)
class Verdict:
    confirmed: Optional[bool]
    reason: str
    said_once: Optional[str] = None  # NO_RELAY, NOT_CHECKABLE, OTHER_RELEASE: unconfirmable for that reason


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
        self.target_for = target_for
        self._probes: Dict[str, dict] = {}
        self.session = ChildSession(python, timeout)
        self._broken: Optional[str] = None
        self._runs: Dict[str, object] = {}
        # findings the installed TVM could not check, by a reason said once for all (Verdict.said_once)
        self.unchecked: Dict[str, List[Finding]] = {}

    # -- helpers --------------------------------------------------------------------
    @property
    def tvm(self) -> str:
        return f"TVM {self.snapshot.version}"

    def target(self, finding: Finding) -> Optional[Version]:
        facts = finding.facts or {}
        return facts.get("target") or self.target_for(finding)

    def other_release(self, finding: Finding) -> Optional[Verdict]:
        """A finding about another release than the installed one: TVM cannot speak to it."""
        target, live = self.target(finding), self.snapshot.release
        if target is None or live is None or target == live:
            return None
        return Verdict(None, f"the finding is about TVM {format_version(target)}; the installed {self.tvm} cannot speak for that release",
                       said_once=OTHER_RELEASE)

    def no_relay(self, names: Iterable[str], target: Optional[Version]) -> Optional[Verdict]:
        if self.snapshot.has_relay or target is None:
            return None
        relay = relay_names(target)
        shown = sorted(set(names) & relay)
        if not shown:
            return None
        return Verdict(
            None,
            f"the installed {self.tvm} has no Relay ({relay_removed()}), so it cannot check "
            f"{and_list(shown)}; install the TVM release you target (or use --tvm-python) to confirm",
            said_once=NO_RELAY,
        )

    def cannot_speak(self, finding: Finding, names: Iterable[str]) -> Optional[Verdict]:
        """Why the installed TVM cannot judge this finding (no Relay, another release), if it cannot."""
        return self.no_relay(names, self.target(finding)) or self.other_release(finding)

    def run(self, request: dict) -> dict:
        # after one hang or crash, the other findings do not wait for TVM again
        if self._broken:
            raise CompanionError(self._broken)
        try:
            return self.session.ask(request)
        except CompanionError as error:
            self._broken = str(error)
            raise

    # -- entry point ----------------------------------------------------------------
    def verdict(self, finding: Finding) -> Verdict:
        check = CHECKS.get(finding.code)
        if check is None:
            return Verdict(None, f"{finding.code} is not a rule the pass registry can check (those are {and_list(sorted(CHECKS))})",
                           said_once=NOT_CHECKABLE)
        try:
            return check(self, finding)
        except CompanionError as error:
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

    # -- probes ---------------------------------------------------------------------
    def probe(self, api: str, settings: List[dict]) -> List[bool]:
        request = {"op": "probe", "api": api, "build": build_recipe(api), "settings": settings}
        key = repr(request)
        if key not in self._probes:
            self._probes[key] = self.run(request)
        return [row["changed"] for row in self._probes[key]["results"]]

    def instrumented(self, api: Optional[str], members: Sequence[str], ctx: PassCtx):
        """An instrumented run (registry --pipeline's) of a pass, or of a Sequential of passes, at the context."""
        from tvmlint.companion.pipeline import Setting, checked, request

        ask = request(api or "sequential", Setting(ctx.opt_level, ctx.required or (), ctx.disabled or ()), members=members)
        key = repr(ask)
        if key not in self._runs:
            self._runs[key] = checked(self.run(ask))
        return self._runs[key]


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


def literal_at(finding: Finding) -> object:
    """The Python literal the finding points at (a pass name, a config key), read from the file."""
    from tvmlint.base.source import decode, read_file, split_lines

    # read as the check read it: in the file's declared encoding, lines ended as Python ends them
    try:
        source, _why = decode(read_file(finding.path))
    except OSError:
        return None
    lines = split_lines(source.text) if source is not None else []
    start, end = finding.start, finding.end
    if end.line > len(lines):  # changed since it was checked
        return None
    if start.line == end.line:
        text = lines[start.line - 1][start.column - 1 : end.column - 1]
    else:
        text = lines[start.line - 1][start.column - 1 :] + "".join(lines[start.line : end.line - 1])
        text += lines[end.line - 1][: end.column - 1]
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return None


def subject(finding: Finding, key: str) -> Optional[str]:
    facts = finding.facts or {}
    value = facts.get(key)
    if value is None:
        payload = facts.get("payload")
        value = getattr(payload, key, None)
    if value is None:
        value = literal_at(finding)
        if isinstance(value, dict) and len(value) == 1:
            value = next(iter(value))
    return value if isinstance(value, str) else None


def live_gated(live: LivePass, label: Optional[str] = None) -> Gated:
    return Gated(live.name, live.opt_level, tuple(live_gated(m) for m in live.members), label)


def levels(members: Iterable[Gated]) -> str:
    shown = dict.fromkeys(f"{m.name} (opt_level {m.opt_level})" for m in members)  # a pass nested twice, once
    return and_list(shown)


def setting(ctx: PassCtx, level: int) -> dict:
    return {"opt_level": level, "required": sorted(ctx.required or ()), "disabled": sorted(ctx.disabled or ())}


class LiveTree:
    """A finding's pass tree with each registered pass's level and members as the installed TVM has them."""

    def __init__(self, snapshot: Snapshot, target: Optional[Version], members: Tuple[Gated, ...]):
        self.snapshot = snapshot
        self.known = get_knowledge(target).registered_names() if target else frozenset()
        self.missing: List[str] = []  # names tvmlint knows for the target that TVM does not register
        self.from_tvm: Set[str] = set()
        self.tree = self.rebuild(members)

    def rebuild(self, members: Tuple[Gated, ...]) -> Tuple[Gated, ...]:
        out = []
        for member in members:
            if member.label == "Sequential":  # built in the checked code: its own level stands
                out.append(Gated(member.name, member.opt_level, self.rebuild(member.children), member.label))
                continue
            live = self.snapshot.by_name.get(member.name)
            if live is None:
                if member.name in self.known:
                    self.missing.append(member.name)
                out.append(member)  # defined in the checked code
                continue
            self.from_tvm.update(found.name for found in live.walk())
            out.append(live_gated(live, member.label))
        return tuple(out)


# -- TVM101 ----------------------------------------------------------------------------
def confirm_gated(self: Confirmer, finding: Finding) -> Verdict:
    facts = finding.facts or {}
    payload, ctx = facts.get("payload"), facts.get("ctx")
    if payload is None or not isinstance(ctx, PassCtx):
        return Verdict(None, "the finding carries no pass facts to check")
    target = self.target(finding)
    static_skipped = gate(payload.members, ctx) or []
    silent = self.cannot_speak(finding, [s.member.name for s in static_skipped])
    if silent:
        return silent
    live = LiveTree(self.snapshot, target, payload.members)
    if live.missing:
        return Verdict(None, f"the installed {self.tvm} registers no pass named {and_list(sorted(set(live.missing)))}")
    tree, from_tvm = live.tree, live.from_tvm
    skipped = gate(tree, ctx)
    if skipped is None:
        return Verdict(None, "the active context is not fully known")
    by_tvm = [s.member for s in skipped if s.member.name in from_tvm]
    where = f"opt_level {ctx.opt_level}" + (f", required_pass {sorted(ctx.required)}" if ctx.required else "") + (
        f", disabled_pass {sorted(ctx.disabled)}" if ctx.disabled else ""
    )
    if skipped and not by_tvm:
        return Verdict(None, f"the skipped passes ({levels(s.member for s in skipped)}) are defined in the checked code, not registered in TVM")
    if not skipped:
        checked = [s.member.name for s in static_skipped]
        shown = levels(m for m in _flatten(tree) if m.name in checked) or and_list(checked)
        return Verdict(
            False,
            f"the installed {self.tvm} registers {shown}: its gate runs them at {where}; "
            "the table in rules/ is wrong here (`tvmlint registry --verify` lists the difference)",
        )
    reason = f"the installed {self.tvm} registers {levels(by_tvm)}: its Sequential gate skips them at {where}"
    unmentioned = sorted({m.name for m in by_tvm} - {s.member.name for s in static_skipped})
    if unmentioned:  # nested members the table does not gate on their own
        reason += f" ({and_list(unmentioned)} beyond what the message names)"
    ran_anyway, note = _instrument_note(self, payload, ctx, [m.name for m in by_tvm], where)
    if ran_anyway:
        return Verdict(False, note)
    return Verdict(True, reason + note + _probe_note(self, payload, ctx, max(m.opt_level for m in by_tvm), target))


def _instrumented_subject(self: Confirmer, payload) -> Tuple[Optional[str], List[str]]:
    """What to run instrumented for a finding: the wrapper's API path, or the API paths of the members of a
    Sequential the checked code builds (when each is a pass constructor of the installed TVM); else nothing."""
    wrapper = getattr(payload, "wrapper", None)
    if wrapper:
        live = self.snapshot.by_name.get(wrapper)
        api = next((p.api for p in self.snapshot.passes if p.api and not p.error and p.name == wrapper), None)
        return (api, []) if live is not None and api else (None, [])
    apis = []
    for member in payload.members:
        if member.label == "Sequential":
            return None, []
        api = next((p.api for p in self.snapshot.passes if p.api and not p.error and p.name == member.name), None)
        if api is None:
            return None, []
        apis.append(api)
    return None, apis


def _instrument_note(self: Confirmer, payload, ctx: PassCtx, expected: List[str], where: str) -> Tuple[bool, str]:
    """(whether the run contradicts the gate, what to add to the reason): the pass run on tvmlint's own small
    module under a PassInstrument at the finding's context, as `tvmlint registry --pipeline` runs it."""
    api, members = _instrumented_subject(self, payload)
    if api is None and not members:
        return False, ""
    try:
        run = self.instrumented(api, members, ctx)
    except CompanionError as error:
        return False, f" (the instrumented run failed: {error})"
    seen_skipped = set(run.skipped_names())
    ran = {row["name"] for row in run.ran()}
    resolved = run.answer["resolved"]
    shown = resolved if resolved.startswith("tvm.transform.") else resolved.replace("tvm.", "", 1)
    contradicted = sorted(set(expected) & ran - seen_skipped)
    if contradicted:
        return True, (
            f"an instrumented run of {shown} in the installed {self.tvm} at {where} ran {and_list(contradicted)}: "
            "the gate does not skip them here"
        )
    confirmed = [name for name in dict.fromkeys(expected) if name in seen_skipped]
    if not confirmed:
        return False, ""
    return False, (
        f"; an instrumented run of {shown} (`tvmlint registry --pipeline`) skipped {and_list(confirmed)}: "
        "a PassInstrument never saw them start"
    )


def _flatten(members: Iterable[Gated]) -> List[Gated]:
    out: List[Gated] = []
    for member in members:
        out.append(member)
        out.extend(_flatten(member.children))
    return out


def _probe_note(self: Confirmer, payload, ctx: PassCtx, needed: int, target: Optional[Version]) -> str:
    from tvmlint.companion.probes import PROBES

    wrapper = getattr(payload, "wrapper", None)
    spec = get_knowledge(target).passes_by_name.get(wrapper) if (wrapper and target) else None
    api = next((a for a in (spec.api if spec else ()) if a in PROBES), None)
    if api is None:
        return ""
    try:
        at_active, at_needed = self.probe(api, [setting(ctx, ctx.opt_level), setting(ctx, needed)])
    except CompanionError as error:
        return f" (the probe run failed: {error})"
    short = api.replace("tvm.", "", 1)
    if not at_active and at_needed:
        return (
            f"; a real run of {short} on a probe module leaves it unchanged at opt_level {ctx.opt_level} "
            f"and changes it at opt_level {needed}"
        )
    return (
        f"; a real run of {short} on a probe module was {'changed' if at_active else 'unchanged'} at opt_level "
        f"{ctx.opt_level} and {'changed' if at_needed else 'unchanged'} at {needed}, which shows nothing either way"
    )


# -- TVM104 / TVM105 ---------------------------------------------------------------------
def _pass_named(self: Confirmer, finding: Finding, *keys: str) -> Tuple[Optional[str], Optional[Verdict]]:
    """The pass name a finding is about, or the verdict when TVM cannot judge it."""
    name = next((found for found in (subject(finding, key) for key in keys) if found), None)
    if name is None:
        return None, Verdict(None, "tvmlint could not tell which pass name the finding is about")
    return name, self.cannot_speak(finding, [name])


def confirm_unknown_name(self: Confirmer, finding: Finding) -> Verdict:
    name, silent = _pass_named(self, finding, "name", "unless_defined")
    if silent:
        return silent
    live = self.snapshot.by_name.get(name)
    if live is not None:
        return Verdict(False, f"the installed {self.tvm} registers a pass named {name!r} ({live.kind}, opt_level {live.opt_level})")
    unbuilt = [p.api for p in self.snapshot.passes if p.error]
    caveat = f"; {len(unbuilt)} constructors could not be built" if unbuilt else ""
    return Verdict(
        True,
        f"none of the {len(self.snapshot.passes)} pass constructors of the installed {self.tvm} builds a pass "
        f"named {name!r}, and no Sequential among them holds one{caveat}",
    )


def confirm_wrapper(self: Confirmer, finding: Finding) -> Verdict:
    name, silent = _pass_named(self, finding, "name", "wrapper")
    if silent:
        return silent
    live = self.snapshot.by_name.get(name)
    if live is None:
        return Verdict(None, f"the installed {self.tvm} registers no pass named {name!r}")
    if live.kind != "sequential" or not live.members:
        return Verdict(False, f"the installed {self.tvm} registers {name!r} as a {live.kind} pass, not a Sequential wrapper")
    return Verdict(
        True,
        f"the installed {self.tvm} builds {name!r} as a Sequential of {levels(live_gated(m) for m in live.members)}: "
        "the gate checks each member's own name",
    )


# -- TVM107 ------------------------------------------------------------------------------
def confirm_config_key(self: Confirmer, finding: Finding) -> Verdict:
    key = subject(finding, "key")
    if key is None:
        return Verdict(None, "tvmlint could not tell which config key the finding is about")
    other = self.other_release(finding)
    if other:
        return other
    facts = finding.facts or {}
    value = facts.get("value", True)
    answer = self.run({"op": "config", "items": [[key, value]]})["results"][0]
    if key in self.snapshot.configs or not answer["raised"]:
        return Verdict(False, f"the installed {self.tvm} accepts PassContext(config={{{key!r}: ...}})")
    error = answer.get("error", "").split(" candidates are")[0]
    return Verdict(True, f"PassContext(config={{{key!r}: {value!r}}}) raises in the installed {self.tvm}: {error}")


# -- TVM302 ------------------------------------------------------------------------------
def confirm_fast_math(self: Confirmer, finding: Finding) -> Verdict:
    facts = finding.facts or {}
    payload, ctx = facts.get("payload"), facts.get("ctx")
    key = getattr(payload, "key", None)
    if key is not None:  # fast math asked for through the PassContext config
        silent = self.other_release(finding)
        if silent:
            return silent
        if key in self.snapshot.configs:
            return Verdict(True, f"the installed {self.tvm} registers the config key {key!r} ({self.snapshot.configs[key]})")
        return Verdict(False, f"the installed {self.tvm} does not register the config key {key!r}")
    name = getattr(payload, "name", None)
    if name is None or not isinstance(ctx, PassCtx) or ctx.opt_level is None:
        return Verdict(None, "the finding carries no pass facts to check")
    silent = self.cannot_speak(finding, [name])
    if silent:
        return silent
    live = LiveTree(self.snapshot, self.target(finding), payload.members)
    pass_live = self.snapshot.by_name.get(name)
    if live.missing or pass_live is None:
        return Verdict(None, f"the installed {self.tvm} registers no pass named {name!r}")
    from tvmlint.checks.tvm302_fast_math_enabled import runs

    if runs(live.tree, ctx, name):
        return Verdict(True, f"the installed {self.tvm} registers {name} at opt_level {pass_live.opt_level}: the gate lets it run here")
    return Verdict(False, f"the installed {self.tvm} registers {name} at opt_level {pass_live.opt_level}: the gate skips it here")


CHECKS: Dict[str, Callable[[Confirmer, Finding], Verdict]] = {
    "TVM101": confirm_gated,
    "TVM104": confirm_unknown_name,
    "TVM105": confirm_wrapper,
    "TVM107": confirm_config_key,
    "TVM302": confirm_fast_math,
}
