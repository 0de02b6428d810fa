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


# (thread id, exception type): raise it in that thread at its next check between bytecodes. Never
# called with NULL to withdraw one: CPython then leaves the check tripped for good, which costs
# every later call a little, and loops for ever under a tracer or profiler.
_raise_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(("PyThreadState_SetAsyncExc", ctypes.pythonapi))


class _Armed:
    __slots__ = ("thread", "deadline", "fired", "finished")

    def __init__(self, thread: int, deadline: float):
        self.thread = thread
        self.deadline = deadline
        self.fired = False  # OverTime sent
        self.finished = False  # the work is over: never send it


class _Watchdog:
    """One per process (a forked child makes its own: threads do not survive fork)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.armed: Dict[int, _Armed] = {}  # by thread: one budget per thread at a time
        self.waiting_until: Optional[float] = None  # None: asleep until woken
        self.thread: Optional[threading.Thread] = None
        self.firing: Optional[_Armed] = None  # the entry the watchdog is deciding on, if any

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

    def disarm(self, entry: _Armed) -> None:
        """The entry is never fired from now on. Takes no lock: OverTime may arrive anywhere in
        here, and a lock taken just before it would be held for good. Marked finished, the entry
        is passed over by the watchdog, and one it is firing at this moment is waited for."""
        entry.finished = True
        while self.firing is entry:
            time.sleep(0.0005)
        if self.armed.get(entry.thread) is entry:
            self.armed.pop(entry.thread, None)

    def _watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for entry in list(self.armed.values()):  # (the analysing threads remove theirs unlocked)
                    if entry.fired or entry.finished or entry.deadline > now:
                        continue
                    if _importing(entry.thread):
                        entry.deadline = now + _IMPORT_WAIT
                        continue
                    self.firing = entry  # disarm waits while this is its entry
                    if not entry.finished:
                        entry.fired = True
                        _raise_in(entry.thread, OverTime)
                    self.firing = None
                waiting = [entry.deadline for entry in list(self.armed.values()) if not (entry.fired or entry.finished)]
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
            dog.disarm(entry)
            if entry.fired and sys.exc_info()[0] is not OverTime:
                _receive()  # sent as the work ended: raised here, inside the `try`
    except OverTime:
        dog.disarm(entry)  # (it may have come inside the first one)
        return over()
    return over() if entry.fired else result


def _receive() -> None:
    """Run bytecode until a pending OverTime is raised: at once, unless the work took it and
    let it go (an `except BaseException`), and then there is none to wait for."""
    until = time.monotonic() + 0.1
    while time.monotonic() < until:
        pass
