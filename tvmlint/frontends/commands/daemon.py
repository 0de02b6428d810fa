"""`tvmlint daemon start|stop|status|run`: the process `tvmlint check --daemon` hands runs to."""

from __future__ import annotations

import argparse
import sys
import time

from tvmlint.base.processes import alive
from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS

# how long `start` and `stop` wait for the daemon to come up or go
WAIT = 20.0
# how long a daemon that does not answer gets to end on SIGTERM before it is killed
TERM_WAIT = 5.0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "daemon", help="a background process that keeps tvmlint loaded for `tvmlint check --daemon`"
    )
    parser.add_argument("action", choices=("start", "stop", "status", "run"),
                        help="start it in the background, stop it, report on it, or run it in the foreground")
    parser.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS",
                        help="exit after this long without a request (default: 3600)")


def run(args: argparse.Namespace) -> int:
    from tvmlint.frontends.daemon import address

    if not address.supported():
        print("tvmlint: error: the daemon needs Unix domain sockets, which this system does not have; "
              "`check --daemon` checks in its own process here", file=sys.stderr)
        return EXIT_ERROR
    return {"start": _start, "stop": _stop, "status": _status, "run": _run}[args.action](args)


def _run(args: argparse.Namespace) -> int:
    from tvmlint.frontends.daemon.server import DEFAULT_IDLE_TIMEOUT, run_daemon

    return run_daemon(args.idle_timeout if args.idle_timeout is not None else DEFAULT_IDLE_TIMEOUT)


def _start(args: argparse.Namespace) -> int:
    from tvmlint.frontends.daemon import client

    reply = client.ask({"kind": "status"})
    if reply is not None:
        print(f"tvmlint daemon: already running (pid {reply['pid']})")
        return EXIT_CLEAN
    process = client.start_in_background(args.idle_timeout)
    if process is None:
        print("tvmlint: error: the daemon could not start (no private directory for its socket)", file=sys.stderr)
        return EXIT_ERROR
    last = {}

    def answered() -> bool:
        last["reply"] = client.ask({"kind": "status"})
        # exit 2: it could not start; exit 0: another daemon had the lock, and that one will answer
        return last["reply"] is not None or process.poll() not in (None, 0)

    _wait(answered)
    reply = last.get("reply")
    if reply is not None:
        print(f"tvmlint daemon: started (pid {reply['pid']}, socket {reply['socket']})")
        return EXIT_CLEAN
    print("tvmlint: error: the daemon did not come up; see the log beside its socket", file=sys.stderr)
    return EXIT_ERROR


def _stop(args: argparse.Namespace) -> int:
    from tvmlint.frontends.daemon import address, client

    reply = client.ask({"kind": "stop"})
    if reply is not None:
        _wait(lambda: _gone(reply["pid"], address))
        print(f"tvmlint daemon: stopped (pid {reply['pid']})")
        return EXIT_CLEAN
    # No answer, but the lock may be held: by a daemon still warming up (`check --daemon` just
    # started it) or one that no longer answers. Either would outlive a "not running".
    pid = _holder(address)
    if pid is None:
        print("tvmlint daemon: not running")
        return EXIT_CLEAN
    import signal

    _signal(pid, signal.SIGTERM)
    _wait(lambda: _gone(pid, address), TERM_WAIT)
    if alive(pid):
        _signal(pid, signal.SIGKILL)
        _wait(lambda: _gone(pid, address))
    if alive(pid):
        print(f"tvmlint: error: the daemon (pid {pid}) did not stop", file=sys.stderr)
        return EXIT_ERROR
    print(f"tvmlint daemon: stopped (pid {pid}; it was starting or not answering)")
    return EXIT_CLEAN


def _gone(pid: int, address) -> bool:
    """The daemon has ended and let go of its lock: a `daemon start` right after takes it (unless
    another daemon took it first: that one is not waited for)."""
    if alive(pid):
        return False
    held, holder = address.lock_holder()
    return not held or holder not in (None, pid)


def _holder(address):
    """The lock holder's pid; a moment is given to one that has the lock but not yet written it."""
    for _ in range(20):
        held, pid = address.lock_holder()
        if pid is not None or not held:
            return pid
        time.sleep(0.05)
    return None


def _signal(pid: int, number) -> None:
    import os

    try:
        os.kill(pid, number)
    except OSError:
        pass


def _status(args: argparse.Namespace) -> int:
    """Exit 0 when one is running, 1 when none is."""
    from tvmlint.frontends.daemon import address, client

    reply = client.ask({"kind": "status"})
    if reply is None:
        pid = _holder(address)
        if pid is not None:
            print(f"tvmlint daemon: starting, or not answering (pid {pid}); `tvmlint daemon stop` stops it")
            return EXIT_CLEAN
        print("tvmlint daemon: not running")
        return EXIT_FINDINGS
    current = reply["fingerprint"] == address.fingerprint()
    print(f"tvmlint daemon: running (pid {reply['pid']}, socket {reply['socket']})")
    print(f"  served {reply['served']} runs in {reply['uptime']:.0f} s; exits after {reply['idle_timeout']:g} s idle")
    print("  code and rules data: " + ("current" if current else "changed since it started (the next run replaces it)"))
    return EXIT_CLEAN


def _wait(done, seconds: float = WAIT) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
