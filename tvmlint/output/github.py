"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=TVM101::message`.
GitHub reads `%`, CR and LF escaped in the message, and also `:` and `,` in
property values (its toolkit's escapeData / escapeProperty).
"""

from __future__ import annotations

from typing import Sequence, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.safe import printable
from tvmlint.output.summary import summary_line

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    properties = {
        "file": finding.path.replace("\\", "/"),
        "line": finding.start.line,
        "col": finding.start.column,
        "endLine": finding.end.line,
        "endColumn": finding.end.column,
        "title": finding.code,
    }
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    cell = "" if finding.cell is None else f"cell {finding.cell}: "  # its line is the cell's
    return f"::{COMMAND.get(finding.severity, 'warning')} {joined}::{escape_data(cell + printable(finding.message))}"


def render(findings: Sequence[Finding], files: int, stream: TextIO, summary: bool = True, **_: object) -> None:
    for finding in findings:
        stream.write(annotation(finding) + "\n")
    if summary:  # the log keeps a line a person can read too (not with --quiet)
        stream.write(summary_line(findings, files) + "\n")
