"""A time budget for one file's analysis, the same in every thread and process that analyses.

`within(seconds, work, over)` runs `work()`; if it is still running `seconds` later, an
`OverTime` exception is raised inside it (CPython's PyThreadState_SetAsyncExc, from one
watchdog thread per process) and `over()` is returned instead. Why not SIGALRM: the language
server explains in a thread of its own, where a signal handler cannot be set, and a signal
interrupts the system calls of whatever thread it lands on. Why not a deadline polled in the
loops: the time may go anywhere (the parser's recovery, a rule's `finish`, positions), and a
poll in the hot loops costs on every file. Here the normal path pays one lock per file: the
watchdog sleeps until the earliest deadline and is woken only when a deadline comes before
it, which a run of files with equal budgets never does.

Like a signal, the exception is delivered between bytecodes: a single call into C (the stdlib
parser, libcst's native parser) runs to its end first; the size and depth guards bound those.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from typing import Callable, Dict, Optional, TypeVar

T = TypeVar("T")


class OverTime(BaseException):
    """Raised inside an analysis past its budget. A BaseException, as KeyboardInterrupt is, so that
    no `except Exception` of the analysis takes it for the analysis' own failure."""


# (thread id, exception type): raise it in that thread at its next bytecode; (thread id, NULL): withdraw it
_raise_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(("PyThreadState_SetAsyncExc", ctypes.pythonapi))
_withdraw_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(("PyThreadState_SetAsyncExc", ctypes.pythonapi))


class _Armed:
    __slots__ = ("thread", "deadline", "fired")

    def __init__(self, thread: int, deadline: float):
        self.thread = thread
        self.deadline = deadline
        self.fired = False


class _Watchdog:
    """One per process (a forked child makes its own: threads do not survive fork)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.armed: Dict[int, _Armed] = {}  # by thread: one budget per thread at a time
        self.waiting_until: Optional[float] = None  # None: asleep until woken
        self.thread: Optional[threading.Thread] = None

    def arm(self, seconds: float) -> _Armed:
        entry = _Armed(threading.get_ident(), time.monotonic() + seconds)
        with self.lock:
            self.armed[entry.thread] = entry
            if self.thread is None:
                self.thread = threading.Thread(target=self._watch, name="tvmlint-budget", daemon=True)
                self.thread.start()
            elif self.waiting_until is None or entry.deadline < self.waiting_until:
                self.wake.notify()
        return entry

    def disarm(self, entry: _Armed) -> bool:
        """Whether the budget ran out; an OverTime sent and not yet raised is withdrawn."""
        with self.lock:
            if self.armed.get(entry.thread) is entry:
                del self.armed[entry.thread]
            if entry.fired:
                _withdraw_in(entry.thread, None)
        return entry.fired

    def _watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for entry in self.armed.values():
                    if not entry.fired and entry.deadline <= now:
                        if _importing(entry.thread):
                            entry.deadline = now + _IMPORT_WAIT
                            continue
                        entry.fired = True
                        _raise_in(entry.thread, OverTime)
                waiting = [entry.deadline for entry in self.armed.values() if not entry.fired]
                self.waiting_until = min(waiting) if waiting else None
                self.wake.wait(None if self.waiting_until is None else max(0.0, self.waiting_until - now))


# An import stopped halfway may leave its module unusable for the rest of the process (an
# extension module such as libcst's parser cannot be initialised twice): a thread that is
# importing (lazily: libcst, the rules) is stopped once it is done, looked at this often.
_IMPORT_WAIT = 0.05


def _importing(thread: int) -> bool:
    frame = sys._current_frames().get(thread)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


_WATCHDOG: Dict[str, _Watchdog] = {}


def _watchdog() -> _Watchdog:
    dog = _WATCHDOG.get("dog")
    if dog is None:
        dog = _WATCHDOG["dog"] = _Watchdog()
    return dog


def _forget_after_fork() -> None:
    # the parent's watchdog thread is gone in the child, and its lock may have been held at the fork
    _WATCHDOG.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def within(seconds: Optional[float], work: Callable[[], T], over: Callable[[], T]) -> T:
    """`work()`, or `over()` when it runs longer than `seconds` (None: no budget). A budget asked
    for inside another one in the same thread (a check within an explanation) adds nothing:
    the outer one holds, and its OverTime passes through untouched."""
    if seconds is None:
        return work()
    dog = _watchdog()
    if threading.get_ident() in dog.armed:
        return work()
    entry = dog.arm(seconds)
    try:
        try:
            result = work()
        finally:
            fired = dog.disarm(entry)
    except OverTime:
        dog.disarm(entry)  # delivered inside the first disarm, before it was done
        return over()
    return over() if fired else result
