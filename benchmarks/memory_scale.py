#!/usr/bin/env python3
"""Does tvmlint's memory grow with the tree? Peak RSS on a real tree, and on it copied K times.

    python benchmarks/memory_scale.py                 # /tmp/tvm-v0.26.0, ~20,000 files
    python benchmarks/memory_scale.py --json          # the same, a JSON object as the last line
    python benchmarks/memory_scale.py --sample large  # the main process's RSS over time

The source tree (default /tmp/tvm-v0.26.0: apache/tvm v0.26.0's python/, tests/python
and docs/, `git archive v0.26.0 python tests/python docs | tar -x -C /tmp/tvm-v0.26.0`)
is copied once as it is (`<scratch>/small`) and K times into sibling folders
(`<scratch>/large/copy_0` ... `copy_<K-1>`), K chosen so the large tree holds about
--target files (default 20,000). The scratch directory (default /tmp/tvmlint-memscale)
is reused when it holds the same copies already.

For each tree it runs, in the tree,

    python -m tvmlint check --no-cache --exit-zero --format concise --jobs 2 --target-version 0.26 .

in a child of a wrapper that reports getrusage(RUSAGE_CHILDREN).ru_maxrss: the largest
resident set of any single process of the run (the main process or a worker). It prints
the files, median wall time and median peak RSS of --runs runs for each tree, and the
ratio large/small next to the goal (1.2). With --json, the last line of output is one
JSON object: {"small": {"files", "wall", "peak_mb"}, "large": {...}, "ratio", "goal"}.

--sample small|large runs the check once on that tree with a thread reading the main
process's VmRSS (and its workers') from /proc every 50 ms, and prints where it climbs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

PYTHON = sys.executable
GOAL = 1.2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import MEASURE  # noqa: E402  (benchmarks/run.py: wall time and peak RSS of one command)


def progress(text: str) -> None:
    print(f"  .. {text}", file=sys.stderr, flush=True)


def command(target: str, jobs: int, fmt: str = "concise") -> List[str]:
    return [PYTHON, "-m", "tvmlint", "check", "--no-cache", "--exit-zero", "--format", fmt, "--jobs", str(jobs),
            "--target-version", target, "."]


def count_py(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.py"))


def _copy(source: Path, into: Path) -> None:
    shutil.copytree(source, into, symlinks=True)


def materialise(source: Path, scratch: Path, target_files: int) -> Dict[str, Path]:
    """`<scratch>/small`: the source tree as it is; `<scratch>/large`: K copies of it. Reused
    when a marker says they were made from the same source with the same K."""
    files = count_py(source)
    if files == 0:
        raise SystemExit(f"no .py files under {source}")
    copies = max(1, round(target_files / files))
    marker = scratch / "made.json"
    wanted = {"source": str(source.resolve()), "files": files, "copies": copies}
    small, large = scratch / "small", scratch / "large"
    if marker.exists():
        try:
            if json.loads(marker.read_text()) == wanted:
                return {"small": small, "large": large}
        except ValueError:
            pass
    progress(f"copying {source} ({files} .py files) once and {copies} times under {scratch}")
    for tree in (small, large):
        if tree.exists():
            shutil.rmtree(tree)
    scratch.mkdir(parents=True, exist_ok=True)
    _copy(source, small)
    large.mkdir()
    for k in range(copies):
        _copy(source, large / f"copy_{k}")
    marker.write_text(json.dumps(wanted))
    return {"small": small, "large": large}


def measure(cmd: Sequence[str], cwd: Path) -> Dict[str, float]:
    done = subprocess.run([PYTHON, "-c", MEASURE, str(cwd), *cmd], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"benchmark wrapper failed: {done.stderr}")
    data = json.loads(done.stdout)
    if data["code"] not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {data['code']}: {data['stderr']}")
    progress(f"{data['wall']:.2f} s, {data['rss_kb'] / 1024:.1f} MB: {cwd}")
    return data


def bench(tree: Path, target: str, jobs: int, runs: int) -> Dict[str, float]:
    walls, peaks = [], []
    for _ in range(runs):
        data = measure(command(target, jobs), tree)
        walls.append(data["wall"])
        peaks.append(data["rss_kb"] / 1024)
    return {"files": count_py(tree), "wall": round(statistics.median(walls), 2),
            "peak_mb": round(statistics.median(peaks), 1)}


def _rss_kb(pid: int, field: str = "VmRSS") -> Optional[int]:
    """A process's resident set (or its high-water mark, `VmHWM`) in KiB, from /proc."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _children(pid: int) -> List[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(part) for part in handle.read().split()]
    except OSError:
        return []


def sample(tree: Path, target: str, jobs: int, every: float = 0.05) -> None:
    """Run the check once and print the main process's RSS (and its largest worker's) over time."""
    process = subprocess.Popen(command(target, jobs), cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    points: List[tuple] = []
    highest: Dict[str, int] = {}  # the high-water marks last read: "main", and each worker's pid
    start = time.perf_counter()

    def watch() -> None:
        while process.poll() is None:
            main = _rss_kb(process.pid)
            children = _children(process.pid)
            for name, pid in [("main", process.pid)] + [(str(child), child) for child in children]:
                hwm = _rss_kb(pid, "VmHWM")
                if hwm is not None:
                    highest[name] = max(highest.get(name, 0), hwm)
            workers = [rss for rss in map(_rss_kb, children) if rss is not None]
            if main is not None:
                points.append((time.perf_counter() - start, main, max(workers, default=0), len(workers)))
            time.sleep(every)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    _, err = process.communicate()
    thread.join()
    if process.returncode not in (0, 1):
        raise SystemExit(f"tvmlint exited {process.returncode}: {err.decode(errors='replace')[-2000:]}")
    print(f"{tree}: main process RSS over time (every {every * 1000:.0f} ms; workers: the largest live one)")
    print(f"{'t (s)':>7} {'main MB':>8} {'worker MB':>10} {'workers':>8}")
    step = max(1, len(points) // 60)
    peak = max(points, key=lambda p: p[1]) if points else None
    for i, (t, main, worker, count) in enumerate(points):
        if i % step == 0 or (peak is not None and (t, main, worker, count) == peak) or i == len(points) - 1:
            print(f"{t:7.2f} {main / 1024:8.1f} {worker / 1024:10.1f} {count:8d}")
    if peak is not None:
        print(f"main peak {peak[1] / 1024:.1f} MB at {peak[0]:.2f} s of {points[-1][0]:.2f} s; "
              f"largest worker {max(p[2] for p in points) / 1024:.1f} MB")
    marks = ", ".join(f"{name} {kb / 1024:.1f} MB" for name, kb in highest.items())
    print(f"high-water marks (VmHWM, as last read): {marks}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=Path("/tmp/tvm-v0.26.0"))
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "tvmlint-memscale")
    parser.add_argument("--target", type=int, default=20000, help="files in the large tree (about)")
    parser.add_argument("--target-version", default="0.26")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object, the last line")
    parser.add_argument("--sample", choices=("small", "large"), help="the main process's RSS over time, one run")
    args = parser.parse_args(argv)

    trees = materialise(args.source, args.scratch, args.target)
    if args.sample:
        sample(trees[args.sample], args.target_version, args.jobs)
        return 0
    figures = {name: bench(trees[name], args.target_version, args.jobs, args.runs) for name in ("small", "large")}
    ratio = round(figures["large"]["peak_mb"] / figures["small"]["peak_mb"], 3)
    print(f"memory scale (cold, {args.jobs} workers, no cache, target {args.target_version}; "
          f"median of {args.runs}; peak RSS of the largest process)")
    print(f"{'tree':<6} {'files':>7} {'wall':>9} {'peak RSS':>10}")
    for name in ("small", "large"):
        f = figures[name]
        print(f"{name:<6} {f['files']:>7,} {f['wall']:>7.2f} s {f['peak_mb']:>7.1f} MB")
    print(f"ratio large/small: {ratio:.2f} (goal: within {GOAL}: {'met' if ratio <= GOAL else 'not met'})")
    if args.json:
        print(json.dumps({"small": figures["small"], "large": figures["large"], "ratio": ratio, "goal": GOAL}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
