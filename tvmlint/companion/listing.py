"""What `tvmlint registry` shows: the live passes, marked for one PassContext setting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Sequence, TextIO, Tuple

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
    from tvmlint.companion.names import find

    return find(snapshot, wanted)


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


def _intro(snapshot: Snapshot, passes: Sequence[LivePass], setting: Optional[Setting]) -> List[str]:
    built = [p for p in passes if not p.error]
    failed = [p for p in passes if p.error]
    lines = [f"{snapshot.describe}, Python {snapshot.python}"]
    lines.append(f"{len(built)} pass{'es' if len(built) != 1 else ''}" + (f"; {len(failed)} could not be built (listed at the end)" if failed else ""))
    if setting is not None:
        lines.append(
            f"At {setting.describe()}: a pass called directly always runs; a Sequential runs a member only "
            "when it is enabled (disabled_pass wins, then required_pass, then opt_level)."
        )
    return lines


def _header(setting: Optional[Setting]) -> List[str]:
    return ["API", "name", "kind", "opt_level", "required"] + ([f"at {setting.describe()}"] if setting else [])


def _rows(passes: Sequence[LivePass], setting: Optional[Setting]) -> List[Tuple[int, bool, LivePass, Optional[str]]]:
    """Each built pass, then its members depth first: (depth, last among its siblings, pass, state at the setting)."""
    rows: List[Tuple[int, bool, LivePass, Optional[str]]] = []

    def add(live: LivePass, depth: int, last: bool, top: bool, parent_runs: bool) -> None:
        shown = state(live, setting, top, parent_runs) if setting is not None else None
        runs = parent_runs and (setting is None or top or setting.enabled(live))
        rows.append((depth, last, live, shown))
        for index, member in enumerate(live.members):
            add(member, depth + 1, index == len(live.members) - 1, False, runs)

    for live in passes:
        if not live.error:
            add(live, 0, True, True, True)
    return rows


def _cells(depth: int, live: LivePass, shown: Optional[str], first: str) -> List[str]:
    row = [first, live.name, live.kind, str(live.opt_level), ", ".join(live.required) or "-"]
    return row + ([shown] if shown is not None else [])


def _failed(passes: Sequence[LivePass]) -> List[str]:
    failed = [p for p in passes if p.error]
    if not failed:
        return []
    lines = ["", "Could not be built (the constructor needs arguments rules/ does not give, or raised):"]
    return lines + [f"  {live.api}: {live.error}" for live in failed]


def _cache_note(snapshot: Snapshot) -> List[str]:
    if not snapshot.cache_file:
        return []
    return ["", f"(registry snapshot {'read from' if snapshot.from_cache else 'saved to'} {snapshot.cache_file})"]


def render_text(snapshot: Snapshot, passes: Sequence[LivePass], setting: Optional[Setting], show_configs: bool) -> str:
    """The listing for a pipe: a few lines about the install, then one row per pass and member,
    tab-separated (API, name, kind, opt_level, required[, state at the setting]); a member's API
    cell is `└ (member)` indented two spaces per level, so `cut -f2` gives every name."""
    lines = _intro(snapshot, passes, setting)
    lines.append("")
    lines.append("\t".join(_header(setting)))
    for depth, _last, live, shown in _rows(passes, setting):
        first = (live.api or "") if depth == 0 else f"{'  ' * depth}\u2514 (member)"
        lines.append("\t".join(_cells(depth, live, shown, first)))
    lines.extend(_failed(passes))
    if show_configs:
        lines.append("")
        lines.append(f"PassContext config keys ({len(snapshot.configs)}), from PassContext.list_configs():")
        for key in sorted(snapshot.configs):
            lines.append(f"  {key}\t{snapshot.configs[key]}")
    lines.extend(_cache_note(snapshot))
    return "\n".join(lines) + "\n"


STATE_STYLE = {"runs": "green", "disabled": "red"}


def render_rich(snapshot: Snapshot, passes: Sequence[LivePass], setting: Optional[Setting], show_configs: bool, out: TextIO) -> None:
    """The listing for a terminal: a table whose rows under a Sequential are drawn as its tree."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = Console(file=out, highlight=False)
    for line in _intro(snapshot, passes, setting):
        console.print(escape(line))
    table = Table(show_edge=False, header_style="bold", pad_edge=False)
    for index, title in enumerate(["API / member", *_header(setting)[1:]]):
        table.add_column(title, justify="right" if title == "opt_level" else "left",
                         no_wrap=index == 0, overflow="fold")
    open_levels: List[bool] = []  # per depth: does a later sibling follow (draw the guide line)
    for depth, last, live, shown in _rows(passes, setting):
        del open_levels[depth:]
        if depth == 0:
            first = Text(live.api or "", style="bold")
        else:
            guides = "".join("\u2502  " if more else "   " for more in open_levels[1:depth])
            first = Text(guides + ("\u2514\u2500 " if last else "\u251c\u2500 "), style="dim")
            first.append(live.name, style="")
        open_levels.append(not last)
        cells = _cells(depth, live, shown, "")
        if depth:
            cells[1] = ""  # a member's name is on its branch of the tree
        row = [first, *[Text(cell) for cell in cells[1:]]]
        if shown is not None:
            row[-1] = Text(shown, style=STATE_STYLE.get(shown, "yellow"))
        table.add_row(*row)
    console.print()
    console.print(table)
    for line in _failed(passes):
        console.print(escape(line))
    if show_configs:
        configs = Table(title=f"PassContext config keys ({len(snapshot.configs)}), from PassContext.list_configs()",
                        show_edge=False, header_style="bold", pad_edge=False)
        configs.add_column("key")
        configs.add_column("type")
        for key in sorted(snapshot.configs):
            configs.add_row(escape(key), escape(snapshot.configs[key]))
        console.print()
        console.print(configs)
    for line in _cache_note(snapshot):
        console.print(escape(line))


def render(snapshot: Snapshot, passes: Sequence[LivePass], setting: Optional[Setting], show_configs: bool, out: TextIO) -> None:
    """A rich table on a terminal, tab-separated text on a pipe."""
    isatty = getattr(out, "isatty", None)
    if isatty is not None and isatty():
        render_rich(snapshot, passes, setting, show_configs, out)
    else:
        out.write(render_text(snapshot, passes, setting, show_configs))
