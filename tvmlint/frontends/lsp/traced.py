"""Hover's traced facts: what the run `tvmlint trace` kept in the workspace's .tvmlint/trace.json did at a call.

The file is read again only when its size or time changes: a hover must not parse
tens of MB of a large model's trace each time the pointer rests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Tuple


class TraceCache:
    def __init__(self) -> None:
        self._key: Optional[Tuple[str, int, int]] = None
        self._runs = None

    def _runs_for(self, root: Path):
        from tvmlint.companion.trace_verdicts import FOUND, Runs, found

        path = root / FOUND
        try:
            status = os.stat(path)
        except OSError:
            self._key, self._runs = None, None
            return None
        key = (str(path), status.st_mtime_ns, status.st_size)
        if key != self._key:
            doc = found(root)
            self._key, self._runs = key, Runs(doc) if doc is not None else None
        return self._runs

    def markdown_at(self, root: Path, path: Path, line: int, end_line: int) -> Optional[str]:
        """Markdown for the runs from lines line..end_line of `path`, or None when there is no trace."""
        from tvmlint.companion.trace_verdicts import FOUND
        from tvmlint.output.trace_tree import traced_markdown

        runs = self._runs_for(root)
        if runs is None:
            return None
        return traced_markdown(runs.at(str(path), line, end_line), str(FOUND))
