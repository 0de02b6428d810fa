"""Reading rules/ TOML: parsed once, then kept as a pickle beside it, as Python keeps bytecode.

Python's TOML parser takes about 50 ms for the tables a run reads, a sixth of
checking one file on its own; the pickle loads in a millisecond or two. Each
pickle (`__pycache__/NAME.toml.pickle` next to the TOML) records the TOML
file's signature (tvmlint.base.filestate): a file changed since is parsed again, and
a pickle is only written when its signature can vouch for it. Where the
directory is read-only, or Python is told not to write bytecode, nothing is
written and every run parses.
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

from tvmlint.base.filestate import now_ns, signature, trusted

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
