"""Running the child: one JSON request in, one JSON answer out, within a time limit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Optional

from tvmlint.companion import CompanionError

CHILD = Path(__file__).with_name("child.py")
TIMEOUT_ENV = "TVMLINT_TVM_TIMEOUT"
# Importing TVM and building every pass takes a few seconds; a cold disk or a
# source build with many targets can take far longer, so the default is generous.
DEFAULT_TIMEOUT = 120.0


def default_timeout() -> float:
    text = os.environ.get(TIMEOUT_ENV)
    if text:
        try:
            return float(text)
        except ValueError:
            raise CompanionError(f"${TIMEOUT_ENV} is not a number of seconds: {text!r}") from None
    return DEFAULT_TIMEOUT


def interpreter(tvm_python: Optional[str]) -> str:
    return str(tvm_python) if tvm_python else sys.executable


def run_child(python: str, request: dict, timeout: float) -> dict:
    """The child's answer; CompanionError (one line) when there is none to be had."""
    what = f"the TVM companion ({python})"
    try:
        done = subprocess.run(
            [python, str(CHILD)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise CompanionError(f"{what} gave no answer within {timeout:g}s and was stopped") from None
    except OSError as error:
        raise CompanionError(f"{what} could not be started: {error.strerror or error}") from None
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        raise CompanionError(f"{what} crashed ({name}) while importing or running TVM")
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CompanionError(f"{what} did not answer (exit {done.returncode}): {last}") from None
    if not isinstance(answer, dict):
        raise CompanionError(f"{what} gave an answer tvmlint does not understand")
    if "error" in answer:
        raise CompanionError(f"{what}: {answer['error']}")
    return answer
