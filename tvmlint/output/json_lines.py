"""One JSON object per line (the fields of `--format json`), for tools that stream findings."""

from __future__ import annotations

import json
from typing import Sequence, TextIO

from tvmlint.diagnostics import Finding
from tvmlint.output.safe import json_text


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    for finding in findings:
        # no indent: a message that holds a newline is written as \n, so one finding stays one line
        stream.write(json_text(json.dumps(finding.to_json(), ensure_ascii=False)) + "\n")
