"""A worker process that dies mid-run (a parser crash, the OOM killer) must not hang the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import write_tree

SILENT = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def _children(pid: int):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def test_a_killed_worker_is_replaced_and_every_file_still_reported(tmp_path):
    if not Path("/proc/self/task").exists():
        import pytest

        pytest.skip("needs /proc to find the worker processes")
    files = {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n'}
    filler = "".join(f"x{i} = relay.transform.FoldConstant()(mod)\n" for i in range(400))
    for index in range(60):
        files[f"pkg/m{index:02d}.py"] = SILENT + filler
    write_tree(tmp_path, files)
    process = subprocess.Popen(
        [sys.executable, "-m", "tvmlint", "check", "--jobs", "2", "--no-cache", "--format", "concise"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and process.poll() is None:
        workers = _children(process.pid)
        if len(workers) >= 2:
            time.sleep(0.3)  # let them take tasks
            killed = workers[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    stdout, stderr = process.communicate(timeout=300)
    assert killed is not None, "the run finished before a worker could be killed"
    assert process.returncode == 1, stderr
    reported = {line.split(":")[0] for line in stdout.splitlines() if "TVM101" in line}
    assert reported == {f"pkg/m{index:02d}.py" for index in range(60)}
    assert "Traceback" not in stderr
