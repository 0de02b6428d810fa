"""What the runtime companion costs: prints figures, asserts nothing.

    python benchmarks/companion.py [--tvm-python PATH] [--rounds N]

Measures, with a fresh cache directory: `tvmlint registry` with no snapshot
cached (the child imports TVM and builds every pass), the same with the
snapshot cached (only the locate child runs), and `check --confirm` on the
bundled examples against `check` alone (the difference is the locate child
plus one long-lived child for probe runs and config checks).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(args, env) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tvmlint", *args], cwd=REPO, env=env, capture_output=True, check=False, timeout=600)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tvm-python")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    extra = ["--tvm-python", options.tvm_python] if options.tvm_python else []
    cache = Path(tempfile.mkdtemp(prefix="tvmlint-companion-bench-"))
    env = dict(os.environ, TVMLINT_CACHE_DIR=str(cache))
    try:
        cold = []
        for _ in range(options.rounds):
            shutil.rmtree(cache / "registry", ignore_errors=True)
            cold.append(timed(["registry", *extra], env))
        warm = [timed(["registry", *extra], env) for _ in range(options.rounds)]
        static = [timed(["check", "--no-cache", "--jobs", "1", "examples/"], env) for _ in range(options.rounds)]
        confirm = [timed(["check", "--no-cache", "--jobs", "1", "--confirm", *extra, "examples/"], env) for _ in range(options.rounds)]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    for label, runs in (
        ("registry, no snapshot cached", cold),
        ("registry, snapshot cached", warm),
        ("check examples/", static),
        ("check --confirm examples/ (snapshot cached)", confirm),
    ):
        print(f"{label:45s} median {statistics.median(runs):6.2f}s  (min {min(runs):.2f}s, {len(runs)} runs)")


if __name__ == "__main__":
    main()
