#!/usr/bin/env python3
"""How fast is tvmlint on a real tree, next to the floor (bare libcst parsing) and Fixit 2?

    python benchmarks/run.py /tmp/tvm-v0.19.0 --target-version 0.19

prints the tree's size, then for tvmlint (cold, warm, one file changed; 1 and N
workers), for a bare `libcst.parse_module` of every file (1 and N workers) and
for Fixit 2 with its default rules (when found; each file with a timeout) and
for semgrep with the three rules of benchmarks/semgrep_rules.yml (when found) the
median wall time, files/s, lines/s and peak RSS, the ratios against the floor
(cold runs alternate with floor runs, and semgrep's with cold runs of tvmlint
taken beside them; each run's own ratio is printed too),
the single-file (pre-commit) time over a sample of the tree's files (in a process of
its own, and handed to `tvmlint daemon` with --daemon), the editor
path (`runner.check_text`) on a 2,000-line buffer and on the largest file, and
peak RSS on generated trees of 2,000 and 20,000 files. Every measured command
runs in a child process; peak RSS is the largest resident set of any process of
that run (getrusage(RUSAGE_CHILDREN) of a wrapper that runs only it).

The corpus: apache/tvm at a release tag, materialised from a clone without
committing it anywhere:

    git -C <tvm clone> archive v0.19.0 python tests/python docs | tar -x -C /tmp/tvm-v0.19.0
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable

# Runs a command, then prints its wall time and the peak RSS of its process tree (KiB) as JSON.
MEASURE = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "rss_kb": peak, "code": done.returncode, "stderr": done.stderr[-2000:]}))
"""

# The floor: libcst.parse_module of every file listed on stdin, with N processes.
FLOOR = r"""
import multiprocessing, sys
import libcst

def parse(path):
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        libcst.parse_module(data)
        return 1
    except Exception:
        return 0

if __name__ == "__main__":
    jobs = int(sys.argv[1])
    paths = sys.stdin.read().splitlines()
    paths.sort(key=lambda p: -len(open(p, "rb").read()))
    if jobs == 1:
        parsed = sum(map(parse, paths))
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parsed = sum(pool.imap_unordered(parse, paths, chunksize=1))
    print(parsed, len(paths))
"""

# The editor path: check_text on a buffer, then again after each of several one-line edits.
EDITOR = r"""
import json, statistics, sys, time
from pathlib import Path
start = time.perf_counter()
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_text
path = Path(sys.argv[1]); target = sys.argv[2]; edits = int(sys.argv[3])
settings = SettingsResolver(Overrides(target_version=target), cwd=path.parent).for_path(path)
text = path.read_text(encoding="utf-8", errors="replace")
check_text(text, path, settings)
first = time.perf_counter() - start
lines = text.splitlines(keepends=True)
times = []
for number in range(edits):
    where = (number * 97) % max(1, len(lines))
    changed = "".join(lines[:where] + [f"# edit {number}\n"] + lines[where:])
    begin = time.perf_counter()
    check_text(changed, path, settings)
    times.append(time.perf_counter() - begin)
print(json.dumps({"first": first, "median": statistics.median(times), "max": max(times), "lines": len(lines)}))
"""

# Fixit 2 on files read from stdin, one result line each, so a parent can time each file out.
FIXIT_WORKER = r"""
import sys
from pathlib import Path
from fixit.api import fixit_paths
from fixit.ftypes import Options
options = Options()
for line in sys.stdin:
    path = Path(line.rstrip("\n"))
    try:
        for _ in fixit_paths([path], options=options, parallel=False):
            pass
        print("ok", flush=True)
    except Exception as error:
        print("error " + type(error).__name__, flush=True)
"""


def progress(text: str) -> None:
    print(f"  ... {text}", file=sys.stderr, flush=True)


@dataclass
class Run:
    wall: float
    rss_kb: int


@dataclass
class Figures:
    label: str
    runs: List[Run]
    files: int
    lines: int
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(run.wall for run in self.runs)

    @property
    def rss_mb(self) -> float:
        return max(run.rss_kb for run in self.runs) / 1024

    def row(self) -> str:
        wall = self.median
        rate_files = self.files / wall if wall else 0
        rate_lines = self.lines / wall if wall else 0
        note = f"  {self.note}" if self.note else ""
        return (
            f"  {self.label:<38} {wall:9.2f} s {rate_files:10.0f} files/s {rate_lines:11.0f} lines/s "
            f"{self.rss_mb:8.0f} MB peak  (runs: {len(self.runs)}){note}"
        )


def measure(command: Sequence[str], cwd: Path, stdin: Optional[str] = None, check: bool = True) -> Run:
    wrapper = [PYTHON, "-c", MEASURE, str(cwd), *command]
    if stdin is not None:
        # the wrapper's child reads stdin: pass it through a file
        with tempfile.NamedTemporaryFile("w", delete=False, suffix=".txt") as handle:
            handle.write(stdin)
        wrapper = [PYTHON, "-c", MEASURE, str(cwd), "sh", "-c", f'"$0" "$@" < {handle.name}', *command]
    done = subprocess.run(wrapper, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"benchmark wrapper failed: {done.stderr}")
    data = json.loads(done.stdout)
    progress(f"{data['wall']:.2f} s, {data['rss_kb'] / 1024:.0f} MB: {' '.join(command).replace(chr(10), ' ')[:100]}")
    if check and data["code"] not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {data['code']}: {data['stderr']}")
    return Run(data["wall"], data["rss_kb"])


def list_files(root: Path) -> List[Path]:
    from tvmlint.run.discovery import discover

    return [Path(path) for path in discover([root], lambda _path: False).files]


def count_lines(files: Sequence[Path]) -> int:
    total = 0
    for path in files:
        with open(path, "rb") as handle:
            total += handle.read().count(b"\n")
    return total


def tvmlint_command(target: str, jobs: int, *extra: str) -> List[str]:
    return [PYTHON, "-m", "tvmlint", "check", ".", "--target-version", target, "--format", "concise",
            "--exit-zero", "--jobs", str(jobs), *extra]


def clear_cache(root: Path) -> None:
    shutil.rmtree(root / ".tvmlint_cache", ignore_errors=True)


def bench_cold(root: Path, paths: Sequence[Path], target: str, jobs: int, runs: int, files: int, lines: int,
               floor: bool, tvmlint: bool) -> Dict[str, Figures]:
    """The floor and tvmlint cold, taken in turns (floor, tvmlint; 1 worker, then N) so that
    both see the same machine: on a shared virtual machine one run can differ from the next
    by a quarter, and a ratio of figures taken minutes apart carries that."""
    listing = "\n".join(str(path) for path in paths)
    timings: Dict[str, List[Run]] = {}
    for _ in range(runs):
        for workers in sorted({1, jobs}):
            if floor:
                run = measure([PYTHON, "-c", FLOOR, str(workers)], root, stdin=listing)
                timings.setdefault(f"floor{workers}", []).append(run)
            if tvmlint:
                clear_cache(root)
                timings.setdefault(f"cold{workers}", []).append(measure(tvmlint_command(target, workers), root))
    labels = {"floor": "bare libcst.parse_module, {} w.", "cold": "tvmlint cold, {} worker(s)"}
    out = {}
    for workers in sorted({1, jobs}):
        for kind, label in labels.items():
            if f"{kind}{workers}" in timings:
                out[f"{kind}{workers}"] = Figures(label.format(workers), timings[f"{kind}{workers}"], files, lines)
    return out


def bench_warm(root: Path, target: str, jobs: int, runs: int, files: int, lines: int) -> Dict[str, Figures]:
    out: Dict[str, Figures] = {}
    for workers in sorted({1, jobs}):
        measure(tvmlint_command(target, workers), root)  # fills the cache
        warm = [measure(tvmlint_command(target, workers), root) for _ in range(runs)]
        out[f"warm{workers}"] = Figures(f"tvmlint warm (cache), {workers} worker(s)", warm, files, lines)
    return out


def paired_ratios(mine: Figures, floor: Figures) -> str:
    """Each run's ratio to the floor run taken just before it: the spread the machine gave."""
    ratios = sorted(a.wall / b.wall for a, b in zip(mine.runs, floor.runs))
    return ", ".join(f"{ratio:.3f}" for ratio in ratios)


def bench_one_changed(root: Path, target: str, jobs: int, runs: int, files: int, lines: int, changed: Path) -> Figures:
    original = changed.read_bytes()
    timings = []
    try:
        for number in range(runs):
            measure(tvmlint_command(target, jobs), root)  # warm
            changed.write_bytes(original + f"\n# benchmark edit {number}\n".encode())
            timings.append(measure(tvmlint_command(target, jobs), root))
    finally:
        changed.write_bytes(original)
    return Figures(f"tvmlint warm, 1 file changed, {jobs} w.", timings, files, lines, note=f"({changed.relative_to(root)})")


SEMGREP_RULES = HERE / "semgrep_rules.yml"


def find_semgrep(option: Optional[str]) -> Optional[Path]:
    for candidate in ([option] if option else [shutil.which("semgrep"), "/tmp/semvenv/bin/semgrep"]):
        if candidate and Path(candidate).exists():
            return Path(candidate)
    return None


def semgrep_command(semgrep: Path, jobs: int, paths: Sequence[Path], *extra: str,
                    rules: Path = SEMGREP_RULES) -> List[str]:
    # the files named one by one: given the directory, semgrep's default ignore list leaves out
    # tests/, most of this tree
    return [str(semgrep), "scan", "--config", str(rules), "--metrics=off", "--disable-version-check",
            "--quiet", "--jobs", str(jobs), *extra, *map(str, paths)]


def bench_semgrep(semgrep: Path, root: Path, paths: Sequence[Path], jobs: int, runs: int, files: int,
                  lines: int, target: str, rules: Path = SEMGREP_RULES) -> Tuple[Figures, Figures]:
    """semgrep with `rules` (default benchmarks/semgrep_rules.yml, three rules) over the same
    files, N workers, each run followed by a cold tvmlint run with N workers, for the same
    reason as `bench_cold`: (semgrep, tvmlint beside it)."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "semgrep.json"
        # untimed: what it scanned and found, and anything it downloads or caches on a first run
        measure(semgrep_command(semgrep, jobs, paths, "--json", "--output", str(report), rules=rules), root)
        data = json.loads(report.read_text())
    scanned = len(data.get("paths", {}).get("scanned", []))
    version = subprocess.run([str(semgrep), "--version"], capture_output=True, text=True).stdout.strip()
    timings, beside = [], []
    for _ in range(runs):
        timings.append(measure(semgrep_command(semgrep, jobs, paths, rules=rules), root))
        clear_cache(root)
        beside.append(measure(tvmlint_command(target, jobs), root))
    note = f"(semgrep {version}, {rules.name}: {scanned} files scanned, {len(data.get('results', []))} results, " \
           f"{len(data.get('errors', []))} errors)"
    return (Figures(f"semgrep, 3 rules, {jobs} w.", timings, files, lines, note=note),
            Figures(f"tvmlint cold beside semgrep, {jobs} w.", beside, files, lines))


def find_fixit(option: Optional[str]) -> Optional[Path]:
    """The python of an environment where Fixit 2 is installed."""
    candidates = [option] if option else [shutil.which("fixit"), "/tmp/fixitvenv/bin/fixit"]
    for candidate in candidates:
        if not candidate:
            continue
        path = Path(candidate)
        if path.name.startswith("python") and path.exists():
            return path
        if path.exists():
            python = path.parent / "python"
            if python.exists():
                return python
    return None


def bench_fixit(python: Path, root: Path, paths: Sequence[Path], jobs: int, timeout: float, files: int, lines: int,
                budget: float) -> Figures:
    """Fixit 2 over every file with `jobs` workers; a file over `timeout` seconds is killed and counted."""
    queue = list(sorted(paths, key=lambda p: -p.stat().st_size))
    start = time.perf_counter()
    workers: List[dict] = []
    timeouts: List[str] = []
    errors = 0
    done_files = 0
    peak_kb = 0

    def spawn() -> dict:
        process = subprocess.Popen([str(python), "-c", FIXIT_WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=root)
        os.set_blocking(process.stdout.fileno(), False)
        return {"process": process, "file": None, "since": 0.0, "buffer": ""}

    def rss_of(process) -> int:
        try:
            with open(f"/proc/{process.pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    for _ in range(jobs):
        workers.append(spawn())
    over_budget = False
    while queue or any(worker["file"] for worker in workers):
        for index, worker in enumerate(workers):
            process = worker["process"]
            if worker["file"] is not None:
                try:
                    chunk = process.stdout.read()
                except (OSError, TypeError):
                    chunk = None
                if chunk:
                    worker["buffer"] += chunk
                if "\n" in worker["buffer"]:
                    line, _, worker["buffer"] = worker["buffer"].partition("\n")
                    peak_kb = max(peak_kb, rss_of(process))
                    errors += line.startswith("error")
                    done_files += 1
                    worker["file"] = None
                elif time.perf_counter() - worker["since"] > timeout or process.poll() is not None:
                    peak_kb = max(peak_kb, rss_of(process))
                    process.kill()
                    process.wait()
                    timeouts.append(str(worker["file"].relative_to(root)))
                    workers[index] = worker = spawn()
            if worker["file"] is None and queue:
                if time.perf_counter() - start > budget:
                    over_budget = True
                    queue.clear()
                    continue
                worker["file"] = queue.pop(0)
                worker["since"] = time.perf_counter()
                worker["process"].stdin.write(f"{worker['file']}\n")
                worker["process"].stdin.flush()
        time.sleep(0.005)
    for worker in workers:
        peak_kb = max(peak_kb, rss_of(worker["process"]))
        worker["process"].stdin.close()
        worker["process"].wait()
    wall = time.perf_counter() - start
    note = f"{done_files} files done, {len(timeouts)} timed out (> {timeout:g} s), {errors} errors"
    if over_budget:
        note += f"; stopped at the {budget:g} s budget"
    if timeouts:
        note += "; timeouts: " + ", ".join(timeouts[:5]) + (" ..." if len(timeouts) > 5 else "")
    return Figures(f"Fixit 2 default rules, {jobs} w.", [Run(wall, peak_kb)], files, lines, note=note)


def compile_bytecode() -> None:
    """tvmlint's bytecode, compiled as pip compiles an installed package's (pre-commit's too),
    and the rules/ tables' pickles, as an installed tvmlint's first run writes them: a checkout
    run with PYTHONDONTWRITEBYTECODE set would compile every module and parse every table each time."""
    import compileall

    import tvmlint
    from tvmlint.knowledge.location import rules_dir
    from tvmlint.knowledge.tables import load_toml

    compileall.compile_dir(str(Path(tvmlint.__file__).parent), quiet=1)
    told, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        for table in sorted(rules_dir().rglob("*.toml")):
            load_toml(table)
    finally:
        sys.dont_write_bytecode = told


def analysed_by_libcst(path: Path, target: str) -> bool:
    """Whether a one-file run sends the file to libcst (the cheap stage decides), asked in this process."""
    from tvmlint.run.config import Overrides, SettingsResolver
    from tvmlint.run.runner import check_paths

    resolver = SettingsResolver(Overrides(target_version=target), cwd=path.parent)
    return check_paths([path], resolver, jobs=1, use_cache=False).files_analysed > 0


@contextmanager
def running_daemon() -> Iterator[None]:
    """A `tvmlint daemon` of the benchmark's own (its socket in a private directory), stopped after."""
    with tempfile.TemporaryDirectory(prefix="tvd", dir="/tmp") as directory:
        saved = os.environ.get("TVMLINT_DAEMON_DIR")
        os.environ["TVMLINT_DAEMON_DIR"] = directory
        try:
            # started from a folder of its own: from a checkout, `-m tvmlint` would import that
            # checkout's tvmlint before PYTHONPATH's (the one another checkout's run asks for)
            started = subprocess.run([PYTHON, "-m", "tvmlint", "daemon", "start"], capture_output=True, text=True,
                                     cwd=directory)
            if started.returncode != 0:
                raise SystemExit(f"tvmlint daemon start failed: {started.stderr}")
            yield
        finally:
            subprocess.run([PYTHON, "-m", "tvmlint", "daemon", "stop"], capture_output=True, cwd=directory)
            if saved is None:
                del os.environ["TVMLINT_DAEMON_DIR"]
            else:
                os.environ["TVMLINT_DAEMON_DIR"] = saved


def daemon_served() -> int:
    from tvmlint.frontends.daemon import client

    reply = client.ask({"kind": "status"})
    return reply["served"] if reply is not None else 0


def sample(paths: Sequence[Path], count: int) -> List[Path]:
    """`count` paths spread evenly over the sorted list: the same sample on every run."""
    ordered = sorted(paths)
    if len(ordered) <= count:
        return ordered
    return [ordered[round(index * (len(ordered) - 1) / (count - 1))] for index in range(count)]


def bench_single(root: Path, target: str, paths: Sequence[Path], runs: int, count: int, analysed: int) -> List[str]:
    """`tvmlint check <file> --no-cache`, one process per run as pre-commit starts it, over a sample
    of the files that name TVM (the ones that can pay for rules and libcst), one that does not,
    and `analysed` more that libcst must analyse (few of an even sample are); then the same
    commands with `--daemon`, handed to a `tvmlint daemon` started for them."""
    naming = [p for p in paths if b"tvm" in p.read_bytes()]
    plain = [p for p in paths if b"tvm" not in p.read_bytes() and p.stat().st_size > 50]
    even = sample(naming, count)
    picked = [(p, "names TVM") for p in even] + [(p, "no TVM") for p in plain[:1]]
    extra = []
    for path in sample(naming, len(naming) // 5):  # spread over the tree too, in the same order every run
        if len(extra) >= analysed:
            break
        if path not in even and analysed_by_libcst(path, target):
            extra.append((path, "names TVM"))
    picked += extra
    medians: Dict[str, List[float]] = {}
    with running_daemon():
        # the same commands handed to `tvmlint daemon` (`--daemon`), which has libcst loaded
        for path, kind in picked:
            command = [PYTHON, "-m", "tvmlint", "check", str(path), "--target-version", target, "--exit-zero",
                       "--no-cache", "--daemon"]
            measure(command, root)  # the first run may start the daemon and check alone; not counted
            wall = statistics.median(measure(command, root).wall for _ in range(runs))
            if kind == "names TVM":
                kind += ", analysed by libcst" if analysed_by_libcst(path, target) else ", not analysed"
            medians.setdefault(f"{kind}, --daemon", []).append(wall)
        served = daemon_served()
        if served < len(picked) * runs:
            raise SystemExit(f"the daemon served {served} of {len(picked) * runs} timed runs: "
                             "its figures would be of runs without it")
    # What any process that analyses a file pays first, timed between the files: on a shared
    # virtual machine the same work takes from 0.16 to 0.27 s from one minute to the next.
    importing = [PYTHON, "-c", "import libcst"]
    for path, kind in picked:
        command = [PYTHON, "-m", "tvmlint", "check", str(path), "--target-version", target, "--exit-zero", "--no-cache"]
        measure(command, root)  # warms the file cache; not counted
        wall = statistics.median(measure(command, root).wall for _ in range(runs))
        medians.setdefault("reference: python -c 'import libcst'", []).append(measure(importing, root).wall)
        if kind == "names TVM":
            kind += ", analysed by libcst" if analysed_by_libcst(path, target) else ", not analysed"
        medians.setdefault(kind, []).append(wall)
    rows = []
    for kind, walls in sorted(medians.items()):
        walls.sort()
        under = sum(wall < 0.3 for wall in walls)
        judged = "" if kind.startswith("reference") else f"; {under} of {len(walls)} under 0.3 s"
        rows.append(f"  {kind:<44} {len(walls):3d} files: median {statistics.median(walls):.2f} s, "
                    f"90th percentile {walls[int(0.9 * (len(walls) - 1))]:.2f} s, max {walls[-1]:.2f} s{judged}")
    return rows


def bench_editor(path: Path, target: str, edits: int) -> dict:
    done = subprocess.run([PYTHON, "-c", EDITOR, str(path), target, str(edits)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"editor benchmark failed: {done.stderr}")
    return json.loads(done.stdout)


def buffer_of(lines: int, source: Path, into: Path) -> Path:
    """A `lines`-line buffer cut from a real file (whole top-level blocks), for the editor figures."""
    text = source.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    cut = len(text)
    if len(text) > lines:
        cut = lines
        while cut < len(text) and text[cut][:1] in (" ", "\t", "\n", ")", "]", "}"):
            cut += 1
    into.write_text("".join(text[:cut]), encoding="utf-8")
    return into


GENERATED = {
    # a script with a mistake tvmlint reports
    "gated": "import tvm\nfrom tvm import relay\n\n\ndef optimise(mod):\n    seq = tvm.transform.Sequential([relay.transform.FoldScaleAxis()])\n"
    "    return seq(mod)\n\n\nmod = optimise(mod)\n",
    # TVM used correctly
    "clean": "import tvm\nfrom tvm import relay\n\n\ndef build(mod, params):\n    with tvm.transform.PassContext(opt_level=3):\n"
    "        return relay.build(mod, target='llvm', params=params)\n",
    # no TVM at all
    "plain": "import os\nimport json\n\n\ndef load(path):\n    with open(path) as handle:\n        return json.load(handle)\n\n\n"
    "def main():\n    print(load(os.environ.get('CONFIG', 'config.json')))\n",
}


def generate_tree(root: Path, count: int) -> None:
    """`count` files in packages of 100: 10% with a finding, 30% clean TVM, 60% without TVM."""
    if root.exists() and len(list(root.rglob("*.py"))) == count:
        return
    shutil.rmtree(root, ignore_errors=True)
    kinds = ["gated"] + ["clean"] * 3 + ["plain"] * 6
    for number in range(count):
        package = root / f"pkg{number // 100:04d}"
        package.mkdir(parents=True, exist_ok=True)
        kind = kinds[number % len(kinds)]
        (package / f"m{number:05d}.py").write_text(f"# generated {kind} module {number}\n" + GENERATED[kind])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="the tree to check (e.g. /tmp/tvm-v0.19.0)")
    parser.add_argument("--target-version", default="0.19")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="the N of 'N workers' (default: cores)")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--fixit", help="Fixit 2's executable or its environment's python (default: PATH, /tmp/fixitvenv)")
    parser.add_argument("--fixit-timeout", type=float, default=30.0, help="seconds per file before Fixit is killed")
    parser.add_argument("--fixit-budget", type=float, default=1800.0, help="seconds for the whole Fixit run")
    parser.add_argument("--semgrep", help="semgrep's executable (default: PATH, /tmp/semvenv/bin/semgrep)")
    parser.add_argument("--skip", action="append", default=[],
                        choices=("floor", "fixit", "semgrep", "tvmlint", "changed", "single", "editor", "scale"))
    parser.add_argument("--single-sample", type=int, default=40, help="files naming TVM timed one by one")
    parser.add_argument("--single-analysed", type=int, default=10,
                        help="files libcst must analyse timed one by one, beyond the sample")
    parser.add_argument("--scale-dir", type=Path, default=Path(tempfile.gettempdir()) / "tvmlint-scale")
    parser.add_argument("--scale", default="2000,20000", help="sizes of the generated trees")
    args = parser.parse_args(argv)

    root = args.path.resolve()
    paths = list_files(root)
    lines = count_lines(paths)
    size = sum(path.stat().st_size for path in paths)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    print(f"tree: {root}: {len(paths)} files, {lines} lines, {size / 1e6:.1f} MB")
    print(f"machine: {os.cpu_count()} cores, load average at start {load[0]:.2f}; python {sys.version.split()[0]}")
    print(f"target {args.target_version}; N = {args.jobs} workers; median of {args.runs} runs\n")

    compile_bytecode()
    figures: Dict[str, Figures] = {}
    if "floor" not in args.skip or "tvmlint" not in args.skip:
        figures.update(bench_cold(root, paths, args.target_version, args.jobs, args.runs, len(paths), lines,
                                  "floor" not in args.skip, "tvmlint" not in args.skip))
    if "tvmlint" not in args.skip:
        figures.update(bench_warm(root, args.target_version, args.jobs, args.runs, len(paths), lines))
    if "changed" not in args.skip:
        # a helper module many tests import: its callers are what "dependents" means here
        candidates = [p for p in paths if p.name == "__init__.py" and "relay" in p.parts and "testing" in p.parts]
        changed = candidates[0] if candidates else max(paths, key=lambda p: p.stat().st_size)
        figures["changed"] = bench_one_changed(root, args.target_version, args.jobs, args.runs, len(paths), lines,
                                               changed)
    if "fixit" not in args.skip:
        python = find_fixit(args.fixit)
        if python is None:
            print("Fixit 2: not found (install it in a venv and pass --fixit <venv>/bin/fixit)\n")
        else:
            figures["fixit"] = bench_fixit(python, root, paths, args.jobs, args.fixit_timeout, len(paths), lines,
                                           args.fixit_budget)

    if "semgrep" not in args.skip:
        semgrep = find_semgrep(args.semgrep)
        if semgrep is None:
            print("semgrep: not found (pip install semgrep in a venv and pass --semgrep <venv>/bin/semgrep)\n")
        else:
            figures["semgrep"], figures["beside"] = bench_semgrep(
                semgrep, root, paths, args.jobs, args.runs, len(paths), lines, args.target_version,
            )

    print("whole tree:")
    for figure in figures.values():
        print(figure.row())
    print()
    ratios = []
    for workers in sorted({1, args.jobs}):
        floor = figures.get(f"floor{workers}")
        for kind in ("cold", "warm"):
            mine = figures.get(f"{kind}{workers}")
            if floor and mine:
                paired = f" (each run against the floor run before it: {paired_ratios(mine, floor)})" if kind == "cold" else ""
                ratios.append(f"  tvmlint {kind} / floor, {workers} worker(s): {mine.median / floor.median:.3f}{paired}")
        if floor and "fixit" in figures and workers == args.jobs:
            ratios.append(f"  Fixit 2 / floor, {workers} worker(s): {figures['fixit'].median / floor.median:.2f}"
                          " (lower bound when files timed out)")
    if "semgrep" in figures:
        ratios.append(f"  tvmlint cold / semgrep, {args.jobs} workers, runs taken in turns: "
                      f"{figures['beside'].median / figures['semgrep'].median:.2f} (each tvmlint run against the "
                      f"semgrep run before it: {paired_ratios(figures['beside'], figures['semgrep'])}; target: below 1)")
    if "changed" in figures and f"warm{args.jobs}" in figures:
        ratios.append(f"  one file changed / warm: {figures['changed'].median / figures[f'warm{args.jobs}'].median:.2f}")
    if ratios:
        print("ratios (target: cold with N workers <= 0.5 x floor with N workers; warm <= 1 s):")
        print("\n".join(ratios))
        print()

    if "single" not in args.skip:
        print(f"pre-commit, `tvmlint check <file> --no-cache`, median of {args.runs} runs "
              f"per file, {args.single_sample} files naming TVM spread over the tree, one without TVM, and "
              f"{args.single_analysed} more that libcst analyses (target < 0.3 s):")
        print("\n".join(bench_single(root, args.target_version, paths, args.runs, args.single_sample,
                                      args.single_analysed)))
        print()

    if "editor" not in args.skip:
        largest = max(paths, key=lambda p: p.read_bytes().count(b"\n"))
        with tempfile.TemporaryDirectory() as scratch:
            buffer = buffer_of(2000, largest, Path(scratch) / "buffer_2000.py")
            print("editor path, runner.check_text (targets: 2,000 lines < 0.5 s after a change; largest never > 3 s):")
            for path in (buffer, largest):
                data = bench_editor(path, args.target_version, 10)
                print(f"  {data['lines']:6d} lines ({path.name}): first check {data['first']:.2f} s with imports; "
                      f"after an edit: median {data['median']:.2f} s, max {data['max']:.2f} s")
        print()

    if "scale" not in args.skip:
        sizes = [int(part) for part in args.scale.split(",")]
        print(f"scale (generated trees under {args.scale_dir}; cold, {args.jobs} workers, no cache; target: "
              "peak RSS at the largest within 1.5x of the smallest):")
        peaks = {}
        for count in sizes:
            tree = args.scale_dir / f"tree-{count}"
            generate_tree(tree, count)
            timings = [measure(tvmlint_command(args.target_version, args.jobs, "--no-cache"), tree)
                       for _ in range(max(1, args.runs - 1))]
            figure = Figures(f"tvmlint, {count} generated files", timings, count, count_lines(list(tree.rglob("*.py"))))
            peaks[count] = figure.rss_mb
            print(figure.row())
        if len(sizes) >= 2:
            print(f"  peak RSS {max(sizes)} / {min(sizes)} files: {peaks[max(sizes)] / peaks[min(sizes)]:.2f}")
        print()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    print(f"load average at the end {load[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
