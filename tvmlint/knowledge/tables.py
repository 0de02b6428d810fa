"""Reading rules/ TOML (the loader every knowledge module reads through): parsed once, then kept as a pickle beside it, as Python keeps bytecode.

Python's TOML parser takes about 50 ms for the tables a run reads, a sixth of
checking one file on its own; the pickle loads in a millisecond or two. Each
pickle (`__pycache__/NAME.toml.pickle` next to the TOML) records the TOML
file's signature (tvmlint.base.filestate): a file changed since is parsed again, and
a pickle is only written when its signature can vouch for it. Where the
directory is read-only, or Python is told not to write bytecode, nothing is
written and every run parses.
"""

from __future__ import annotations

import functools
import os
import pickle
import sys
from pathlib import Path

from tvmlint.base.filestate import now_ns, signature, trusted
from tvmlint.knowledge.location import rules_dir

FORMAT = 1


def load_toml(path: Path) -> dict:
    seen = now_ns()
    sig = signature(os.stat(path))
    compiled = path.parent / "__pycache__" / f"{path.name}.pickle"
    try:
        with open(compiled, "rb") as handle:
            stored = pickle.load(handle)
        if stored[0] == FORMAT and stored[1] == sig and trusted(sig, stored[2]):
            return stored[3]
    except Exception:  # absent, damaged or of another format: parse the TOML
        pass
    data = parse_toml(path)
    if trusted(sig, seen) and not sys.dont_write_bytecode:
        _write(compiled, (FORMAT, sig, seen, data))
    return data


@functools.lru_cache(maxsize=None)
def load_from(directory: str, name: str) -> dict:
    """One table of one rules/ directory (`directory` keys the cache, so a changed
    $TVMLINT_RULES_DIR is honoured); an absent table reads as empty."""
    path = Path(directory) / name
    if not path.exists():
        return {}
    return load_toml(path)


def load_table(name: str) -> dict:
    return load_from(str(rules_dir()), name)


def cached(function):
    """`function` of the tables, computed once per rules/ directory (so a changed
    $TVMLINT_RULES_DIR is honoured) and per arguments."""
    store = functools.lru_cache(maxsize=None)(lambda directory, *args: function(*args))

    @functools.wraps(function)
    def per_directory(*args):
        return store(str(rules_dir()), *args)

    return per_directory


def data_fingerprint() -> str:
    """A hash of every rules/ file, so caches notice when the knowledge changes."""
    import hashlib  # only the result cache asks; loading OpenSSL costs a run on one file 2 ms

    digest = hashlib.sha256()
    root = rules_dir()
    for path in sorted(root.rglob("*.toml")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def toml():
    """The TOML parser module, imported when a file must be parsed."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on old interpreters only
        import tomli as tomllib
    return tomllib


def parse_toml(path: Path) -> dict:
    with open(path, "rb") as handle:
        return toml().load(handle)


def _write(compiled: Path, stored: tuple) -> None:
    import tempfile

    try:
        compiled.parent.mkdir(exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=compiled.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(stored, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, compiled)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # a read-only install parses every time
