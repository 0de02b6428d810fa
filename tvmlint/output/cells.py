"""A notebook's findings as people read them: a cell, and a line in it.

A run reports a notebook's findings at lines of the module its code cells make
(tvmlint.base.notebook); every output format shows them, as ruff does, at the cell (counted
among all cells, from 1) and the line in that cell, and quotes the cell's own text.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.base.notebook import (
    REREAD_BOUND,
    NotANotebook,
    NotebookSource,
    is_notebook,
    read_notebook,
)
from tvmlint.base.source import read_file


def source_key(path: str, cell: Optional[int]) -> str:
    """The key of a text in a renderer's `sources`: the file's, or one cell's of a notebook."""
    return path if cell is None else f"{path}\0cell {cell}"


def in_cells(findings: Sequence[Finding], sources: Dict[str, str]) -> Tuple[List[Finding], Dict[str, str]]:
    if not any(is_notebook(finding.path) for finding in findings):
        return list(findings), sources
    notebooks: Dict[str, Optional[NotebookSource]] = {}
    out, texts = [], dict(sources)
    for finding in findings:
        if ".ipynb:" in finding.message or ".ipynb:" in finding.detail:
            finding = replace(finding, message=_places_in_cells(finding.message, notebooks),
                              detail=_places_in_cells(finding.detail, notebooks))
        notebook = _notebook(finding.path, notebooks) if is_notebook(finding.path) and finding.cell is None else None
        if notebook is None:
            out.append(finding)
            continue
        finding = in_cell(finding, notebook)
        if finding.cell is not None:
            texts.setdefault(source_key(finding.path, finding.cell), notebook.cell_text(finding.cell) or "")
        out.append(finding)
    return out, texts


def in_cell(finding: Finding, notebook: NotebookSource) -> Finding:
    """A finding at lines of the notebook's module text, at its cell and lines in it (and its
    fix's edits, when they stay in that cell; a fix that reaches into another is dropped)."""
    cell, line = notebook.where(finding.start.line)
    if cell is None:
        return finding
    fix = finding.fix
    if fix is not None and any(notebook.where(edit.start.line)[0] not in (cell, None) for edit in fix.edits):
        fix = None
    return replace(finding, start=Position(line, finding.start.column), end=_within(notebook, cell, finding.end),
                   fix=_fix_in(notebook, cell, fix), cell=cell)


# a place a message names (a caller "called from nb.ipynb:12"): a line of the module text
_PLACE = re.compile(r"(?P<path>[^\s():;]+\.ipynb):(?P<line>\d+)\b(?!:)")


def _places_in_cells(message: str, known: Dict[str, Optional[NotebookSource]]) -> str:
    def in_cell(found: "re.Match") -> str:
        notebook = _notebook(found.group("path"), known)
        cell, line = notebook.where(int(found.group("line"))) if notebook is not None else (None, 0)
        return found.group(0) if cell is None else f"{found.group('path')}:cell {cell}:{line}"

    return _PLACE.sub(in_cell, message)


def _notebook(path: str, known: Dict[str, Optional[NotebookSource]]) -> Optional[NotebookSource]:
    if path not in known:
        try:
            known[path] = read_notebook(read_file(path, REREAD_BOUND))
        except (OSError, NotANotebook):
            known[path] = None  # its lines stay those of the module text
    return known[path]


def _within(notebook: NotebookSource, cell: int, position: Position) -> Position:
    where, line = notebook.where(position.line)
    if where != cell:  # past the cell's end (its last line's newline): its last line
        return Position(_last_line(notebook, cell), position.column)
    return Position(line, position.column)


def _last_line(notebook: NotebookSource, cell: int) -> int:
    text = notebook.cell_text(cell) or ""
    return max(1, text.count("\n"))


def _fix_in(notebook: NotebookSource, cell: int, fix: Optional[Fix]) -> Optional[Fix]:
    if fix is None:
        return None
    edits = tuple(Edit(_within(notebook, cell, edit.start), _within(notebook, cell, edit.end), edit.content)
                  for edit in fix.edits)
    return replace(fix, edits=edits)


def location(finding: Finding) -> str:
    """`line:column`, after `cell N:` in a notebook (ruff's `path:cell 2:1:8`)."""
    where = f"{finding.start.line}:{finding.start.column}"
    return where if finding.cell is None else f"cell {finding.cell}:{where}"
