"""The default, for people: findings grouped by file, each with the line it points at."""

from __future__ import annotations

import os
from itertools import groupby
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from tvmlint.diagnostics import Finding
from tvmlint.output.safe import printable, printable_path, quoted
from tvmlint.output.summary import summary_line
from tvmlint.source import decode, read_file, split_lines

STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}


def _source_lines(path: str, cache: Dict[str, Optional[List[str]]], sources: Dict[str, str]) -> Optional[List[str]]:
    if path not in cache:
        text = sources.get(path)
        if text is None:
            text = _read_text(path)
        cache[path] = [line.rstrip("\r\n") for line in split_lines(text)] if text is not None else None
    return cache[path]


def _read_text(path: str) -> Optional[str]:
    """The file's text as the check read it. Only a regular file is read (a FIFO named .py
    would block until a writer came, /dev/zero would never end), in its declared encoding;
    bytes that do not decode are shown as U+FFFD, so the line a TVM001 points at can still be quoted."""
    try:
        data = read_file(path)
    except OSError:
        return None
    source, _why = decode(data)
    return source.text if source is not None else data.decode("utf-8", errors="replace")


# A generated or minified file can hold a line of megabytes: at most this much of it is quoted.
QUOTE_WIDTH = 200


def excerpt(text: str, start: int, end: int) -> Tuple[str, int, int]:
    """The part of `text` that shows columns `start`..`end` (1-based, end exclusive), cut to
    QUOTE_WIDTH with an ellipsis where it was cut, and those columns within it."""
    if len(text) <= QUOTE_WIDTH:
        return text, start, end
    begin = max(0, min(start - 1 - QUOTE_WIDTH // 4, len(text) - QUOTE_WIDTH))
    head = "\u2026" if begin > 0 else ""
    tail = "\u2026" if begin + QUOTE_WIDTH < len(text) else ""
    shift = begin - len(head)
    shown = head + text[begin : begin + QUOTE_WIDTH]
    return shown + tail, start - shift, max(start - shift + 1, min(end - shift, len(shown) + 1))


def render(findings: Sequence[Finding], files: int, stream: TextIO, sources: Optional[Dict[str, str]] = None, **_: object) -> None:
    if not findings:
        # the summary alone, as rich would print it (no markup, no tabs, no control characters):
        # a clean pre-commit run does not import rich
        stream.write(summary_line(findings, files) + "\n")
        return
    from rich.console import Console
    from rich.markup import escape

    color = None if stream.isatty() and "NO_COLOR" not in os.environ else False
    console = Console(file=stream, no_color=color is False, force_terminal=None if color is None else False,
                      highlight=False, soft_wrap=True, emoji=False)
    cache: Dict[str, Optional[List[str]]] = {}
    for path, group in groupby(findings, key=lambda f: f.path):
        console.print(f"[bold]{escape(printable_path(path))}[/bold]")
        lines = _source_lines(path, cache, sources or {})
        for finding in group:
            style = STYLE.get(finding.severity, "bold")
            console.print(
                f"  {finding.start.line}:{finding.start.column} [{style}]{finding.code}[/{style}] "
                f"[dim]{finding.severity}[/dim] {escape(printable(finding.message))}"
            )
            if lines and 0 < finding.start.line <= len(lines):
                text = quoted(lines[finding.start.line - 1])
                end = finding.end.column if finding.end.line == finding.start.line else len(text) + 1
                text, start, end = excerpt(text, finding.start.column, end)
                console.print(f"    [dim]{finding.start.line:>4} |[/dim] {escape(text)}")
                console.print(f"    [dim]     |[/dim] {' ' * (start - 1)}[{style}]{'^' * max(1, end - start)}[/{style}]")
            if finding.fix:
                console.print(f"    [dim]fix ({finding.fix.applicability}):[/dim] {escape(printable(finding.fix.message))}")
            if finding.confirmation is not None:
                verdict = {True: "confirmed", False: "refuted", None: "unconfirmed"}[finding.confirmed]
                console.print(f"    [dim]{verdict} by the installed TVM:[/dim] {escape(printable(finding.confirmation))}")
        console.print("")
    console.print(summary_line(findings, files))
