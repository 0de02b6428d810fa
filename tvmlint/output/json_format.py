"""A JSON array, one object per finding (see Finding.to_json for the keys)."""

from __future__ import annotations

import json
from typing import Sequence, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.safe import json_text


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    stream.write(json_text(json.dumps([finding.to_json() for finding in findings], indent=2, ensure_ascii=False)))
    stream.write("\n")
