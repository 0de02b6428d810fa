"""Where a daemon listens, and what makes it the right one for a client."""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import sys
from pathlib import Path
from typing import Optional, Tuple

DIR_ENV = "TVMLINT_DAEMON_DIR"
# sun_path holds 108 bytes on Linux, 104 on macOS
MAX_SOCKET_PATH = 100


def supported() -> bool:
    return hasattr(socket, "AF_UNIX") and os.name == "posix"


def daemon_dir() -> Optional[Path]:
    """A directory only this user can enter: $TVMLINT_DAEMON_DIR, else $XDG_RUNTIME_DIR/tvmlint,
    else the user cache directory's daemon/. None where no such directory can be had."""
    from tvmlint.run.user_dirs import user_cache_dir

    # A relative path in either variable is ignored, as the XDG base directory specification
    # says of its own: the daemon runs from `/`, where a relative one named another folder (it
    # made one at the filesystem's root). The runtime directory is the system's to make: one
    # that does not exist is passed over, not created (with a daemon left in it).
    override = _absolute(os.environ.get(DIR_ENV))
    runtime = _absolute(os.environ.get("XDG_RUNTIME_DIR"))
    if runtime is not None and not os.path.isdir(runtime):
        runtime = None
    try:
        path = Path(override) if override else Path(runtime) / "tvmlint" if runtime else user_cache_dir() / "daemon"
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except (OSError, RuntimeError):
        return None
    # a socket in a directory others can write to or own could be swapped for theirs
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return path


def _absolute(value: Optional[str]) -> Optional[str]:
    return value if value and os.path.isabs(value) else None


def identity() -> str:
    """One daemon per interpreter and tvmlint installation: a client only ever talks to a
    daemon running the same code on the same Python."""
    import tvmlint

    package = Path(tvmlint.__file__).resolve().parent
    text = f"{os.path.realpath(sys.executable)}\0{package}"
    return hashlib.blake2b(text.encode(errors="surrogateescape"), digest_size=8).hexdigest()


def socket_path() -> Optional[Path]:
    if not supported():
        return None
    directory = daemon_dir()
    if directory is None:
        return None
    path = directory / f"{identity()}.sock"
    return path if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH else None


def fingerprint() -> str:
    """tvmlint's code and its rules/ data as they are on disk now. A daemon started from other
    files (an upgrade, an edited rules table) must not answer: it holds the old ones in memory."""
    from tvmlint.knowledge.location import rules_dir
    from tvmlint.run.fingerprints import code_fingerprint, file_stamps

    rules = rules_dir()
    return f"{code_fingerprint()}:{rules}:{file_stamps(rules, '*.toml')}"



def lock_holder() -> Tuple[bool, Optional[int]]:
    """Whether a daemon holds this installation's lock (one starting up, or one that does not
    answer), and its pid when it has written it (just after taking the lock)."""
    import fcntl

    path = socket_path()
    if path is None:
        return False, None
    try:
        lock = open(path.with_suffix(".lock"), "rb")
    except OSError:
        return False, None
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = lock.read(32)
            return True, int(text) if text.isdigit() else None
        fcntl.flock(lock, fcntl.LOCK_UN)
        return False, None
