"""What `tvmlint registry` shows: the live passes, marked for one PassContext setting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Sequence

from tvmlint.companion.registry import LivePass, Snapshot


@dataclass(frozen=True)
class Setting:
    opt_level: int
    required: FrozenSet[str] = frozenset()
    disabled: FrozenSet[str] = frozenset()

    def enabled(self, live: LivePass) -> bool:
        # TVM's PassContext::PassEnabled: disabled wins, then required, then the level
        if live.name in self.disabled:
            return False
        return live.name in self.required or self.opt_level >= live.opt_level

    def describe(self) -> str:
        text = f"opt_level {self.opt_level}"
        if self.required:
            text += f", required_pass {sorted(self.required)}"
        if self.disabled:
            text += f", disabled_pass {sorted(self.disabled)}"
        return text


def state(live: LivePass, setting: Setting, top: bool, parent_runs: bool = True) -> str:
    if not parent_runs:
        return "skipped (its Sequential is)"
    if live.name in setting.disabled:
        return "disabled"
    if setting.enabled(live):
        return "runs"
    # a pass called directly is never gated; only a Sequential checks its members
    return "skipped in a Sequential" if top else "skipped"


def select(snapshot: Snapshot, wanted: Optional[str]) -> List[LivePass]:
    if not wanted:
        return list(snapshot.passes)
    exact = [
        p for p in snapshot.passes
        if wanted in (p.api, p.name) or (p.api or "").endswith("." + wanted) or wanted in p.aliases
    ]
    if exact:
        return exact
    return [p for p in snapshot.passes if not p.error and any(m.name == wanted for m in p.walk())]


def pass_json(live: LivePass, setting: Optional[Setting], top: bool = True, parent_runs: bool = True) -> dict:
    row = {"api": live.api, "name": live.name, "kind": live.kind, "opt_level": live.opt_level, "required": list(live.required)}
    if not top:
        row.pop("api")
    if live.error:
        row = {"api": live.api, "error": live.error}
        return row
    runs = parent_runs
    if setting is not None:
        row["at_setting"] = state(live, setting, top, parent_runs)
        runs = parent_runs and (top or setting.enabled(live))
    if live.members:
        row["members"] = [pass_json(m, setting, False, runs) for m in live.members]
    return row


def render_text(snapshot: Snapshot, passes: Sequence[LivePass], setting: Optional[Setting], show_configs: bool) -> str:
    lines = [f"{snapshot.describe}, Python {snapshot.python}"]
    built = [p for p in passes if not p.error]
    failed = [p for p in passes if p.error]
    lines.append(f"{len(built)} pass{'es' if len(built) != 1 else ''}" + (f"; {len(failed)} could not be built (listed at the end)" if failed else ""))
    if setting is not None:
        lines.append(
            f"At {setting.describe()}: a pass called directly always runs; a Sequential runs a member only "
            "when it is enabled (disabled_pass wins, then required_pass, then opt_level)."
        )
    header = ["API", "name", "kind", "opt_level", "required"] + ([f"at {setting.describe()}"] if setting else [])
    rows: List[List[str]] = [header]

    def add(live: LivePass, depth: int, top: bool, parent_runs: bool) -> None:
        indent = "  " * depth
        shown_api = (live.api or "") if top else f"{indent}└ (member)"
        row = [shown_api, live.name, live.kind, str(live.opt_level), ", ".join(live.required) or "-"]
        runs = parent_runs
        if setting is not None:
            row.append(state(live, setting, top, parent_runs))
            runs = parent_runs and (top or setting.enabled(live))
        rows.append(row)
        for member in live.members:
            add(member, depth + 1, False, runs)

    for live in built:
        add(live, 0, True, True)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines.append("")
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    if failed:
        lines.append("")
        lines.append("Could not be built (the constructor needs arguments rules/ does not give, or raised):")
        for live in failed:
            lines.append(f"  {live.api}: {live.error}")
    if show_configs:
        lines.append("")
        lines.append(f"PassContext config keys ({len(snapshot.configs)}), from PassContext.list_configs():")
        width = max((len(key) for key in snapshot.configs), default=0)
        for key in sorted(snapshot.configs):
            lines.append(f"  {key.ljust(width)}  {snapshot.configs[key]}")
    if snapshot.cache_file:
        lines.append("")
        lines.append(f"(registry snapshot {'read from' if snapshot.from_cache else 'saved to'} {snapshot.cache_file})")
    return "\n".join(lines) + "\n"
