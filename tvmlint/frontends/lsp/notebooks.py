"""An open notebook in the editor: its code cells checked as one module, each finding
published on its own cell (LSP 3.17 notebook documents), as `tvmlint check` reads a
.ipynb file (tvmlint.base.notebook)."""

from __future__ import annotations

from typing import Dict, List, Tuple

from lsprotocol import types

from tvmlint.base.diagnostics import Finding
from tvmlint.base.notebook import NotebookSource, cells_as_module
from tvmlint.output.cells import in_cell

# what the server asks editors to send: Jupyter notebooks' Python cells
SYNC = types.NotebookDocumentSyncOptions(notebook_selector=[
    types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")],
                                          notebook="jupyter-notebook"),
])


def module_of(notebook: types.NotebookDocument, workspace) -> Tuple[NotebookSource, Dict[int, str]]:
    """The notebook's code cells as one module, and each cell's URI by its number (among all
    cells, from 1, as `check` counts them)."""
    sources: List[Tuple[int, str]] = []
    uris: Dict[int, str] = {}
    for number, cell in enumerate(notebook.cells, 1):
        uris[number] = cell.document
        if cell.kind == types.NotebookCellKind.Code:
            sources.append((number, workspace.get_text_document(cell.document).source))
    return cells_as_module(sources), uris


def by_cell(findings: List[Finding], source: NotebookSource, uris: Dict[int, str]) -> Dict[str, List[Finding]]:
    """Each code cell's URI and its findings, at lines of that cell."""
    out: Dict[str, List[Finding]] = {uris[cell.number]: [] for cell in source.cells}
    for finding in findings:
        placed = in_cell(finding, source)
        if placed.cell is not None:
            out[uris[placed.cell]].append(placed)
    return out
