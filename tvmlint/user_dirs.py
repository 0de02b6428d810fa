"""The user's own directory for tvmlint's state, outside any checked tree."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "TVMLINT_CACHE_DIR"


def user_cache_dir() -> Path:
    """$TVMLINT_CACHE_DIR, else $XDG_CACHE_HOME/tvmlint, else ~/.cache/tvmlint
    (%LOCALAPPDATA%\\tvmlint on Windows)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "tvmlint"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tvmlint"
