#!/usr/bin/env python3
"""Issue #24's goals, each next to its measured figure.

    python benchmarks/goals.py [--quick] [--skip NAME ...] [--tests] [--tree /tmp/tvm-v0.26.0]

Measures each goal with the benchmark that exists for it (benchmarks/memory_scale.py,
large_files.py, lsp_latency.py, run.py's semgrep pairs; the daemon here), then prints a
table: goal | target | measured | met? (yes / no / not measured). Every figure carries the
load average (1 minute) at its start and end: on a shared 2-core machine a figure taken
under load says so. --quick takes fewer runs. The test suite (about 7 minutes) runs only
with --tests.

Goals (NAME for --skip):
  memory   peak RSS at 20,000 real files within 1.2x of the peak at ~1,500 (memory_scale.py --json)
  huge     one huge file: checked within ~1 GB, or a TVM001 "too large to analyse" and the run goes on
  fix      `fix` within 2x of `check` on a 20,000-line file
  lsp      diagnostics 0.5 s after the last keystroke, 2,000-line buffer, a real LSP client
  daemon   a client sending half a request holds nobody up; a daemon that never replies is left
           after --daemon-timeout
  tests    the README's test command under 10 minutes on 2 cores (only with --tests)
  semgrep  tvmlint cold / semgrep below 1, paired runs, 2 workers, on --tree (both rule files)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import large_files  # noqa: E402  (benchmarks/large_files.py)
import run as bench_run  # noqa: E402  (benchmarks/run.py)

PYTHON = sys.executable
NAMES = ("memory", "huge", "fix", "lsp", "daemon", "tests", "semgrep")


def load() -> float:
    return os.getloadavg()[0]


@dataclass
class Goal:
    name: str
    goal: str
    target: str
    measured: str = "not measured"
    met: str = "not measured"
    load: str = ""

    def verdict(self, ok: bool) -> None:
        self.met = "yes" if ok else "no"


def timed_goal(function: Callable[[Goal, argparse.Namespace], None], goal: Goal, args: argparse.Namespace) -> None:
    print(f"\n== {goal.name}: {goal.goal} (target {goal.target})", flush=True)
    before = load()
    try:
        function(goal, args)
    except (Exception, SystemExit) as error:  # a benchmark that breaks (run.py's measure exits) leaves its
        # goal unmeasured, not the run
        goal.measured, goal.met = f"not measured: {type(error).__name__}: {str(error)[-200:]}", "not measured"
    goal.load = f"{before:.2f} -> {load():.2f}"
    print(f"   measured: {goal.measured}; met: {goal.met}; load {goal.load}", flush=True)


# 1. memory ----------------------------------------------------------------------------------

def memory(goal: Goal, args: argparse.Namespace) -> None:
    script = HERE / "memory_scale.py"
    if not script.exists():
        goal.measured = "not measured: benchmarks/memory_scale.py is not there yet"
        return
    runs = ["--runs", "1"] if args.quick else []
    done = subprocess.run([PYTHON, str(script), "--json", *runs], cwd=REPO, capture_output=True, text=True)
    print(done.stdout[-3000:], done.stderr[-1500:], sep="\n")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    try:
        data = json.loads(lines[-1])
        small, large, ratio = data["small"], data["large"], float(data["ratio"])
    except (IndexError, ValueError, KeyError, TypeError) as error:
        goal.measured = f"not measured: memory_scale.py exited {done.returncode}, no JSON last line ({error})"
        return
    goal.measured = (f"{ratio:.2f}x ({small['files']:,} files {small['peak_mb']:.0f} MB {small['wall']:.1f} s; "
                     f"{large['files']:,} files {large['peak_mb']:.0f} MB {large['wall']:.1f} s)")
    goal.verdict(ratio <= float(data.get("goal", 1.2)))


# 2. one huge file ---------------------------------------------------------------------------

FOLD = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def failed(result: dict, argv: List[str], cwd: Path) -> str:
    """'' for a run that exited 0 or 1; else why, from its stderr (the command is run again to read it:
    large_files.measure keeps only its last output line)."""
    if result["exit"] in ("0", "1") and not result["tracebacks"] and not result["memory_error"]:
        return ""
    err = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600).stderr.strip().splitlines()
    return f"exit {result['exit']}: {(err or [''])[-1][:160]}"


def huge(goal: Goal, args: argparse.Namespace) -> None:
    """The largest file the default max-file-size lets through (real test files, concatenated by
    large_files.py), checked: peak RSS within 1 GB. A file over the limit beside a small file with a
    finding: one TVM001 'too large to analyse' for it, and the small file still checked."""
    try:
        root = large_files.tests_root(None)
    except (subprocess.CalledProcessError, OSError):
        root = args.tree / "tests" / "python"
    work = Path(tempfile.mkdtemp(prefix="tvmlint-goal-huge-"))
    parts = []
    ok = True
    try:
        (work / "pyproject.toml").write_text(large_files.CONFIG.format(target="0.18"))
        under, limit = 4.9, 5 * 2**20  # the default max-file-size, 5 MB of 2**20 bytes
        while True:  # whole test files are added until the size is reached: stay under the limit
            text = large_files.concatenated(root, under)
            if len(text.encode("utf-8")) <= limit:
                break
            under -= 0.05
        (work / "under.py").write_text(text, encoding="utf-8")
        size = (work / "under.py").stat().st_size / 2**20
        command = large_files.tvmlint("check", "--no-cache", "--format", "concise", "under.py")
        r = large_files.measure(command, work, args.cap_gb, 600)
        large_files._show("under.py", size, r)
        why = failed(r, command, work) or ("not analysed: " + r["tail"] if "too large" in r["tail"] else "")
        ok &= not why and r["peak_rss_mb"] <= 1024
        parts.append(f"{size:.1f} MB checked: {r['wall_s']:.1f} s, {r['peak_rss_mb']:.0f} MB peak"
                     + (f" ({why})" if why else ""))
        (work / "under.py").unlink()

        over = 10 if args.quick else 20
        (work / "over.py").write_text(large_files.concatenated(root, over), encoding="utf-8")
        (work / "small.py").write_text(FOLD)
        size = (work / "over.py").stat().st_size / 2**20
        r = large_files.measure(large_files.tvmlint("check", "--no-cache", "--format", "concise", "."), work,
                                args.cap_gb, 600)
        done = subprocess.run(large_files.tvmlint("check", "--no-cache", "--format", "concise", "."), cwd=work,
                              capture_output=True, text=True, timeout=600)
        large_files._show("over.py + small.py", size, r)
        said = [line for line in done.stdout.splitlines() if "over.py" in line and "TVM001" in line
                and "too large to analyse" in line]
        went_on = any("small.py" in line and "TVM101" in line for line in done.stdout.splitlines())
        ok &= bool(said) and went_on and r["peak_rss_mb"] <= 1024
        if done.returncode not in (0, 1):
            parts.append(f"exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:160]}")
        parts.append(f"{size:.0f} MB + a small file: {r['wall_s']:.1f} s, {r['peak_rss_mb']:.0f} MB peak, "
                     f"TVM001 too large: {'yes' if said else 'NO'}, small file's TVM101: "
                     f"{'yes' if went_on else 'NO'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    goal.measured = "; ".join(parts)
    goal.verdict(ok)


# 3. fix vs check ----------------------------------------------------------------------------

def fix(goal: Goal, args: argparse.Namespace) -> None:
    """large_files.py's part 2 (its generated file of fixable findings), in paired runs."""
    work = Path(tempfile.mkdtemp(prefix="tvmlint-goal-fix-"))
    ratios: Dict[str, List[float]] = {"writes": [], "--diff": []}
    checks, errors = [], []
    try:
        (work / "pyproject.toml").write_text(large_files.CONFIG.format(target="0.19"))
        text = large_files.fixable(20_000)
        for _ in range(1 if args.quick else 3):
            (work / "big.py").write_text(text)
            time.sleep(2.1)  # a clock tick old, as large_files.py does
            check = large_files.measure(large_files.tvmlint("check", "--no-cache", "--format", "concise", "big.py"),
                                        work, args.cap_gb, 600)
            large_files._show("check", 0, check)
            diff = large_files.measure(large_files.tvmlint("fix", "--no-cache", "--unsafe-fixes", "--diff", "big.py"),
                                       work, args.cap_gb, 600)
            large_files._show("fix --diff", 0, diff)
            written = large_files.measure(large_files.tvmlint("fix", "--no-cache", "--unsafe-fixes", "big.py"),
                                          work, args.cap_gb, 600)
            large_files._show("fix (writes)", 0, written)
            for result, argv in ((check, ["check", "--no-cache", "big.py"]),
                                 (diff, ["fix", "--no-cache", "--unsafe-fixes", "--diff", "big.py"])):
                why = failed(result, large_files.tvmlint(*argv), work)
                if why:
                    errors.append(f"{argv[0]}: {why}")
            if written["exit"] not in ("0", "1"):
                errors.append(f"fix (writes): exit {written['exit']}")
            checks.append(check["wall_s"])
            ratios["writes"].append(written["wall_s"] / check["wall_s"])
            ratios["--diff"].append(diff["wall_s"] / check["wall_s"])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def shown(values: List[float]) -> str:
        values = sorted(values)
        spread = f" ({values[0]:.2f}-{values[-1]:.2f})" if len(values) > 1 else ""
        return f"{statistics.median(values):.2f}x{spread}"

    goal.measured = (f"fix/check {shown(ratios['writes'])}, fix --diff/check {shown(ratios['--diff'])}; "
                     f"check {statistics.median(checks):.1f} s, {len(checks)} paired run(s), "
                     f"{text.count(chr(10)):,} lines")
    if errors:
        goal.measured = "not measured: " + "; ".join(errors)
        return
    goal.verdict(statistics.median(ratios["writes"]) <= 2 and statistics.median(ratios["--diff"]) <= 2)


# 4. editor ----------------------------------------------------------------------------------

def lsp(goal: Goal, args: argparse.Namespace) -> None:
    rounds, bursts = (5, 3) if args.quick else (10, 5)
    done = subprocess.run([PYTHON, str(HERE / "lsp_latency.py"), "--rounds", str(rounds), "--bursts", str(bursts)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    print(done.stdout, done.stderr[-1500:], sep="\n")
    found = {}
    for key, pattern in (("change", r"one-line change after a pause -> diagnostics: median (\d+) ms.*max (\d+)"),
                         ("burst", r"last keystroke of a burst .* -> diagnostics: median (\d+) ms.*max (\d+)"),
                         ("lines", r"buffer: (\d+) lines")):
        match = re.search(pattern, done.stdout)
        if match:
            found[key] = [int(value) for value in match.groups()]
    if "change" not in found or "burst" not in found:
        goal.measured = f"not measured: lsp_latency.py exited {done.returncode}"
        return
    goal.measured = (f"{found['lines'][0]:,} lines; last keystroke of a burst: median {found['burst'][0]} ms "
                     f"(max {found['burst'][1]}); one-line change: median {found['change'][0]} ms "
                     f"(max {found['change'][1]})")
    goal.verdict(found["burst"][0] <= 500 and found["change"][0] <= 500)


# 5. daemon ----------------------------------------------------------------------------------

def daemon(goal: Goal, args: argparse.Namespace) -> None:
    """As tests/test_daemon.py does it: a daemon of our own (its own socket directory), two
    stalled connections (half a request, nothing), then a timed `check --daemon`; and a socket
    that takes a request and never replies, then `check --daemon --daemon-timeout T`."""
    from tvmlint.frontends.daemon import address, client, protocol, server

    if not address.supported():
        goal.measured = "not measured: no Unix domain sockets here"
        return
    directory = tempfile.mkdtemp(prefix="tvg", dir="/tmp")  # short: a socket path holds ~100 bytes
    project = Path(tempfile.mkdtemp(prefix="tvmlint-goal-daemon-"))
    (project / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n')
    (project / "model.py").write_text(FOLD)
    saved = os.environ.get(address.DIR_ENV)
    os.environ[address.DIR_ENV] = directory
    env = {**os.environ}

    def tvmlint(*argv: str, environment: Optional[dict] = None):
        begin = time.monotonic()
        done = subprocess.run([PYTHON, "-m", "tvmlint", *argv], cwd=project, env=environment or env,
                              capture_output=True, timeout=180)
        return time.monotonic() - begin, (done.returncode, done.stdout, done.stderr)

    def stalled(payload: bytes) -> socket.socket:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(str(address.socket_path()))
        if payload:
            connection.sendall(payload)
        return connection

    timeout = 2.0
    try:
        subprocess.run([PYTHON, "-m", "tvmlint", "daemon", "start"], cwd=REPO, env=env, check=True,
                       capture_output=True, timeout=60)
        alone_time, alone = tvmlint("check", "model.py")
        plain_time, plain = tvmlint("check", "model.py", "--daemon")
        held = [stalled(b'{"kind": "check", "argv": ["check", "mod'), stalled(b"")]
        try:
            hindered_time, hindered = tvmlint("check", "model.py", "--daemon")
        finally:
            for connection in held:
                connection.close()
        status = client.ask({"kind": "status"}) or {}
        reply = client.ask({"kind": "stop"})
        if reply is not None:
            for _ in range(100):
                try:
                    os.kill(reply["pid"], 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
        same = plain == alone and hindered == alone
        concurrent_ok = same and status.get("served") == 2 and hindered_time < min(plain_time + 3.0,
                                                                                     server.REQUEST_TIMEOUT)

        # a daemon that takes the run and never answers
        path = address.socket_path()
        if path.exists():
            path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(4)
        taken: list = []

        def silent() -> None:
            connection, _ = listener.accept()
            taken.append(connection)
            protocol.receive(connection)
            protocol.send(connection, {"kind": "accepted"})

        thread = threading.Thread(target=silent, daemon=True)
        thread.start()
        try:
            silent_time, fallback = tvmlint("check", "model.py", "--daemon", "--daemon-timeout", str(timeout))
        finally:
            for connection in taken:
                connection.close()
            listener.close()
            path.unlink()
        fell_back = fallback[0] == alone[0] and fallback[1] == alone[1] and b"did not answer" in fallback[2]
        fallback_ok = fell_back and timeout <= silent_time < timeout + alone_time + 3.0
    finally:
        if saved is None:
            os.environ.pop(address.DIR_ENV, None)
        else:
            os.environ[address.DIR_ENV] = saved
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)
    goal.measured = (f"with 2 stalled clients {hindered_time:.2f} s (without them {plain_time:.2f} s; the daemon drops a "
                     f"stall after {server.REQUEST_TIMEOUT:g} s), same output: {'yes' if same else 'NO'}; "
                     f"silent daemon, --daemon-timeout {timeout:g}: fell back in {silent_time:.2f} s "
                     f"(a run of its own {alone_time:.2f} s), same output + note: {'yes' if fell_back else 'NO'}")
    goal.verdict(concurrent_ok and fallback_ok)


# 6. test suite ------------------------------------------------------------------------------

def readme_test_command() -> List[str]:
    """The test command of the README's second line (`... && .venv/bin/python -m pytest -q`)."""
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:10]:
        if "pytest" in line:
            return line.split("&&")[-1].split()
    raise ValueError("no pytest command in the README's first lines")


def tests(goal: Goal, args: argparse.Namespace) -> None:
    if not args.tests:
        goal.measured = "not measured (pass --tests)"
        return
    command = readme_test_command()
    begin = time.monotonic()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    took = time.monotonic() - begin
    summary = ([line for line in done.stdout.splitlines() if line.strip()] or [""])[-1]
    print(done.stdout[-2000:])
    goal.measured = f"{took / 60:.1f} min ({took:.0f} s), `{' '.join(command)}`: {summary.strip('= ')}"
    goal.verdict(took < 600)


# 7. semgrep ---------------------------------------------------------------------------------

def semgrep(goal: Goal, args: argparse.Namespace) -> None:
    found = bench_run.find_semgrep(args.semgrep)
    if found is None:
        goal.measured = ("not measured: semgrep not found (python3 -m venv /tmp/semvenv && "
                         "/tmp/semvenv/bin/pip install semgrep)")
        return
    if not args.tree.is_dir():
        goal.measured = f"not measured: no tree at {args.tree}"
        return
    root = args.tree.resolve()
    paths = bench_run.list_files(root)
    lines = bench_run.count_lines(paths)
    bench_run.compile_bytecode()
    runs = 3 if args.quick else 5
    parts, ok = [], True
    for rules in args.semgrep_rules or (bench_run.SEMGREP_RULES, HERE / "semgrep_rules_literal.yml"):
        if not rules.exists():
            parts.append(f"{rules.name}: missing")
            continue
        sem, beside = bench_run.bench_semgrep(found, root, paths, 2, runs, len(paths), lines, args.target_version,
                                              rules=rules)
        print(sem.row(), beside.row(), sep="\n")
        ratios = sorted(a.wall / b.wall for a, b in zip(beside.runs, sem.runs))
        median = statistics.median(ratios)
        ok &= median < 1
        parts.append(f"{rules.name}: {median:.2f}x (pairs {ratios[0]:.2f}-{ratios[-1]:.2f}, n={len(ratios)}; "
                     f"tvmlint {beside.median:.1f} s, semgrep {sem.median:.1f} s)")
    goal.measured = "; ".join(parts) + f"; {len(paths):,} files"
    goal.verdict(ok)


GOALS = [
    ("memory", "memory at scale", "peak RSS 20,000 real files <= 1.2x ~1,500", memory),
    ("huge", "one huge file", "checked within ~1 GB, or TVM001 and the run goes on", huge),
    ("fix", "fix vs check", "fix <= 2x check, 20,000 lines", fix),
    ("lsp", "editor latency", "<= 0.5 s after the last keystroke, 2,000 lines", lsp),
    ("daemon", "stalled clients, reply timeout", "unhindered by a half request; falls back after timeout",
     daemon),
    ("tests", "test suite", "< 10 min on 2 cores", tests),
    ("semgrep", "tvmlint cold / semgrep", "< 1 (median of pairs), 2 workers", semgrep),
]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs per figure")
    parser.add_argument("--skip", action="append", default=[], choices=NAMES)
    parser.add_argument("--tests", action="store_true", help="run the README's test command and time it")
    parser.add_argument("--tree", type=Path, default=Path("/tmp/tvm-v0.26.0"), help="the tree semgrep is paired on")
    parser.add_argument("--target-version", default="0.27", help="tvmlint's target on --tree")
    parser.add_argument("--semgrep", help="semgrep's executable (default: PATH, /tmp/semvenv/bin/semgrep)")
    parser.add_argument("--semgrep-rules", type=lambda text: Path(text).resolve(), action="append",
                        help="a semgrep rules file to pair on (default: semgrep_rules.yml and semgrep_rules_literal.yml)")
    parser.add_argument("--cap-gb", type=float, default=6.0, help="address-space cap of a large-file child")
    args = parser.parse_args(argv)

    start = load()
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, load average at start {start:.2f}"
          f"{'; --quick' if args.quick else ''}")
    goals = []
    for name, title, target, function in GOALS:
        goal = Goal(name, title, target)
        goals.append(goal)
        if name in args.skip:
            goal.measured = "not measured (--skip)"
            continue
        if name == "tests" and not args.tests:
            goal.measured = "not measured (pass --tests)"
            continue
        timed_goal(function, goal, args)

    print(f"\nload average: {start:.2f} at the start, {load():.2f} at the end\n")
    print("| goal | target | measured (load average, 1 min, before -> after) | met? |")
    print("| --- | --- | --- | --- |")
    for goal in goals:
        where = f" (load {goal.load})" if goal.load else ""
        print(f"| {goal.name}: {goal.goal} | {goal.target} | {goal.measured}{where} | {goal.met} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
