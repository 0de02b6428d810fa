"""Where the rules/ data lives. Its own module: the daemon's client asks it without loading
the knowledge itself."""

from __future__ import annotations

import functools
import os
from pathlib import Path

RULES_DIR_ENV = "TVMLINT_RULES_DIR"


def rules_dir() -> Path:
    """$TVMLINT_RULES_DIR, the wheel's copy, or the checkout's."""
    override = os.environ.get(RULES_DIR_ENV)
    if override:
        return Path(override)
    return _installed_rules_dir()


@functools.lru_cache(maxsize=None)
def _installed_rules_dir() -> Path:
    # asked once per file of a run: the answer cannot change while tvmlint runs
    package = Path(__file__).resolve().parent.parent  # tvmlint/
    packaged = package / "rules_data"
    if packaged.is_dir():
        return packaged
    return package.parent / "rules"
