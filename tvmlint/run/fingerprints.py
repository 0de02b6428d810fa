"""Cheap hashes that change when tvmlint's own files do: by size and time, not content."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_stamps(root: Path, pattern: str) -> str:
    """Every file under `root` that matches `pattern`, by name, size and modification time."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(root.rglob(pattern)):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode(errors="surrogateescape"))
    return digest.hexdigest()


def code_fingerprint() -> str:
    """tvmlint's version and the size and time of every module of it."""
    from tvmlint import __version__

    return f"{__version__}:{file_stamps(Path(__file__).resolve().parent.parent, '*.py')}"  # all of tvmlint/
