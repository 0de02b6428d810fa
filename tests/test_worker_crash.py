"""A worker process that dies mid-run (a parser crash, the OOM killer) must not hang the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import write_tree

SILENT = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def _children(pid: int):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


@pytest.mark.long
def test_a_killed_worker_is_replaced_and_every_file_still_reported(tmp_path):
    if not Path("/proc/self/task").exists():
        pytest.skip("needs /proc to find the worker processes")
    from tvmlint.run.workers import AHEAD, BATCH_BYTES

    # Each file is over a batch's bytes, so a batch is one file: when the pool breaks, only the
    # batches it held (AHEAD per worker) are run again one by one, each in a process of its own
    # that imports libcst anew, and the files after them go to a new pool. The comment lines make
    # up the bytes at little cost; the calls make the run last past the kill.
    filler = "".join(f"x{i} = relay.transform.FoldConstant()(mod)\n" for i in range(400))
    padding = "#" * 79 + "\n"
    text = SILENT + filler + padding * (BATCH_BYTES // len(padding) + 1)
    count = 2 * AHEAD + 4
    files = {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n'}
    for index in range(count):
        files[f"pkg/m{index:02d}.py"] = text
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
    assert reported == {f"pkg/m{index:02d}.py" for index in range(count)}
    assert "Traceback" not in stderr


def test_the_rounds_of_a_run_share_its_worker_processes(tmp_path):
    # a later round of a few files would otherwise fork new workers that import libcst again
    from tvmlint.run.config import Overrides, SettingsResolver
    from tvmlint.run.tasks import Planner
    from tvmlint.run.workers import Workers

    write_tree(tmp_path, {f"m{index}.py": SILENT for index in range(6)})
    planner = Planner(SettingsResolver(Overrides(target_version="0.19"), cwd=tmp_path))
    paths = sorted(tmp_path.glob("m*.py"))
    with Workers(2) as workers:
        rounds = []
        for _ in range(2):
            tasks = [planner.task(index, path) for index, path in enumerate(paths)]
            # TVM101 waits for the run to settle the context: the workers hand it over deferred
            rounds.append(sorted((index, [d.code for d in checked.result.deferred])
                                 for index, _, checked in workers.execute(iter(tasks), len(tasks))))
            if len(rounds) == 1:
                pool = workers._pool
        assert pool is not None and workers._pool is pool
    assert workers._pool is None  # the processes end with the block
    assert rounds[0] == rounds[1] == [(index, ["TVM101"]) for index in range(6)]
