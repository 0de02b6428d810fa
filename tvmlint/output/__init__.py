"""Output formats. Each module renders a list of findings for one audience."""

from __future__ import annotations

import importlib
from typing import Callable

from tvmlint.base.formats import FORMATS, NAMES, format_named

# the module that renders each format name (tvmlint.base.formats: the names the settings accept)
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
__all__ = ["FORMATS", "MODULES", "NAMES", "format_named", "renderer"]


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
