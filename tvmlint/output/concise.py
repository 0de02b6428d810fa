"""`path:line:col: CODE message`, one per line, for editors' error parsers and grep."""

from __future__ import annotations

from typing import Sequence, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.cells import location
from tvmlint.output.safe import printable, printable_path
from tvmlint.output.summary import summary_line


def render(findings: Sequence[Finding], files: int, stream: TextIO, summary: bool = True, **_: object) -> None:
    for finding in findings:
        stream.write(f"{printable_path(finding.path)}:{location(finding)}: {finding.code} {printable(finding.message)}\n")
    if summary:  # not with --quiet
        stream.write(summary_line(findings, files) + "\n")
