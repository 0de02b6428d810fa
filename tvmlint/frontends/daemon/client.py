"""`tvmlint check --daemon`: hand the run to the daemon, or say it could not (None) and
let the caller check in its own process."""

from __future__ import annotations

import argparse
import io
import math
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

from tvmlint.frontends.daemon import address, protocol

# how long to wait for a daemon to take the connection; a live one accepts at once
CONNECT_TIMEOUT = 1.0
# how long a live daemon takes to read the request and say it has it
HANDSHAKE_TIMEOUT = 5.0
# how long to wait for the run's reply before checking alone (--daemon-timeout, or this variable)
TIMEOUT_ENV = "TVMLINT_DAEMON_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
# `daemon status` and `daemon stop`: answered at once by a live daemon
ASK_TIMEOUT = 10.0


def forward(argv: List[str], args: argparse.Namespace) -> Optional[int]:
    """The exit code of the run the daemon made for `argv`, its output written here; None
    when there is no daemon to make it (one is started for the next run), it failed, or it
    did not answer within the timeout (said on stderr)."""
    if args.fix:
        return None  # `check --fix` with --daemon is refused by the command itself
    path = address.socket_path()
    if path is None:
        return None
    stdin = _read_stdin_if_used(args)
    request = _request(argv, stdin)  # before connecting: the daemon waits for none of this
    connection = connect(path)
    if connection is None:
        start_in_background()
        return None
    timeout = reply_timeout(args)
    with connection:
        try:
            reply = _exchange(connection, request, timeout)
        except _NoAnswer as silence:
            print(f"tvmlint: {silence}; checking in this process", file=sys.stderr, flush=True)
            return None
        except OSError:
            reply = None
    if reply is None or reply.get("kind") != "done":
        if reply is not None and reply.get("kind") == "stale":
            start_in_background()  # the stale one has let go of its socket
        return None
    for name, data in reply["output"]:
        _write(sys.stdout if name == "stdout" else sys.stderr, protocol.unpack(data))
    return int(reply["code"])


class _NoAnswer(Exception):
    """The daemon did not take the request, or did not answer, in time."""


def _exchange(connection: socket.socket, request: dict, timeout: float) -> Optional[dict]:
    """Send the request and wait for the run's reply: the daemon first says it has the
    request (within HANDSHAKE_TIMEOUT: a daemon that is stopped or stuck is not waited on
    for the whole run's time), then answers within `timeout` of that."""
    seconds = min(HANDSHAKE_TIMEOUT, timeout)
    reader = protocol.Reader(connection)
    try:
        handshake = time.monotonic() + seconds
        protocol.send(connection, request, handshake)
        reply = reader.receive(handshake)
    except socket.timeout:
        raise _NoAnswer(f"the daemon did not take the request within {seconds:g} s") from None
    if reply is not None and reply.get("kind") == "accepted":
        try:
            reply = reader.receive(time.monotonic() + timeout)
        except socket.timeout:
            raise _NoAnswer(f"the daemon did not answer within {timeout:g} s (--daemon-timeout)") from None
    return reply


def reply_timeout(args: argparse.Namespace) -> float:
    """Seconds to wait for the daemon's run: --daemon-timeout, else $TVMLINT_DAEMON_TIMEOUT,
    else DEFAULT_TIMEOUT (a value that is not a positive number counts as not given)."""
    for value in (getattr(args, "daemon_timeout", None), os.environ.get(TIMEOUT_ENV)):
        try:
            seconds = float(value) if value is not None else 0.0
        except ValueError:
            continue
        if seconds > 0 and math.isfinite(seconds):
            return seconds
    return DEFAULT_TIMEOUT


def connect(path: Path) -> Optional[socket.socket]:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(CONNECT_TIMEOUT)
    try:
        connection.connect(str(path))
    except OSError:  # no socket, or one a dead daemon left behind
        connection.close()
        return None
    return connection


def ask(message: dict) -> Optional[dict]:
    """A control message (`status`, `stop`) and the daemon's answer; None when none answers."""
    path = address.socket_path()
    connection = connect(path) if path is not None else None
    if connection is None:
        return None
    deadline = time.monotonic() + ASK_TIMEOUT
    with connection:
        try:
            protocol.send(connection, message, deadline)
            return protocol.receive(connection, deadline)
        except OSError:  # socket.timeout among them: a daemon that does not answer is none
            return None


def start_in_background(idle_timeout: Optional[float] = None) -> Optional[subprocess.Popen]:
    """Start `tvmlint daemon run` detached from this process: its own session, no terminal,
    none of our pipes (pre-commit waits for every writer of its pipe to close)."""
    path = address.socket_path()
    if path is None:
        return None
    import tvmlint

    package_parent = str(Path(tvmlint.__file__).resolve().parent.parent)
    env = dict(os.environ)
    # The same tvmlint the client runs, whatever the daemon's working directory. Only when
    # this one came from the script's directory or the working directory (sys.path[0]):
    # a site directory put first would come before the standard library.
    if package_parent not in {os.path.realpath(entry) for entry in sys.path[1:] if entry}:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "tvmlint", "daemon", "run"]
    if idle_timeout is not None:
        command += ["--idle-timeout", str(idle_timeout)]
    try:
        with open(path.with_suffix(".log"), "ab") as log:
            return subprocess.Popen(
                command, cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True, close_fds=True,
            )
    except OSError:
        return None


def _request(argv: List[str], stdin: Optional[bytes]) -> dict:
    env = dict(os.environ)
    if sys.stdout.isatty() and "COLUMNS" not in env:
        try:  # the daemon has no terminal to ask for the width
            env["COLUMNS"] = str(os.get_terminal_size(sys.stdout.fileno()).columns)
        except (OSError, ValueError):
            pass
    return {
        "kind": "check",
        "protocol": protocol.VERSION,
        "fingerprint": address.fingerprint(),
        "argv": argv,
        "cwd": os.getcwd(),
        "env": env,
        "stdin": protocol.pack(stdin) if stdin is not None else None,
        "streams": {name: _describe(getattr(sys, name)) for name in ("stdout", "stderr")},
    }


def _describe(stream) -> dict:
    return {"tty": _isatty(stream), "encoding": getattr(stream, "encoding", None) or "utf-8",
            "errors": getattr(stream, "errors", None) or "strict"}


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (OSError, ValueError):
        return False


MAX_STDIN = 64 << 20


def _read_stdin_if_used(args: argparse.Namespace) -> Optional[bytes]:
    """The buffer on stdin, read once: sent to the daemon, and put back for this process in
    case the run falls back to it."""
    from tvmlint.frontends.commands.stdin import reads_stdin

    if not reads_stdin(args):
        return None
    # bounded before the settings are read (they decide max-file-size): no buffer past this is source
    from tvmlint.base.source import TooLarge, read_stream

    try:
        data = read_stream(sys.stdin.buffer, MAX_STDIN)
    except TooLarge as error:
        from tvmlint.frontends.commands import UsageError

        raise UsageError(f"the input is {error.strerror}") from None
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding=sys.stdin.encoding, errors=sys.stdin.errors)
    return data


def _write(stream, data: bytes) -> None:
    if not data:
        return
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a replaced stream (a test's capture): text it is
        stream.write(data.decode(getattr(stream, "encoding", None) or "utf-8", errors="replace"))
