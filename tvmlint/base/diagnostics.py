"""Findings and fixes: what every check produces and every output format reads."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, Optional, Tuple

from tvmlint.base.pickling import by_fields


@by_fields
@dataclass(frozen=True, order=True)
class Position:
    """1-based line, 1-based column counted in characters (as ruff does)."""

    line: int
    column: int


@by_fields
@dataclass(frozen=True)
class Edit:
    """Replace the text between `start` and `end` (exclusive) with `content`."""

    start: Position
    end: Position
    content: str

    def to_json(self) -> dict:
        return {
            "line": self.start.line,
            "column": self.start.column,
            "end_line": self.end.line,
            "end_column": self.end.column,
            "content": self.content,
        }


@by_fields
@dataclass(frozen=True)
class Fix:
    message: str
    edits: Tuple[Edit, ...]
    safe: bool

    @property
    def applicability(self) -> str:
        return "safe" if self.safe else "unsafe"

    def to_json(self) -> dict:
        return {
            "message": self.message,
            "applicability": self.applicability,
            "safe": self.safe,
            "edits": [edit.to_json() for edit in self.edits],
        }


class Said(NamedTuple):
    """What a rule says of one site, in its two texts: `message`, one sentence with this site's
    facts (every view shows it), and `detail`, why it matters and what to do about it (the full
    views show it: text, JSON, explain, hover)."""

    message: str
    detail: str = ""


@by_fields
@dataclass(frozen=True)
class Finding:
    path: str
    start: Position
    end: Position
    code: str
    severity: str  # "error" | "warning" | "info"
    message: str
    fix: Optional[Fix] = None
    # Set by the runtime companion (`check --confirm`): True, False or None with why.
    confirmed: Optional[bool] = None
    confirmation: Optional[str] = field(default=None, compare=False)
    # What the finding rests on, for the companion to check (a deferred finding's
    # payload and resolved context); never printed, not part of equality.
    facts: Optional[Mapping[str, Any]] = field(default=None, compare=False, repr=False)
    # Other lines whose `# noqa` also suppresses the finding: where what it rests on is
    # written, when that is not the reported line (the `with` that sets an opt_level a
    # build below it runs at). Never printed, not part of equality.
    noqa_lines: Tuple[int, ...] = field(default=(), compare=False, repr=False)
    # In a notebook, as reported: the cell (counted among all cells, from 1) that `start` and
    # `end` are lines of (tvmlint.output.cells); None for a file of Python source.
    cell: Optional[int] = None
    # Set by `check --trace`: "confirmed", "refuted" or "not reached", with what the traced run did there.
    traced: Optional[str] = field(default=None, compare=False)
    trace_note: Optional[str] = field(default=None, compare=False)
    # Why the finding matters and what to do (Said.detail); not part of equality: the message is.
    detail: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        # One rule on the same name in many files says the same thing: a run that holds
        # thousands of findings keeps one copy of each message, not one per finding.
        for name in ("code", "severity", "message", "detail"):
            value = getattr(self, name)
            if type(value) is str:
                object.__setattr__(self, name, sys.intern(value))

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.start.line, self.start.column, self.code, self.message)

    def to_json(self) -> dict:
        data = {
            "path": self.path,
            "line": self.start.line,
            "column": self.start.column,
            "end_line": self.end.line,
            "end_column": self.end.column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "detail": self.detail,
            "fix": self.fix.to_json() if self.fix else None,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        if self.confirmation is not None:
            data["confirmed"] = self.confirmed
            data["confirmation"] = self.confirmation
        if self.traced is not None:
            data["trace"] = {"verdict": self.traced, "note": self.trace_note}
        return data
