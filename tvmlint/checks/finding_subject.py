"""What a finding is about (a pass name, a config key), for the rules' confirmations: from its
facts, or else read back from the literal it points at in the file."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional, Tuple

from tvmlint.base.diagnostics import Finding

if TYPE_CHECKING:
    from tvmlint.checks.confirmation import LiveTVM, Verdict


def literal_at(finding: Finding) -> object:
    """The Python literal the finding points at (a pass name, a config key), read from the file."""
    from tvmlint.base.source import decode, read_file, split_lines

    # read as the check read it: in the file's declared encoding, lines ended as Python ends them
    try:
        source, _why = decode(read_file(finding.path))
    except OSError:
        return None
    lines = split_lines(source.text) if source is not None else []
    start, end = finding.start, finding.end
    if end.line > len(lines):  # changed since it was checked
        return None
    if start.line == end.line:
        text = lines[start.line - 1][start.column - 1 : end.column - 1]
    else:
        text = lines[start.line - 1][start.column - 1 :] + "".join(lines[start.line : end.line - 1])
        text += lines[end.line - 1][: end.column - 1]
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return None


def subject(finding: Finding, key: str) -> Optional[str]:
    facts = finding.facts or {}
    value = facts.get(key)
    if value is None:
        payload = facts.get("payload")
        value = getattr(payload, key, None)
    if value is None:
        value = literal_at(finding)
        if isinstance(value, dict) and len(value) == 1:
            value = next(iter(value))
    return value if isinstance(value, str) else None


def pass_named(tvm: LiveTVM, finding: Finding, *keys: str) -> Tuple[Optional[str], Optional[Verdict]]:
    """The pass name a finding is about, or the verdict when TVM cannot judge it."""
    from tvmlint.checks.confirmation import Verdict

    name = next((found for found in (subject(finding, key) for key in keys) if found), None)
    if name is None:
        return None, Verdict(None, "tvmlint could not tell which pass name the finding is about")
    return name, tvm.cannot_speak(finding, [name])
