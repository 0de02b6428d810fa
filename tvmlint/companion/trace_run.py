"""`tvmlint trace`, tvmlint's side: run the user's Python command with the tracer, and collect the journal.

This is the one place tvmlint runs the user's code. The command runs as the
user typed it, in a process group of its own (so --timeout stops whatever it
forked), with trace_boot/ first on its PYTHONPATH and the options in
$TVMLINT_TRACE; nothing else about it changes. Its journal is read into a trace
document whenever it grows (`on_update`, so an output file is complete at any
moment) and once more when it has ended, whichever way it ended.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

from tvmlint.companion import CompanionError
from tvmlint.companion.trace_command import Command
from tvmlint.companion.trace_journal import document

BOOT = Path(__file__).with_name("trace_boot")
GRACE = 3.0  # after Ctrl-C or --timeout, how long the script has to unwind before it is killed
REFRESH = 1.0  # how often a growing journal is turned into the output file


def check_tvm(python: str, timeout: float) -> dict:
    """Where the command's interpreter finds TVM, without importing it; CompanionError when it finds none or one too old."""
    from tvmlint.base.versions import parse_version, release_of_package
    from tvmlint.companion.process import run_child
    from tvmlint.knowledge.target import instruments_since

    where = run_child(python, {"op": "locate"}, timeout)
    if not where.get("found"):
        raise CompanionError(f"no TVM is installed for {where.get('python') or python} (`import tvm` would fail): nothing to trace")
    release, since = release_of_package(where.get("version") or ""), instruments_since()
    if release is not None and release < parse_version(since):
        raise CompanionError(f"TVM {where['version']} has no PassInstrument (TVM {since} added it): trace needs {since} or newer")
    return where


@dataclass
class Outcome:
    document: dict
    returncode: Optional[int]
    timed_out: bool = False
    interrupted: bool = False
    notes: List[str] = field(default_factory=list)


def run(command: Command, options: dict, timeout: Optional[float], stdout=None,
        on_update: Optional[Callable[[dict], None]] = None) -> Outcome:
    """Run the command traced; the trace of whatever ran, however the run ended."""
    started, clock = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tvmlint-trace-") as scratch:
        journal = os.path.join(scratch, "journal.jsonl")
        open(journal, "wb").close()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(BOOT), env.get("PYTHONPATH")]))
        env["TVMLINT_TRACE"] = json.dumps(dict(options, journal=journal))
        try:
            process = subprocess.Popen(command.argv, env=env, stdout=stdout,
                                       preexec_fn=os.setpgrp)  # a group of its own, stopped whole
        except OSError as error:
            raise CompanionError(f"{command.argv[0]} could not be started: {error.strerror or error}") from None
        terminal = _our_terminal()
        if terminal is not None:  # the script reads the terminal (input(), pdb) and gets its Ctrl-C, as if run alone
            _hand_terminal(terminal, process.pid)
            _signal_group(process, signal.SIGCONT)  # in case it read before it had the terminal, and was stopped

        def meta(code: Optional[int], timed_out: bool, interrupted: bool) -> dict:
            return {"command": command.argv, "cwd": os.getcwd(), "started": started,
                    "seconds": round(time.monotonic() - clock, 3),
                    "exit": _exit(code, timed_out, interrupted)}

        def current(code=None, timed_out=False, interrupted=False) -> dict:
            with open(journal, "rb") as handle:
                return document(handle.read(), meta(code, timed_out, interrupted))

        timed_out = interrupted = False
        deadline = None if timeout is None else time.monotonic() + timeout
        size = 0
        while True:
            try:
                try:
                    code = process.wait(timeout=REFRESH)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if deadline is not None and time.monotonic() >= deadline:
                    timed_out = True
                    code = _stop(process, signal.SIGINT)
                    break
                grown = os.path.getsize(journal)
                if on_update is not None and grown != size:
                    size = grown
                    on_update(current())
            except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (the command line makes it one), at any point here
                interrupted = True
                code = _stop(process, signal.SIGINT)
                break
        if terminal is not None:
            _hand_terminal(terminal, os.getpgrp())
        _kill_group(process)  # what it forked and left running would write on after the trace is taken
        return Outcome(current(code, timed_out, interrupted), code, timed_out, interrupted)


def _our_terminal() -> Optional[int]:
    """stdin's terminal, when tvmlint runs in its foreground: the script's own group then takes it."""
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            return 0
    except OSError:
        pass
    return None


def _hand_terminal(fd: int, group: int) -> None:
    # a process outside the foreground group that sets it is sent SIGTTOU: ignored while it does
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(fd, group)
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTTOU, previous)


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except OSError:
        pass


def _exit(code: Optional[int], timed_out: bool, interrupted: bool) -> Optional[dict]:
    if code is None and not (timed_out or interrupted):
        return None  # still running: an interim document
    out = {"code": code, "signal": None, "timed_out": timed_out, "interrupted": interrupted}
    if code is not None and code < 0:
        try:
            out["signal"] = signal.Signals(-code).name
        except ValueError:
            out["signal"] = f"signal {-code}"
    return out


def _stop(process: subprocess.Popen, first: int) -> Optional[int]:
    """Ask the script's process group to stop (SIGINT: Python unwinds, `finally` blocks run), then kill it."""
    _signal_group(process, first)
    try:
        return process.wait(timeout=GRACE)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        _kill_group(process)
        return process.wait()


def _kill_group(process: subprocess.Popen) -> None:
    _signal_group(process, signal.SIGKILL)


def exit_status(outcome: Outcome) -> int:
    """The script's exit code as a shell gives it: 128+N when signal N ended it."""
    code = outcome.returncode
    if code is None:
        return 2
    return 128 - code if code < 0 else code
