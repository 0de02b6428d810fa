"""Stress run: a generated tree of 20,000 files (some broken) checked in a child process,
peak memory measured at 2,000 and at 20,000 files.

    python benchmarks/stress.py [--files 20000] [--small 2000] [--jobs N]

Prints, for each size, the wall time, the child's peak RSS (getrusage of the
children, so it covers the check process and its workers one at a time) and the
findings; then the ratio of the two peaks. Memory should grow with the findings
a run keeps, not with the files it reads: a tenfold tree with a tenfold share of
findings may cost a little more, never ten times.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIG = '[tool.tvmlint]\ntarget-version = "0.19"\n'

# Kinds of file, in the proportions a large repository might hold them.
PLAIN = "import os\n\n\ndef helper_{i}(path):\n    return os.path.join(path, 'x{i}')\n"
TVM_CLEAN = (
    "import tvm\nfrom tvm import relay\n\n\ndef build_{i}(mod, params):\n"
    "    with tvm.transform.PassContext(opt_level=3):\n"
    "        return relay.build(mod, 'llvm', params=params)\n"
)
TVM_FINDING = (
    "import tvm\nfrom tvm import relay\n\n\ndef fold_{i}(mod):\n"
    "    return relay.transform.FoldScaleAxis()(mod)\n\n\nfold_{i}(None)\n"
)
BROKEN = ["def broken_{i}(:\n", "x = '\xff'\n", "print 'python 2 {i}'\n", "import tvm\x00\n"]


def generate(root: Path, count: int) -> None:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(CONFIG)
    for i in range(count):
        directory = root / f"pkg{i // 400}"
        if i % 400 == 0:
            directory.mkdir()
            (directory / "__init__.py").write_text("")
        if i % 100 == 7:
            text = BROKEN[(i // 100) % len(BROKEN)].format(i=i)
            (directory / f"m{i}.py").write_bytes(text.encode("latin-1"))
            continue
        template = TVM_FINDING if i % 50 == 3 else TVM_CLEAN if i % 10 == 1 else PLAIN
        (directory / f"m{i}.py").write_text(template.format(i=i))


def measure(root: Path, jobs: str) -> dict:
    """One check in a fresh child process; its peak RSS from getrusage(RUSAGE_CHILDREN)."""
    # run through a wrapper child so that each measurement starts from a zero maximum
    code = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        "wall = time.perf_counter() - start\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "lines = p.stdout.decode().splitlines()\n"
        "tail = lines[-1] if lines else ''\n"
        "print(p.returncode, rss, wall, len(lines) - 1, p.stderr.decode().count('Traceback'), tail, sep='\\t')\n"
    )
    command = [sys.executable, "-c", code, sys.executable, "-m", "tvmlint", "check", "--no-cache",
               "--format", "concise", "--jobs", jobs, "."]
    out = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    rc, rss, wall, findings, tracebacks, tail = out.split("\t")
    return {
        "exit": int(rc), "peak_rss_mb": int(rss) / 1024, "wall_s": float(wall),
        "findings": int(findings), "tracebacks": int(tracebacks), "summary": tail,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=2_000)
    parser.add_argument("--jobs", default="1", help="worker processes for the check (default 1: one process's peak)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="tvmlint-stress-"))
    try:
        results = {}
        for count in (args.small, args.files):
            root = base / f"tree{count}"
            generate(root, count)
            results[count] = measure(root, args.jobs)
            r = results[count]
            print(
                f"{count:>6} files: exit {r['exit']}, {r['wall_s']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, "
                f"{r['findings']} findings, {r['tracebacks']} tracebacks  ({r['summary']})",
                flush=True,
            )
        small, large = results[args.small], results[args.files]
        ratio = large["peak_rss_mb"] / small["peak_rss_mb"]
        findings_ratio = large["findings"] / max(1, small["findings"])
        print(f"peak RSS ratio {args.files}/{args.small} files: {ratio:.2f} (files x{args.files / args.small:.0f}, findings x{findings_ratio:.1f})")
        bad = [count for count, r in results.items() if r["exit"] != 1 or r["tracebacks"]]
        if bad:
            print(f"FAILED: runs on {bad} files did not exit 1 cleanly")
            return 1
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
