"""`tvmlint daemon run`: the daemon itself.

Each connection has a thread of its own that reads the whole request (a client that sends
half of one is dropped after REQUEST_TIMEOUT, holding nobody else up) and writes the reply.
The runs themselves take turns on the main thread: a run has the process (its working
directory, environment and streams) to itself, and SIGTERM reaches it as on Ctrl-C. A
status request is answered at once, even during a run.
"""

from __future__ import annotations

import io
import os
import queue
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from tvmlint.frontends import daemon
from tvmlint.frontends.daemon import address, protocol
from tvmlint.run import cache, guards

DEFAULT_IDLE_TIMEOUT = 3600.0
# how long a connection may take to send its whole request (the client sends it at once)
REQUEST_TIMEOUT = 5.0
# how long a reply may take to be read; a client that stopped reading holds only its own thread
REPLY_TIMEOUT = 60.0
# connections open at once beyond this are closed unanswered (their clients check alone)
MAX_CONNECTIONS = 64
# how often the accepting thread looks whether the daemon is stopping
ACCEPT_POLL = 0.5

# Enough to import and run every stage once (the cheap stage, libcst with its metadata, a
# rule with findings, the text report), so that the first client does not pay for it.
_WARM_UP = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


class _Pending:
    """A check request waiting for its turn on the main thread, and then its reply."""

    def __init__(self, request: dict) -> None:
        self.request = request
        self.reply: Optional[dict] = None
        self.done = threading.Event()

    def answer(self, reply: dict) -> None:
        self.reply = reply
        self.done.set()


class Daemon:
    def __init__(self, path: Path, idle_timeout: float) -> None:
        self.path = path
        self.idle_timeout = idle_timeout
        self.started = time.time()
        self.served = 0
        self.fingerprint = ""
        self._lock_file = None
        self._listener: Optional[socket.socket] = None
        self._runs: "queue.Queue[Optional[_Pending]]" = queue.Queue()
        self._stopping = threading.Event()
        self._state = threading.Lock()  # guards what follows, and close()
        self._connections: set = set()  # threads serving a connection
        self._last_activity = time.monotonic()

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
        # who holds it, for `daemon stop` while this one warms up or does not answer
        self._lock_file.truncate(0)
        self._lock_file.write(str(os.getpid()).encode())
        self._lock_file.flush()
        return True

    def warm_up(self) -> None:
        from tvmlint.output.safe import encode_anything
        from tvmlint.run.config import SettingsResolver

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
        listener.settimeout(ACCEPT_POLL)
        self._listener = listener

    def serve(self) -> None:
        """Take the runs in turn until told to stop or idle for idle_timeout."""
        listener = self._listener
        if listener is None:
            return
        threading.Thread(target=self._accept, args=(listener,), name="tvmlint-accept", daemon=True).start()
        try:
            while not self._stopping.is_set():
                try:
                    pending = self._runs.get(timeout=max(0.05, min(self._idle_left(), 5.0)))
                except queue.Empty:
                    with self._state:
                        busy = bool(self._connections)
                    if self._idle_left() <= 0 and not busy:
                        break
                    continue
                if pending is None:  # stop, from a connection's thread
                    break
                reply, stop = self.answer(pending.request)
                if stop:
                    self.close()  # before the reply: the client may start the next daemon at once
                pending.answer(reply)
                self._touch()
                if stop:
                    break
        finally:
            self.close()
            self._refuse_waiting()
            self._finish_connections()

    def _accept(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:  # closed: the daemon is stopping
                break
            with self._state:
                crowded = len(self._connections) >= MAX_CONNECTIONS or self._stopping.is_set()
                if not crowded:
                    thread = threading.Thread(target=self._connection, args=(connection,),
                                              name="tvmlint-connection", daemon=True)
                    self._connections.add(thread)
                    self._last_activity = time.monotonic()
            if crowded:
                connection.close()
                continue
            thread.start()
        try:
            listener.close()
        except OSError:
            pass

    def _connection(self, connection: socket.socket) -> None:
        """One client: its whole request within REQUEST_TIMEOUT, then its turn, then the reply."""
        try:
            with connection:
                try:
                    request = protocol.receive(connection, time.monotonic() + REQUEST_TIMEOUT)
                except OSError:  # incomplete in time, or the client went away
                    return
                if request is None:
                    return
                self._touch()
                reply = self._reply_to(connection, request)
                if reply is None:
                    return
                try:
                    protocol.send(connection, reply, time.monotonic() + REPLY_TIMEOUT)
                except OSError:  # the client went away (Ctrl-C, its own timeout): its run is not reported
                    pass
        finally:
            with self._state:
                self._connections.discard(threading.current_thread())
                self._last_activity = time.monotonic()

    def _reply_to(self, connection: socket.socket, request: dict) -> Optional[dict]:
        kind = request.get("kind")
        if kind == "status":
            return self.status()
        if kind == "stop":
            self.stop()
            return {"kind": "stopped", "pid": os.getpid()}
        if kind != "check":
            return {"kind": "refused", "why": "unknown request"}
        try:  # the client knows now that a live daemon has its request: it waits for the run
            protocol.send(connection, {"kind": "accepted"}, time.monotonic() + REQUEST_TIMEOUT)
        except OSError:
            return None
        pending = _Pending(request)
        self._runs.put(pending)
        if self._stopping.is_set():  # the main thread may have drained the queue before the put
            self._refuse_waiting()
        pending.done.wait()
        return pending.reply

    def stop(self) -> None:
        """Stop taking connections at once; a run under way finishes, the waiting ones are refused."""
        self._stopping.set()
        self.close()  # before the reply: the client may start the next daemon at once
        self._runs.put(None)

    def _refuse_waiting(self) -> None:
        while True:
            try:
                pending = self._runs.get_nowait()
            except queue.Empty:
                return
            if pending is not None:
                pending.answer({"kind": "refused", "why": "the daemon is stopping"})

    def _finish_connections(self, seconds: float = 5.0) -> None:
        """Give the replies under way a moment to be written before the process goes."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._state:
                threads = list(self._connections)
            if not threads:
                return
            threads[0].join(max(0.0, deadline - time.monotonic()))

    def _touch(self) -> None:
        with self._state:
            self._last_activity = time.monotonic()

    def _idle_left(self) -> float:
        with self._state:
            return self._last_activity + self.idle_timeout - time.monotonic()

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
        from tvmlint.frontends.cli import main

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
        """Give up the socket's path and the lock (in that order: the next daemon may bind as
        soon as it has the lock). The accepting thread closes the listener itself."""
        with self._state:
            self._stopping.set()
            listener, self._listener = self._listener, None
            if listener is not None:
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
                try:
                    listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread on Linux
                except OSError:
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
    from tvmlint.run.runner import check_text

    path = Path("warm_up.py")
    findings = check_text(text, path, resolver.for_path(path))
    renderer("text")(findings, 1, sys.stdout, sources={str(path): text})


def run_daemon(idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> int:
    """The daemon's life: 0 when it ended as asked (stop, idle, stale, or another already
    runs), 2 when it could not start."""
    path = address.socket_path()
    if path is None:
        print("tvmlint: error: the daemon has no private directory for a socket on this system", file=sys.stderr)
        return 2
    server = Daemon(path, idle_timeout)
    if not server.claim():
        return 0
    daemon.SERVING = True
    cache.keep_stores()
    guards.remember_parts()
    _stop_on_sigterm()
    try:
        server.warm_up()
        server.listen()
        print(f"tvmlint daemon {os.getpid()}: listening on {path}", file=sys.stderr, flush=True)
        server.serve()
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"tvmlint: error: the daemon stopped: {error}", file=sys.stderr)
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
