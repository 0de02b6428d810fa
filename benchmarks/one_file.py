#!/usr/bin/env python3
"""A file checked alone in a large project, with its project read for callers: prints figures, asserts nothing.

    python benchmarks/one_file.py [TREE] [--files N] [--runs N] [--target-version X.Y] [--jobs N]

TREE (default /tmp/tvm-v0.26.0: `git --git-dir=<apache/tvm clone> archive v0.26.0 python
tests/python docs | tar -x -C /tmp/tvm-v0.26.0`) is copied to a temporary folder with a
pyproject.toml holding [tool.tvmlint] at its top, so the whole copy is one project (as a
clone with its settings file is). Then, each in a process of its own, as pre-commit runs it:

- cold: `tvmlint check FILE` with no result cache: the project's index (the other files'
  results) is built by this run;
- warm: the same again, nothing changed;
- warm, FILE edited: a comment appended to FILE (what pre-commit and an editor see);
- warm, another file edited: a comment appended to the largest file of the project;
- for reference, FILE alone (`check_paths` without the project, no cache): what a one-file
  check cost before it read the project, and what it could not see;
- the editor's case: `runner.check_text_in_project` in one process (as the language server
  runs it, jobs=1), after one call that warmed its imports and the index, on FILE's text
  with a line added;
- the daemon's case: FILE edited again, then `tvmlint check --daemon FILE`, handed to a
  `tvmlint daemon` the benchmark started (it stops if the daemon did not serve every
  timed run; its CPU figure is the client's alone).

FILE: N files spread evenly over the sorted files that name `tvm` (and the largest), and the
first M files (in sorted order) whose findings wait on other files (a finding judged by its
callers: only those read the project; the others settle alone, at the cost of a check of
the file alone). Each file's line says which kind it is.
With --verify N, it then checks the whole copy once and compares, for every file with a finding
and N files spread over the rest, the findings of `tvmlint check FILE` (in-process, with the
project) with the whole tree's on that file, and prints every difference.

Figures are the median and maximum over files and runs, with the load average (1 minute)
before and after: on a shared machine a figure taken under load says so. The `tvmlint`
processes' CPU time (with their workers') is printed beside: other jobs stretch it far less
than the wall time, so two checkouts are compared by it, in runs taken one after the other
(`PYTHONPATH=<the other checkout> python benchmarks/one_file.py ...` runs that one). tvmlint's
modules and rules/ tables are compiled first, as an installed tvmlint's are (`run.py`'s
compile_bytecode): with PYTHONDONTWRITEBYTECODE set every run would compile them again.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # run.py, its sibling
PYTHON = sys.executable


# CPU seconds of each `tvmlint` process (its workers' too), by figure: other jobs on a shared
# machine stretch the wall time far more than the CPU time
CPU: Dict[str, List[float]] = {}


def tvmlint(*args: str, cwd: Path, figure: str = "") -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([PYTHON, "-m", "tvmlint", "check", "-q", "--exit-zero", *args], cwd=cwd,
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"tvmlint check {' '.join(args)} failed ({done.returncode}): {done.stderr[-500:]}")
    CPU.setdefault(figure, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return took


ALONE = """
import time, sys
start = time.perf_counter()
from pathlib import Path
from tvmlint.run.config import SettingsResolver
from tvmlint.run.runner import check_paths
check_paths([Path(sys.argv[1])], SettingsResolver(), use_cache=False)
print(time.perf_counter() - start)
"""

PROJECT_READ = """
import sys
from pathlib import Path
from tvmlint.run.config import SettingsResolver
from tvmlint.run.runner import check_paths
print(check_paths([Path(sys.argv[1])], SettingsResolver(), jobs=1, project=True).context_files)
"""

# the first files (sorted) whose findings wait on other files: checked alone, not settled
UNSETTLED = """
import sys
from pathlib import Path
from tvmlint.run.config import SettingsResolver
from tvmlint.run.runner import RunTask, check_files
wanted = int(sys.argv[1])
resolver = SettingsResolver()
for name in sys.argv[2:]:
    if not check_files([name], resolver, RunTask(jobs=1, use_cache=False, gated=False)).settled:
        print(name, flush=True)
        wanted -= 1
        if not wanted:
            break
print("done")
"""

VERIFY = """
import sys
from pathlib import Path
from tvmlint.run.config import SettingsResolver
from tvmlint.run.runner import check_paths
whole = check_paths([Path(".")], SettingsResolver(), project=True)
by = {}
for finding in whole.findings:
    by.setdefault(finding.path, []).append(finding)
files = sorted(str(p) for p in Path(".").rglob("*.py"))
picked = list(dict.fromkeys(sorted(by) + files[::max(1, len(files) // int(sys.argv[1]))]))
differ = read = 0
for name in picked:
    alone = check_paths([Path(name)], SettingsResolver(), project=True)
    read += bool(alone.context_files)
    mine = [(f.code, f.start, f.message) for f in alone.findings]
    theirs = [(f.code, f.start, f.message) for f in by.get(name, [])]
    if mine != theirs:
        differ += 1
        print(f"DIFFERENT {name}: alone {mine}; whole tree {theirs}")
print(f"compared {len(picked)} files ({len(by)} with findings, {len(whole.findings)} findings in all); "
      f"{read} read the project; {differ} differ")
"""

EDITOR = """
import time, sys
from pathlib import Path
from tvmlint.run.config import SettingsResolver
from tvmlint.run.runner import check_text_in_project
path = Path(sys.argv[1])
text = path.read_text(encoding="utf-8", errors="surrogateescape")
check_text_in_project(text, path, SettingsResolver(), jobs=1)
start = time.perf_counter()
check_text_in_project(text + "\\nx = 1\\n", path, SettingsResolver(), jobs=1)
print(time.perf_counter() - start)
"""


def sample(root: Path, count: int, waiting: int) -> List[Path]:
    files = sorted(p for p in root.rglob("*.py") if p.is_file())
    naming = [p for p in files if b"tvm" in p.read_bytes()]
    step = max(1, len(naming) // max(1, count - 1))
    picked = naming[::step][: count - 1]
    largest = max(files, key=lambda p: p.stat().st_size)
    picked = [p.relative_to(root) for p in picked + [largest]]
    if waiting:
        names = [str(p.relative_to(root)) for p in naming]
        done = subprocess.run([PYTHON, "-c", UNSETTLED, str(waiting), *names], cwd=root, capture_output=True, text=True)
        picked += [Path(line) for line in done.stdout.splitlines() if line != "done" and Path(line) not in picked]
    return picked


def summary(name: str, figures: List[float], cpu: List[float] = ()) -> str:
    if not figures:
        return f"| {name} | | | | |"
    used = f"{statistics.median(cpu):.2f} s" if cpu else ""
    return f"| {name} | {len(figures)} | {statistics.median(figures):.2f} s | {max(figures):.2f} s | {used} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default="/tmp/tvm-v0.26.0")
    parser.add_argument("--files", type=int, default=6)
    parser.add_argument("--waiting", type=int, default=3, help="files whose findings wait on others (M)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--target-version", default="0.27")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--verify", type=int, default=0, metavar="N", help="compare one-file and whole-tree findings")
    args = parser.parse_args()
    tree = Path(args.tree)
    if not tree.is_dir():
        raise SystemExit(f"{tree}: not a directory (see this script's docstring for how to make it)")
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    compile_bytecode()  # as an installed tvmlint runs: its modules and tables compiled once
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tvmlint-one-file-") as temporary:
        root = Path(temporary) / "project"
        shutil.copytree(tree, root, symlinks=True)
        (root / "pyproject.toml").write_text(f'[tool.tvmlint]\ntarget-version = "{args.target_version}"\n', encoding="utf-8")
        count = sum(1 for p in root.rglob("*") if p.suffix in (".py", ".pyi", ".ipynb"))
        print(f"project: a copy of {tree} ({count} Python files), target {args.target_version}; "
              f"{os.cpu_count()} cores; load {load_before:.2f}", flush=True)
        files = sample(root, args.files, args.waiting)
        largest = max(root.rglob("*.py"), key=lambda p: p.stat().st_size)
        figures: Dict[str, List[float]] = {key: [] for key in (
            "cold", "warm", "edited", "other", "alone", "editor",
            "project cold", "project warm", "project edited", "project other", "project editor",
            "daemon", "project daemon")}
        with running_daemon():
            served = daemon_served()
            for run in range(args.runs):
                for file in files:
                    name = str(file)
                    shutil.rmtree(root / ".tvmlint_cache", ignore_errors=True)
                    cold = tvmlint(name, *jobs, cwd=root, figure="cold?")
                    reads = int(timed_snippet(PROJECT_READ, name, root))  # warm: only says which kind
                    kind = "project " if reads else ""
                    figures[kind + "cold"].append(cold)
                    CPU.setdefault(kind + "cold", []).append(CPU.pop("cold?")[-1])
                    figures[kind + "warm"].append(tvmlint(name, *jobs, cwd=root, figure=kind + "warm"))
                    with open(root / file, "a", encoding="utf-8") as out:
                        out.write(f"\n# edited {run}\n")
                    figures[kind + "edited"].append(tvmlint(name, *jobs, cwd=root, figure=kind + "edited"))
                    if root / file != largest:
                        with open(largest, "a", encoding="utf-8") as out:
                            out.write(f"\n# edited {run} {name}\n")
                        figures[kind + "other"].append(tvmlint(name, *jobs, cwd=root, figure=kind + "other"))
                    if not reads:
                        figures["alone"].append(timed_snippet(ALONE, name, root))
                    figures[kind + "editor"].append(timed_snippet(EDITOR, name, root))
                    with open(root / file, "a", encoding="utf-8") as out:
                        out.write(f"\n# edited again {run}\n")
                    figures[kind + "daemon"].append(tvmlint(name, "--daemon", *jobs, cwd=root, figure=kind + "daemon"))
                    served += 1
                    if daemon_served() != served:
                        raise SystemExit(f"the daemon did not serve `tvmlint check --daemon {name}`: the figure would be the client's own run")
                    print(f"  {name}: {'reads the project (' + str(reads) + ' files)' if reads else 'settles alone'}: "
                          f"cold {figures[kind + 'cold'][-1]:.2f} s, warm {figures[kind + 'warm'][-1]:.2f} s, "
                          f"edited {figures[kind + 'edited'][-1]:.2f} s, editor {figures[kind + 'editor'][-1]:.2f} s, "
                          f"--daemon after an edit {figures[kind + 'daemon'][-1]:.2f} s", flush=True)
        if args.verify:
            done = subprocess.run([PYTHON, "-c", VERIFY, str(args.verify)], cwd=root, capture_output=True, text=True)
            print(done.stdout + done.stderr[-2000:], flush=True)
    print(f"\nload {load_before:.2f} -> {os.getloadavg()[0]:.2f}\n")
    print("| `tvmlint check FILE` | runs | median | max | CPU, median |")
    print("| --- | --- | --- | --- | --- |")
    for kind, label in (("", "settles alone"), ("project ", "reads the project")):
        print(summary(f"{label}, cold: no cache (the project's index built by this run)", figures[kind + "cold"],
                      CPU.get(kind + "cold", [])))
        print(summary(f"{label}, warm: nothing changed", figures[kind + "warm"], CPU.get(kind + "warm", [])))
        print(summary(f"{label}, warm: FILE edited", figures[kind + "edited"], CPU.get(kind + "edited", [])))
        print(summary(f"{label}, warm: the project's largest file edited", figures[kind + "other"],
                      CPU.get(kind + "other", [])))
        print(summary(f"{label}, editor: check_text_in_project, warm, one process, jobs=1", figures[kind + "editor"]))
        print(summary(f"{label}, `--daemon`: FILE edited", figures[kind + "daemon"], CPU.get(kind + "daemon", [])))
    print(summary("reference, settles alone: FILE alone, no project, no cache (in-process, imports included)",
                  figures["alone"]))


def timed_snippet(code: str, name: str, root: Path) -> float:
    """The seconds a snippet prints on its last line (it times itself)."""
    done = subprocess.run([PYTHON, "-c", code, name], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"python -c failed: {done.stderr[-800:]}")
    return float(done.stdout.strip().splitlines()[-1])


def compile_bytecode() -> None:
    from run import compile_bytecode as compile_all

    compile_all()


def running_daemon():
    from run import running_daemon as daemon

    return daemon()


def daemon_served() -> int:
    from run import daemon_served as served

    return served()


if __name__ == "__main__":
    main()
