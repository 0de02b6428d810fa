"""Output formats. Each module renders a list of findings for one audience."""

from __future__ import annotations

import importlib
from typing import Callable

# --format (and --output-format) of `check`: the name and the module that renders it
MODULES = {
    "text": "text",
    "concise": "concise",
    "json": "json_format",
    "json-lines": "json_lines",
    "sarif": "sarif",
    "github": "github",
    "gitlab": "gitlab",
    "junit": "junit",
}
# ruff's names for the same views: its `full` is the finding with its source lines, our text
ALIASES = {"full": "text"}
FORMATS = tuple(MODULES) + tuple(ALIASES)


def format_named(name: str) -> str:
    """The format a --format or output-format value names (an alias gives its format)."""
    return ALIASES.get(name, name)


def renderer(name: str) -> Callable:
    module = MODULES.get(name)
    if module is None:  # argparse restricts the choices; this guards library callers
        raise ValueError(f"unknown format {name!r}")
    render = importlib.import_module(f"tvmlint.output.{module}").render

    def in_cells_then_render(findings, files, stream, sources=None, **options):
        from tvmlint.output.cells import in_cells

        findings, sources = in_cells(findings, sources or {})
        return render(findings, files, stream, sources=sources, **options)

    return in_cells_then_render
