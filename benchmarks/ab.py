#!/usr/bin/env python3
"""Paired cold runs of two tvmlint checkouts on one tree: is the change slower?

    git worktree add /tmp/tvmlint-base <commit>
    python benchmarks/ab.py /tmp/tvmlint-base . /tmp/tvm-v0.26.0 --target-version 0.26 --runs 5

Each round runs `tvmlint check --no-cache` of the base checkout and of the new one
back to back (the order alternates between rounds), each in a process of its own
with the checkout first on PYTHONPATH, so both see the same machine load. It
prints every pair's wall and CPU times and the ratios new/base, then the median
ratios and their spread (lowest and highest). A ratio of 1.10 is the tenth the issue allows.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cold_run(checkout: Path, tree: Path, target: str, jobs: Optional[str], paths: Sequence[str]) -> Tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU is the run's and its workers' user and system time,
    which another job on the machine disturbs far less than the wall time."""
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    env.pop("TVMLINT_RULES_DIR", None)
    command = [sys.executable, "-m", "tvmlint", "check", "--no-cache", "--exit-zero", "--format", "concise",
               "--target-version", target, *(["--jobs", jobs] if jobs else []), *paths]
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"{checkout}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return wall, cpu


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the checkout to compare against")
    parser.add_argument("new", type=Path, help="the changed checkout")
    parser.add_argument("tree", type=Path, help="the tree to check")
    parser.add_argument("paths", nargs="*", default=["."], help="paths inside the tree (default: all of it)")
    parser.add_argument("--target-version", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", default=None)
    args = parser.parse_args(argv)

    walls: List[float] = []
    cpus: List[float] = []
    for round_ in range(args.runs):
        order = [("base", args.base), ("new", args.new)]
        if round_ % 2:
            order.reverse()
        runs = {name: cold_run(path, args.tree, args.target_version, args.jobs, args.paths) for name, path in order}
        walls.append(runs["new"][0] / runs["base"][0])
        cpus.append(runs["new"][1] / runs["base"][1])
        print(f"round {round_ + 1}: base {runs['base'][0]:.2f} s wall, {runs['base'][1]:.2f} s CPU; "
              f"new {runs['new'][0]:.2f} s wall, {runs['new'][1]:.2f} s CPU; "
              f"new/base {walls[-1]:.3f} wall, {cpus[-1]:.3f} CPU")
    for what, ratios in (("wall", walls), ("CPU", cpus)):
        print(f"new/base {what}: median {statistics.median(ratios):.3f} (lowest {min(ratios):.3f}, "
              f"highest {max(ratios):.3f}) over {len(ratios)} paired runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
