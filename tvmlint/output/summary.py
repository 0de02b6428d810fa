"""The closing line every human-readable format prints."""

from __future__ import annotations

from typing import Sequence

from tvmlint.base.diagnostics import Finding


def summary_line(findings: Sequence[Finding], files: int) -> str:
    if not findings:
        return f"All checks passed ({files} file{'s' if files != 1 else ''} checked)."
    safe = sum(1 for f in findings if f.fix and f.fix.safe)
    unsafe = sum(1 for f in findings if f.fix and not f.fix.safe)
    text = f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} in {files} file{'s' if files != 1 else ''} checked."
    if safe:
        text += f" {safe} fixable with `tvmlint fix`."
    if unsafe:
        text += f" {unsafe} more with `tvmlint fix --unsafe-fixes`."
    return text
