"""Running the child: one JSON request in, one JSON answer out, within a time limit."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Optional

from tvmlint.companion import CompanionError

CHILD = Path(__file__).with_name("child.py")
TIMEOUT_ENV = "TVMLINT_TVM_TIMEOUT"
# Importing TVM and building every pass takes a few seconds; a cold disk or a
# source build with many targets can take far longer, so the default is generous.
DEFAULT_TIMEOUT = 120.0


def seconds(text: str) -> Optional[float]:
    """A time limit: a positive, finite number of seconds; None for anything else (inf and nan
    would reach the subprocess and queue calls, which reject them; 0 or less never waits)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def default_timeout() -> float:
    text = os.environ.get(TIMEOUT_ENV)
    if text:
        value = seconds(text)
        if value is None:
            raise CompanionError(f"${TIMEOUT_ENV} is not a positive number of seconds: {text!r}")
        return value
    return DEFAULT_TIMEOUT


def interpreter(tvm_python: Optional[str]) -> str:
    return str(tvm_python) if tvm_python else sys.executable


def _crash(what: str, returncode: int) -> CompanionError:
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return CompanionError(f"{what} crashed ({name}) while importing or running TVM")


def _checked(what: str, answer: object) -> dict:
    if not isinstance(answer, dict):
        raise CompanionError(f"{what} gave an answer tvmlint does not understand")
    if "error" in answer:
        raise CompanionError(f"{what}: {answer['error']}")
    return answer


class ChildSession:
    """One child for many questions (probe runs, config checks), so TVM is imported once.

    Each question has the full time limit; a child that overruns it is killed.
    """

    def __init__(self, python: str, timeout: float):
        self.python = python
        self.timeout = timeout
        self.what = f"the TVM companion ({python})"
        self._process: Optional[subprocess.Popen] = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr = None

    def _start(self) -> subprocess.Popen:
        self._stderr = tempfile.TemporaryFile(mode="w+")
        try:
            process = subprocess.Popen(
                [self.python, str(CHILD), "--serve"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True,
                start_new_session=True,  # its own process group: stopped with whatever it forked
            )
        except OSError as error:
            raise CompanionError(f"{self.what} could not be started: {error.strerror or error}") from None

        def pump() -> None:
            for line in process.stdout:
                self._lines.put(line)
            self._lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        return process

    def ask(self, request: dict) -> dict:
        if self._process is None:
            self._process = self._start()
        process = self._process
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        except OSError:
            pass  # it has died: the reader reports how
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close(hung=True)
            raise CompanionError(f"{self.what} gave no answer within {self.timeout:g}s and was stopped") from None
        if line is None:
            returncode = process.wait()
            self._process = None
            if returncode < 0:
                raise _crash(self.what, returncode)
            raise CompanionError(f"{self.what} stopped answering (exit {returncode}): {self._last_stderr()}")
        try:
            return _checked(self.what, json.loads(line))
        except ValueError:
            raise CompanionError(f"{self.what} gave an answer tvmlint does not understand") from None

    def _last_stderr(self) -> str:
        self._stderr.seek(0)
        return (self._stderr.read().strip().splitlines() or ["no output"])[-1]

    def close(self, hung: bool = False) -> None:
        """End the child: told by the end of its input, given a moment to finish; `hung`: it
        overran a question's time, and is killed at once (it would only overrun that moment too)."""
        process, self._process = self._process, None
        if process is None:
            return
        if hung:
            _stop_group(process)
            return
        try:
            process.stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            _stop_group(process)
        else:
            _stop_group(process)  # what it forked and left running


def run_child(python: str, request: dict, timeout: float) -> dict:
    """The child's answer; CompanionError (one line) when there is none to be had."""
    what = f"the TVM companion ({python})"
    try:
        # its own process group, stopped whole: a child that forks would otherwise leave its
        # grandchild running, holding the pipes open (subprocess.run then waits on them for ever)
        process = subprocess.Popen([python, str(CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
    except OSError as error:
        raise CompanionError(f"{what} could not be started: {error.strerror or error}") from None
    try:
        stdout, stderr = process.communicate(json.dumps(request), timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CompanionError(f"{what} gave no answer within {timeout:g}s and was stopped") from None
    finally:
        _stop_group(process)  # and whatever it forked
    if process.returncode < 0:
        raise _crash(what, process.returncode)
    try:
        answer = json.loads(stdout)
    except ValueError:
        last = (stderr.strip().splitlines() or ["no output"])[-1]
        raise CompanionError(f"{what} did not answer (exit {process.returncode}): {last}") from None
    return _checked(what, answer)


def _stop_group(process: subprocess.Popen) -> None:
    """Kill the child's process group (it leads one of its own) and reap the child."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    for stream in (process.stdin, process.stdout, process.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
