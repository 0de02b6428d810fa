"""The user's own directory for tvmlint's state, outside any checked tree."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "TVMLINT_CACHE_DIR"


def user_cache_dir() -> Path:
    """$TVMLINT_CACHE_DIR, else the platform's user cache directory (platformdirs):
    $XDG_CACHE_HOME/tvmlint or ~/.cache/tvmlint on Linux, ~/Library/Caches/tvmlint on
    macOS, %LOCALAPPDATA%\\tvmlint on Windows."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    import platformdirs  # only when tvmlint needs its cache directory

    # opinion=False: no extra "Cache" level below %LOCALAPPDATA%\tvmlint on Windows
    return Path(platformdirs.user_cache_dir("tvmlint", appauthor=False, opinion=False))
