"""The names a report's format goes by: what `--format` and the `output-format` setting accept.

They are the contract between the settings, which check a name when they read it, and
output/, which renders each one (tvmlint.output.MODULES); the settings never load a renderer.
"""

from __future__ import annotations

from typing import Dict, Tuple

NAMES: Tuple[str, ...] = ("text", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit")
# ruff's names for the same views: its `full` is the finding with its source lines, our text
ALIASES: Dict[str, str] = {"full": "text"}
FORMATS: Tuple[str, ...] = NAMES + tuple(ALIASES)


def format_named(name: str) -> str:
    """The format a --format or output-format value names (an alias gives its format)."""
    return ALIASES.get(name, name)
