"""Whether a process is still running, given its pid."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while `pid` runs. A zombie (exited, not yet reaped) has ended: in a container whose
    first process reaps orphans only every few seconds, a stopped daemon stays a zombie for that
    long, and waiting for its pid to vanish would make `daemon stop` wait with it. A process is
    a zombie once all its threads are: its first thread turns one while the others still end,
    holding its files (and their locks) open. Another user's process under the pid is not ours
    (ours is gone and the pid reused)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:  # no /proc (macOS): signal 0 is all there is to ask
        return True
    return any(_state(pid, thread) not in (b"Z", b"X", None) for thread in threads)


def _state(pid: int, thread: str):
    try:
        with open(f"/proc/{pid}/task/{thread}/stat", "rb") as stat:
            # "tid (command) state ...": the command may hold spaces and parentheses
            return (stat.read().rpartition(b")")[2].split() or [None])[0]
    except OSError:  # the thread has gone
        return None
