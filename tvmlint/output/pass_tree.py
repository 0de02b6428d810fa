"""A tree of passes (ran / skipped and why / failed), as `registry --pipeline` and `trace` print it.

Rows are the dicts of docs/trace-format.md's `passes`: name, opt_level, state,
kind, seconds, why, children.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

from tvmlint.output.safe import printable

NESTED = "its Sequential is skipped"
STYLE = {"ran": "green", "skipped": "yellow", "not seen": "red", "failed": "red", "unfinished": "red"}


def milliseconds(seconds: Optional[float]) -> str:
    if seconds is None:
        return ""
    value = seconds * 1000
    return f"{value:.3g} ms" if value < 100 else f"{value:.0f} ms"


def label(row: dict) -> tuple:
    """(state word, the rest) for one pass."""
    kind = f"{row['kind']}, " if row.get("kind") else ""
    head = f"{printable(row['name'])} ({kind}opt_level {row['opt_level']})"
    if row["state"] == "ran":
        extra = f"  [{row['why']}]" if row.get("why") else ""
        return "ran", f"{head}  {milliseconds(row.get('seconds'))}{extra}"
    return row["state"], f"{head}: {printable(row.get('why') or '')}"


Note = Callable[[dict], str]


def plain_lines(rows: Sequence[dict], indent: str = "", width: int = 8, note: Note = lambda row: "") -> List[str]:
    """The tree as text: the state in a column, then the branches; `note` adds to a row's line."""
    lines: List[str] = []

    def add(rows: Sequence[dict], prefix: str, top: bool) -> None:
        for index, row in enumerate(rows):
            last = index == len(rows) - 1
            state, text = label(row)
            branch = "" if top else ("└─ " if last else "├─ ")
            lines.append(f"{indent}{state:<{width}} {prefix}{branch}{text}{note(row)}")
            add(row.get("children", ()), "" if top else prefix + ("   " if last else "│  "), False)

    add(rows, "", True)
    return lines


def add_rich(tree, rows: Sequence[dict], note: Note = lambda row: "") -> None:
    """The rows under a rich Tree node, coloured by state."""
    from rich.markup import escape

    for row in rows:
        state, text = label(row)
        mark = "[dim]" if row.get("why") == NESTED else ""
        node = tree.add(f"[{STYLE.get(state, 'white')}]{state}[/] {mark}{escape(text)}{'[/]' if mark else ''}"
                        f"{escape(note(row))}")
        add_rich(node, row.get("children", ()), note)
