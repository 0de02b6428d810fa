"""tvmlint.base.processes.alive on real processes: running, exited and unreaped, reaped."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tvmlint.base.processes import alive


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a zombie is told apart through /proc")
def test_an_exited_process_is_not_alive_before_its_parent_reaps_it():
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert alive(child.pid)
        child.stdin.close()  # it exits; nothing waits for it yet, so it stays a zombie
        deadline = time.monotonic() + 20
        while alive(child.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(child.pid)
        with open(f"/proc/{child.pid}/stat", "rb") as stat:  # still there, unreaped
            assert stat.read().rpartition(b")")[2].split()[0] == b"Z"
    finally:
        child.wait()
    assert not alive(child.pid)
