"""The default, for people: findings grouped by file, each with the line it points at."""

from __future__ import annotations

import os
import textwrap
from itertools import groupby
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from tvmlint.base.diagnostics import Finding
from tvmlint.base.source import decode, read_file, split_lines
from tvmlint.output.cells import location, source_key
from tvmlint.output.safe import printable, printable_path, quoted
from tvmlint.output.summary import summary_line

STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}
TRACED = {"confirmed": "confirmed by the trace", "refuted": "refuted by the trace", "not reached": "not reached in the trace"}
TRACED_STYLE = {"confirmed": "bold green", "refuted": "bold magenta"}


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
# A finding's detail is wrapped to this many columns (its indent included), as a paragraph under it.
DETAIL_WIDTH = 88


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


def detail_lines(detail: str) -> List[str]:
    """The detail as lines under the finding: a path or a code span is never split."""
    if not detail:
        return []
    return textwrap.wrap(detail, DETAIL_WIDTH, initial_indent="    ", subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False)


def render(findings: Sequence[Finding], files: int, stream: TextIO, sources: Optional[Dict[str, str]] = None,
           summary: bool = True, **_: object) -> None:
    lines = _lines(findings, files, sources or {}, summary)
    color = bool(findings) and stream.isatty() and "NO_COLOR" not in os.environ
    if not color and not any("\t" in text for line in lines for text, _style in line):
        # what rich prints without colour (or for the unstyled summary alone), written directly:
        # a pre-commit run, whose output is a pipe, does not import rich. rich expands tabs by
        # its own character widths: lines that hold one go through it.
        stream.write("".join("".join(text for text, _style in line) + "\n" for line in lines))
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stream, no_color=not color, force_terminal=None if color else False,
                      highlight=False, soft_wrap=True, emoji=False)
    for line in lines:
        console.print(Text.assemble(*line))


Line = List[Tuple[str, Optional[str]]]


def _lines(findings: Sequence[Finding], files: int, sources: Dict[str, str], summary: bool = True) -> List[Line]:
    """The report as lines of (text, rich style) pieces."""
    lines: List[Line] = []
    cache: Dict[str, Optional[List[str]]] = {}
    for path, group in groupby(findings, key=lambda f: f.path):
        lines.append([(printable_path(path), "bold")])
        for finding in group:
            source = _source_lines(source_key(path, finding.cell), cache, sources)
            style = STYLE.get(finding.severity, "bold")
            lines.append([
                (f"  {location(finding)} ", None), (finding.code, style), (" ", None),
                (finding.severity, "dim"), (f" {printable(finding.message)}", None),
            ])
            if source and 0 < finding.start.line <= len(source):
                text = quoted(source[finding.start.line - 1])
                end = finding.end.column if finding.end.line == finding.start.line else len(text) + 1
                text, start, end = excerpt(text, finding.start.column, end)
                lines.append([(f"    {finding.start.line:>4} |", "dim"), (f" {text}", None)])
                lines.append([("         |", "dim"), (f" {' ' * (start - 1)}", None), ("^" * max(1, end - start), style)])
            for text in detail_lines(printable(finding.detail)):
                lines.append([(text, None)])
            if finding.fix:
                lines.append([(f"    fix ({finding.fix.applicability}):", "dim"), (f" {printable(finding.fix.message)}", None)])
            if finding.confirmation is not None:
                verdict = {True: "confirmed", False: "refuted", None: "unconfirmed"}[finding.confirmed]
                lines.append([(f"    {verdict} by the installed TVM:", "dim"), (f" {printable(finding.confirmation)}", None)])
            if finding.traced is not None:
                lines.append([(f"    {TRACED[finding.traced]}:", TRACED_STYLE.get(finding.traced, "dim")),
                              (f" {printable(finding.trace_note or '')}", None)])
        lines.append([])
    if summary:  # not with --quiet
        lines.append([(summary_line(findings, files), None)])
    elif lines:
        lines.pop()  # the blank line that would have stood before it
    return lines
