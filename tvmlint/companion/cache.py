"""The registry snapshot, kept on disk per TVM install.

Where: $TVMLINT_CACHE_DIR/registry/, else registry/ in the user cache directory
(tvmlint.run.user_dirs: $XDG_CACHE_HOME/tvmlint or ~/.cache/tvmlint on Linux).
One JSON file per key; the key hashes the interpreter, TVM's location, version
and install time, the child's code and the request (build arguments from rules/),
so a reinstall, another TVM or changed build arguments never reuse a stale answer.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional


def cache_root() -> Path:
    from tvmlint.run.user_dirs import user_cache_dir

    return user_cache_dir() / "registry"


def cache_key(location: dict, request: dict) -> str:
    digest = hashlib.sha256()
    for part in (
        json.dumps(location, sort_keys=True),
        json.dumps(request, sort_keys=True),
        (Path(__file__).with_name("child.py")).read_bytes().decode("utf-8"),
    ):
        digest.update(part.encode("utf-8"))
    return digest.hexdigest()[:32]


def read(key: str) -> Optional[dict]:
    path = cache_root() / f"{key}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write(key: str, answer: dict) -> Optional[Path]:
    """Store atomically; a cache that cannot be written is only a slower next run."""
    root = cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=root, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(answer, out)
        target = root / f"{key}.json"
        os.replace(temp, target)
        return target
    except OSError:
        return None
