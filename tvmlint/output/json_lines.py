"""One JSON object per line (the fields of `--format json`), for tools that stream findings."""

from __future__ import annotations

import json
from typing import Sequence, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.safe import json_text


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    for finding in findings:
        # no indent: a newline in a message is written as \n, so one finding stays one line; so are
        # U+2028/U+2029, which str.splitlines() and JavaScript readers take for line ends
        text = json_text(json.dumps(finding.to_json(), ensure_ascii=False))
        stream.write(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n")
