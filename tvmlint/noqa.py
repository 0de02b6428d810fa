"""`# noqa` and `# noqa: TVM101, TVM202` suppressions on the reported line."""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Optional

from tvmlint.source import split_lines

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
ALL = frozenset({"*"})


def suppressions(text: str) -> Dict[int, FrozenSet[str]]:
    """Line number -> codes suppressed there (ALL for a bare `# noqa`)."""
    found: Dict[int, FrozenSet[str]] = {}
    if "noqa" not in text.lower():
        return found
    for number, line in enumerate(split_lines(text), start=1):
        if "#" not in line:
            continue
        match = _NOQA.search(line)
        if match is None:
            continue
        codes = match.group("codes")
        found[number] = ALL if codes is None else frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c)
    return found


def is_suppressed(table: Dict[int, FrozenSet[str]], line: int, code: str) -> bool:
    codes: Optional[FrozenSet[str]] = table.get(line)
    return codes is not None and (codes is ALL or "*" in codes or code in codes)
