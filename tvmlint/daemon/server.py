"""`tvmlint daemon run`: the daemon itself. It answers one connection at a time, so each run
has the process (its working directory, environment and streams) to itself."""

from __future__ import annotations

import io
import os
import signal
import socket
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from tvmlint import daemon
from tvmlint.daemon import address, protocol

DEFAULT_IDLE_TIMEOUT = 3600.0

# Enough to import and run every stage once (the cheap stage, libcst with its metadata, a
# rule with findings, the text report), so that the first client does not pay for it.
_WARM_UP = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


class Daemon:
    def __init__(self, path: Path, idle_timeout: float) -> None:
        self.path = path
        self.idle_timeout = idle_timeout
        self.started = time.time()
        self.served = 0
        self.fingerprint = ""
        self._lock_file = None
        self._listener: Optional[socket.socket] = None

    def claim(self) -> bool:
        """Take the lock that makes this the one daemon for its socket; False if another has it."""
        import fcntl

        self._lock_file = open(self.path.with_suffix(".lock"), "a+b")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            self._lock_file = None
            return False
        return True

    def warm_up(self) -> None:
        from tvmlint.config import SettingsResolver
        from tvmlint.output.safe import encode_anything

        encode_anything()  # registers the error handler clients' streams name
        import rich.console  # noqa: F401  (a client on a terminal gets its colours through rich)
        import rich.text  # noqa: F401

        before = address.fingerprint()
        resolver = SettingsResolver()
        self._run_quietly(lambda: _check_text(_WARM_UP, resolver))
        after = address.fingerprint()
        # files changed while loading: what is in memory may be neither
        self.fingerprint = before if before == after else ""

    def listen(self) -> None:
        try:
            self.path.unlink()  # left by a daemon that died; the lock says none is running
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        os.chmod(self.path, 0o600)
        listener.listen(16)
        listener.settimeout(self.idle_timeout)
        self._listener = listener

    def serve(self) -> None:
        while self._listener is not None:
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                break
            with connection:
                connection.settimeout(30.0)  # a client that connects and sends nothing
                try:
                    request = protocol.receive(connection)
                except OSError:
                    continue
                if request is None:
                    continue
                connection.settimeout(None)
                reply, stop = self.answer(request)
                if stop:
                    self.close()  # before the reply: the client may start the next daemon at once
                try:
                    protocol.send(connection, reply)
                except OSError:  # the client went away (Ctrl-C); its run is simply not reported
                    pass
                if stop:
                    break

    def answer(self, request: dict):
        kind = request.get("kind")
        if kind == "status":
            return self.status(), False
        if kind == "stop":
            return {"kind": "stopped", "pid": os.getpid()}, True
        if kind != "check":
            return {"kind": "refused", "why": "unknown request"}, False
        # another protocol is another tvmlint: like other code, it gets a daemon of its own
        if request.get("protocol") != protocol.VERSION or not self.fingerprint or request.get("fingerprint") != self.fingerprint:
            return {"kind": "stale"}, True
        try:
            code, output = self.run(request)
        except Exception as error:  # the client checks in its own process instead
            return {"kind": "refused", "why": f"{type(error).__name__}: {error}"}, False
        if _terminated:
            # SIGTERM came during the run, which stopped as on Ctrl-C: the client checks alone
            return {"kind": "refused", "why": "the daemon was told to stop"}, True
        self.served += 1
        return {"kind": "done", "code": code, "output": output}, False

    def status(self) -> dict:
        return {"kind": "status", "pid": os.getpid(), "socket": str(self.path), "served": self.served,
                "uptime": time.time() - self.started, "idle_timeout": self.idle_timeout,
                "fingerprint": self.fingerprint}

    def run(self, request: dict):
        from tvmlint.cli import main

        streams = request["streams"]
        written: List[Tuple[str, bytes]] = []
        out, err = (_Capture(name, written, **streams[name]) for name in ("stdout", "stderr"))
        stdin = protocol.unpack(request["stdin"]) if request.get("stdin") is not None else b""
        with _client_process(request["cwd"], request["env"]), _streams(out, err, stdin):
            code = main(list(request["argv"]))
        out.flush()
        err.flush()
        return code, [[name, protocol.pack(data)] for name, data in _joined(written)]

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        if self._lock_file is not None:
            self._lock_file.close()  # releases the lock
            self._lock_file = None

    @staticmethod
    def _run_quietly(work) -> None:
        discarded: List[Tuple[str, bytes]] = []
        with _streams(_Capture("stdout", discarded), _Capture("stderr", discarded), b""):
            work()


def _check_text(text: str, resolver) -> None:
    from tvmlint.output import renderer
    from tvmlint.runner import check_text

    path = Path("warm_up.py")
    findings = check_text(text, path, resolver.for_path(path))
    renderer("text")(findings, 1, sys.stdout, sources={str(path): text})


def run_daemon(idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> int:
    """The daemon's life: 0 when it ended as asked (stop, idle, stale, or another already
    runs), 2 when it could not start."""
    path = address.socket_path()
    if path is None:
        print("tvmlint daemon: no private directory for a socket on this system", file=sys.stderr)
        return 2
    server = Daemon(path, idle_timeout)
    if not server.claim():
        return 0
    daemon.SERVING = True
    _stop_on_sigterm()
    try:
        server.warm_up()
        server.listen()
        print(f"tvmlint daemon {os.getpid()}: listening on {path}", file=sys.stderr, flush=True)
        server.serve()
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"tvmlint daemon: {error}", file=sys.stderr)
        return 2
    finally:
        server.close()
    return 0


_terminated = False


def _stop_on_sigterm() -> None:
    def handler(signum, frame):
        global _terminated
        _terminated = True
        raise KeyboardInterrupt  # out of accept(); inside a run, cli.main turns it into exit 2

    signal.signal(signal.SIGTERM, handler)
    # the worker processes a run forks die on SIGTERM as usual (the pool stops them with it)
    os.register_at_fork(after_in_child=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))


class _Capture(io.TextIOWrapper):
    """A client's stdout or stderr, as it described it (a terminal or not, its encoding). What
    is written to either goes to one list, in order: the client writes it back in that order,
    so a note to stderr still comes before the report it preceded."""

    def __init__(self, name: str, written: List[Tuple[str, bytes]], tty: bool = False,
                 encoding: str = "utf-8", errors: str = "strict") -> None:
        super().__init__(_Sink(name, written), encoding=encoding, errors=errors, write_through=True)
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty

    def fileno(self) -> int:
        raise io.UnsupportedOperation("a daemon's captured stream has no file descriptor")


class _Sink(io.BytesIO):
    def __init__(self, name: str, written: List[Tuple[str, bytes]]) -> None:
        super().__init__()
        self._name = name
        self._written = written

    def write(self, data) -> int:
        self._written.append((self._name, bytes(data)))
        return len(data)


def _joined(written: List[Tuple[str, bytes]]) -> List[Tuple[str, bytes]]:
    """Consecutive writes to the same stream as one."""
    runs: List[Tuple[str, List[bytes]]] = []
    for name, data in written:
        if not data:
            continue
        if runs and runs[-1][0] == name:
            runs[-1][1].append(data)
        else:
            runs.append((name, [data]))
    return [(name, b"".join(parts)) for name, parts in runs]


@contextmanager
def _client_process(cwd: str, env: dict) -> Iterator[None]:
    """Run as the client's process would: its working directory and environment."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    os.chdir(cwd)
    try:
        os.environ.clear()
        os.environ.update(env)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)


@contextmanager
def _streams(out: _Capture, err: _Capture, stdin: bytes) -> Iterator[None]:
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
