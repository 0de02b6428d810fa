"""The result cache: one file's `Checked` (tvmlint.engine), keyed by everything it depends on.

A key hashes the file's content, where and how it was checked (shown path,
module name, the effective settings and rule codes, the cheap stage on or
off), the rules/ data, and tvmlint itself (its version and its code, so an
edited checkout never serves stale results). Only per-file results are
cached: the project-wide step (contexts followed across modules) runs again
on every run, so a change to a helper's module reaches its callers.

Entries are small pickles under `<cache-dir>/results/`, written atomically, so
concurrent runs can share the directory; entries unused for a month go.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import time
from pathlib import Path

DEFAULT_DIR = ".tvmlint_cache"
STALE_SECONDS = 30 * 24 * 3600
PRUNE_EVERY_SECONDS = 24 * 3600


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def code_fingerprint() -> str:
    """tvmlint's version and the size and time of every module of it."""
    from tvmlint import __version__

    package = Path(__file__).resolve().parent
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class ResultCache:
    def __init__(self, directory: Path):
        from tvmlint.knowledge import data_fingerprint

        self.directory = directory
        self.salt = f"{code_fingerprint()}:{data_fingerprint()}"
        self.hits = 0
        self.writes = 0
        self._ready = False

    def key(self, digest: str, *parts: object) -> str:
        text = "\x1f".join([self.salt, digest, *map(repr, parts)])
        return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / "results" / key[:2] / key[2:]

    def get(self, key: str):
        try:
            with open(self._path(key), "rb") as handle:
                value = pickle.load(handle)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            return None  # absent, or written by a different tvmlint: recompute
        self.hits += 1
        return value

    def put(self, key: str, value) -> None:
        path = self._path(key)
        try:
            self._prepare()
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as out:
                pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
            self.writes += 1
        except OSError:
            pass  # a read-only or full disk costs speed, never a result

    def _prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# Created by tvmlint: the result cache.\n*\n", encoding="utf-8")
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n# tvmlint's result cache\n", encoding="utf-8")

    def prune(self) -> None:
        """Drop entries untouched for a month; at most once a day."""
        marker = self.directory / "results" / ".pruned"
        now = time.time()
        try:
            if marker.exists() and now - marker.stat().st_mtime < PRUNE_EVERY_SECONDS:
                return
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
            for shard in marker.parent.iterdir():
                if not shard.is_dir():
                    continue
                for entry in shard.iterdir():
                    if now - entry.stat().st_atime > STALE_SECONDS and now - entry.stat().st_mtime > STALE_SECONDS:
                        entry.unlink()
        except OSError:
            pass


def cache_directory(settings) -> Path:
    if settings.cache_dir is not None:
        return settings.cache_dir
    return settings.root / DEFAULT_DIR
