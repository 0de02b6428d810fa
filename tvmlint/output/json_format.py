"""A JSON array, one object per finding (see Finding.to_json for the keys)."""

from __future__ import annotations

import json
from typing import Sequence, TextIO

from tvmlint.diagnostics import Finding


def render(findings: Sequence[Finding], files: int, stream: TextIO, **_: object) -> None:
    json.dump([finding.to_json() for finding in findings], stream, indent=2, ensure_ascii=False)
    stream.write("\n")
