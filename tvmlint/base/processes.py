"""Whether a process is still running, given its pid."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while `pid` runs. A zombie (exited, not yet reaped) has ended: in a container whose
    first process reaps orphans only every few seconds, a stopped daemon stays a zombie for that
    long, and waiting for its pid to vanish would make `daemon stop` wait with it. Another
    user's process under the pid is not ours (ours is gone and the pid reused)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            # "pid (command) state ...": the command may hold spaces and parentheses
            return stat.read().rpartition(b")")[2].split()[:1] != [b"Z"]
    except OSError:  # no /proc (macOS): signal 0 is all there is to ask
        return True
