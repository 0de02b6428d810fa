"""`check --statistics`: how many findings each rule made, the most frequent first.

As ruff (and flake8) print it: `count<TAB>code<TAB>[*] name`, `[*]` when the rule's
findings here can be fixed (`[ ]` when not; the column is left out when none can),
then the usual closing line. `--format json` gives the same as a list of
{code, name, count, fixable}.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import List, Sequence, TextIO

from tvmlint.base.diagnostics import Finding
from tvmlint.output.summary import summary_line

FORMATS = ("text", "concise", "json")


def statistics(findings: Sequence[Finding], unsafe_fixes: bool = False) -> List[dict]:
    from tvmlint.knowledge.catalog import load_catalog

    catalog = load_catalog()
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fix is not None and (f.fix.safe or unsafe_fixes)}
    rows = [
        {"code": code, "name": catalog[code].name if code in catalog else code, "count": count, "fixable": code in fixable}
        for code, count in sorted(counts.items())
    ]
    rows.sort(key=lambda row: -row["count"])  # stable: equal counts stay in code order
    return rows


def render(findings: Sequence[Finding], files: int, stream: TextIO, fmt: str = "text", unsafe_fixes: bool = False,
           summary: bool = True) -> None:
    rows = statistics(findings, unsafe_fixes)
    if fmt == "json":
        stream.write(json.dumps(rows, indent=2) + "\n")
        return
    color = bool(rows) and stream.isatty() and "NO_COLOR" not in os.environ
    any_fixable = any(row["fixable"] for row in rows)
    count_width = max((len(str(row["count"])) for row in rows), default=1)
    code_width = max((len(row["code"]) for row in rows), default=0)
    bold, red, cyan, reset = ("\x1b[1m", "\x1b[1;31m", "\x1b[36m", "\x1b[0m") if color else ("",) * 4
    for row in rows:
        mark = (f"[{cyan}*{reset}] " if row["fixable"] else "[ ] ") if any_fixable else ""
        stream.write(f"{bold}{str(row['count']).rjust(count_width)}{reset}\t{red}{row['code'].ljust(code_width)}{reset}"
                     f"\t{mark}{row['name']}\n")
    if summary:
        stream.write(summary_line(findings, files) + "\n")
