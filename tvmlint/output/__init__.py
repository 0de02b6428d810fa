"""Output formats. Each module renders a list of findings for one audience."""

from __future__ import annotations

from typing import Callable, Dict

FORMATS = ("text", "concise", "json", "sarif", "github")


def renderer(name: str) -> Callable:
    if name == "text":
        from tvmlint.output.text import render
    elif name == "concise":
        from tvmlint.output.concise import render
    elif name == "json":
        from tvmlint.output.json_format import render
    elif name == "sarif":
        from tvmlint.output.sarif import render
    elif name == "github":
        from tvmlint.output.github import render
    else:  # argparse restricts the choices; this guards library callers
        raise ValueError(f"unknown format {name!r}")
    return render
