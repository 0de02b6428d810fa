"""`tvmlint check`'s reporting flags as a ruff user reaches for them, through the command line:
--statistics, --output-file, -q/-qq/--silent, --fix with --show-fixes and
--exit-non-zero-on-fix, --output-format, --watch, and the progress shown on a terminal."""

from __future__ import annotations

import json
import os
import pty
import queue
import re
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import drain_pty, run_cli, run_main, write_tree

FOLD = "mod = relay.transform.FoldScaleAxis()(mod)\n"
MODEL = "import tvm\nfrom tvm import relay\n\n" + FOLD + "relay.build_config(opt_level=3)\n" + FOLD
CONFIG = '[tool.tvmlint]\ntarget-version = "0.19"\nselect = ["TVM101", "TVM103"]\n'
PROJECT = {"pyproject.toml": CONFIG, "model.py": MODEL, "clean.py": "import tvm\n"}


# -- --statistics ----------------------------------------------------------------------------

def test_statistics_count_each_rule_most_frequent_first(tmp_path):
    write_tree(tmp_path, PROJECT)
    done = run_main("check", "--statistics", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    # flake8's and ruff's layout: count, code, [fixable] rule name, tab-separated; then the closing line
    assert [line.split("\t") for line in lines[:2]] == [["2", "TVM101", "gated-pass-skipped"],
                                                       ["1", "TVM103", "pass-context-not-entered"]]
    assert lines[2].startswith("Found 3 findings in 2 files checked.")
    assert len(lines) == 3

    # TVM101's fix is unsafe: with --unsafe-fixes it counts as fixable, and every row gets the mark
    unsafe = run_main("check", "--statistics", "--unsafe-fixes", cwd=tmp_path)
    assert unsafe.stdout.splitlines()[:2] == ["2\tTVM101\t[*] gated-pass-skipped", "1\tTVM103\t[ ] pass-context-not-entered"]

    as_json = json.loads(run_main("check", "--statistics", "--format", "json", cwd=tmp_path).stdout)
    assert as_json == [
        {"code": "TVM101", "name": "gated-pass-skipped", "count": 2, "fixable": False},
        {"code": "TVM103", "name": "pass-context-not-entered", "count": 1, "fixable": False},
    ]
    quiet = run_main("check", "--statistics", "-q", cwd=tmp_path)
    assert len(quiet.stdout.splitlines()) == 2


def test_statistics_refuses_formats_it_cannot_print(tmp_path):
    write_tree(tmp_path, PROJECT)
    done = run_main("check", "--statistics", "--format", "sarif", cwd=tmp_path)
    assert done.returncode == 2 and "--statistics" in done.stderr and not done.stdout


def test_output_format_is_the_same_option_as_format(tmp_path):
    write_tree(tmp_path, PROJECT)
    assert run_main("check", "--output-format", "json", cwd=tmp_path).stdout == run_main("check", "--format", "json", cwd=tmp_path).stdout


def test_full_is_rufs_name_for_the_view_with_source_lines(tmp_path):
    # ruff's `--output-format full` (its default) shows each finding with its source lines: our text
    write_tree(tmp_path, PROJECT)
    text = run_main("check", "--format", "text", cwd=tmp_path)
    assert "|" in text.stdout and text.returncode == 1
    assert run_main("check", "--output-format", "full", cwd=tmp_path).stdout == text.stdout
    assert run_main("fix", "--diff", "--format", "full", cwd=tmp_path).returncode in (0, 1)
    write_tree(tmp_path, {"pyproject.toml": CONFIG + 'output-format = "full"\n'})
    assert run_main("check", cwd=tmp_path).stdout == text.stdout


# -- --output-file ----------------------------------------------------------------------------

def test_output_file_gets_the_report_and_the_terminal_nothing(tmp_path):
    write_tree(tmp_path, PROJECT)
    expected = run_main("check", "--format", "json", cwd=tmp_path)
    report = tmp_path / "reports" / "tvmlint.json"  # its directory is made
    done = run_main("check", "--format", "json", "--output-file", str(report), cwd=tmp_path)
    assert done.returncode == expected.returncode == 1
    assert done.stdout == "" and done.stderr == ""
    assert report.read_text(encoding="utf-8") == expected.stdout
    assert stat.S_IMODE(report.stat().st_mode) == 0o666 & ~_umask()
    # nothing left beside it: the file was written under another name, then renamed over
    assert [p.name for p in report.parent.iterdir()] == ["tvmlint.json"]

    # a file that exists is replaced whole and keeps its permissions
    report.write_text("old report, longer than the new one " * 200, encoding="utf-8")
    report.chmod(0o640)
    text = run_main("check", "--format", "concise", "-o", str(report), cwd=tmp_path)
    assert text.stdout == ""
    assert report.read_text(encoding="utf-8") == run_main("check", "--format", "concise", cwd=tmp_path).stdout
    assert stat.S_IMODE(report.stat().st_mode) == 0o640


def test_a_failed_run_leaves_the_output_file_as_it_was(tmp_path):
    write_tree(tmp_path, PROJECT)
    report = tmp_path / "report.txt"
    report.write_text("the last good report\n", encoding="utf-8")
    done = run_main("check", "missing.py", "--output-file", str(report), cwd=tmp_path)
    assert done.returncode == 2 and "no such file" in done.stderr  # errors still reach the terminal
    assert report.read_text(encoding="utf-8") == "the last good report\n"
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "nonsense"\n'})
    assert run_main("check", "--output-file", str(report), cwd=tmp_path).returncode == 2
    assert report.read_text(encoding="utf-8") == "the last good report\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# -- -q / -qq / --silent -------------------------------------------------------------------------

def test_quiet_prints_only_the_findings(tmp_path):
    write_tree(tmp_path, PROJECT)
    loud = run_main("check", "--format", "concise", cwd=tmp_path)
    quiet = run_main("check", "--format", "concise", "-q", cwd=tmp_path)
    assert quiet.returncode == 1
    assert quiet.stdout.splitlines() == loud.stdout.splitlines()[:-1]  # all but the closing line
    assert all(re.match(r"model\.py:\d+:\d+: TVM10[13] ", line) for line in quiet.stdout.splitlines())
    text = run_main("check", "--quiet", cwd=tmp_path)
    assert "model.py" in text.stdout and "Found" not in text.stdout
    github = run_main("check", "--format", "github", "-q", cwd=tmp_path)
    assert all(line.startswith("::error ") for line in github.stdout.splitlines())
    clean = run_main("check", "-q", "clean.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")


def test_silent_prints_nothing_and_still_exits_1(tmp_path):
    write_tree(tmp_path, PROJECT)
    for flags in (["-qq"], ["--silent"], ["-s"], ["-q", "-q", "--format", "json"]):
        done = run_main("check", *flags, cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", ""), flags
    assert run_main("check", "-qq", "clean.py", cwd=tmp_path).returncode == 0


# -- --fix with --show-fixes and --exit-non-zero-on-fix --------------------------------------------

def test_exit_non_zero_on_fix(tmp_path):
    files = {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nselect = ["TVM101"]\n',
             "model.py": "import tvm\nfrom tvm import relay\n\n" + FOLD}
    write_tree(tmp_path, files)
    plain = run_main("check", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr  # everything fixed: nothing remains
    write_tree(tmp_path, files)
    strict = run_main("check", "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", cwd=tmp_path)
    assert strict.returncode == 1 and "0 remaining" in strict.stdout
    assert "PassContext(opt_level=3)" in (tmp_path / "model.py").read_text(encoding="utf-8")
    # nothing left to fix: 0 again
    again = run_main("check", "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", cwd=tmp_path)
    assert again.returncode == 0, again.stdout
    write_tree(tmp_path, files)
    assert run_main("check", "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "--exit-zero", cwd=tmp_path).returncode == 0
    # --diff writes nothing; its exit code says whether fixes are pending, as ruff's does
    write_tree(tmp_path, files)
    assert run_main("check", "--fix", "--unsafe-fixes", "--diff", "--exit-non-zero-on-fix", cwd=tmp_path).returncode == 1
    assert run_main("check", "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", cwd=tmp_path).returncode == 1
    assert run_main("check", "--fix", "--unsafe-fixes", "--diff", "--exit-non-zero-on-fix", cwd=tmp_path).returncode == 0


def test_show_fixes_lists_each_file_and_rule(tmp_path):
    write_tree(tmp_path, {**PROJECT, "other.py": "from tvm import relay\n" + FOLD})
    done = run_main("check", "--fix", "--unsafe-fixes", "--show-fixes", cwd=tmp_path)
    assert done.returncode == 1  # TVM103 has no fix: it remains
    out = done.stdout
    listing = out[out.index("Fixed 3 findings:"):].splitlines()
    assert listing[:5] == [
        "Fixed 3 findings:",
        "- model.py:",
        "    2 \u00d7 TVM101 (gated-pass-skipped)",
        "- other.py:",
        "    1 \u00d7 TVM101 (gated-pass-skipped)",
    ]
    assert listing[5] == "Fixed 3 findings in 2 files; 1 remaining."
    assert "TVM103" in out[: out.index("Fixed 3 findings:")]  # the remaining finding is reported first


def test_quiet_fix_prints_only_what_remains(tmp_path):
    write_tree(tmp_path, PROJECT)
    done = run_main("check", "--fix", "--unsafe-fixes", "-q", "--format", "concise", cwd=tmp_path)
    assert done.returncode == 1
    [line] = done.stdout.splitlines()
    assert line.startswith("model.py:") and " TVM103 " in line


# -- --watch -----------------------------------------------------------------------------------

def test_watch_checks_again_after_a_change(tmp_path):
    write_tree(tmp_path, PROJECT)
    env = {**os.environ, "PYTHONUNBUFFERED": "0"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "tvmlint", "check", "--watch", "--format", "concise", "."],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    try:
        first = _report(lines, timeout=60)
        assert first[-1].startswith("Found 3 findings in 2 files checked.")
        second = None
        for attempt in range(20):  # the watcher may start a moment after the first report
            (tmp_path / "model.py").write_text(MODEL + "relay.build_config(opt_level=1)\n" * (attempt + 1), encoding="utf-8")
            try:
                second = _report(lines, timeout=3)
                break
            except queue.Empty:
                continue
        assert second is not None, "no second report after the file changed"
        assert any(" TVM103 relay.build_config(opt_level=1)" in line for line in second)
        assert re.match(r"Found [4-9]\d* findings in 2 files checked\.", second[-1])
        assert not any("\x1b" in line for line in first + second)  # a pipe: the screen is not cleared
    finally:
        process.terminate()
        code = process.wait(timeout=30)
    assert code == 0  # stopping the watch is its normal end
    assert "watching for file changes" in process.stderr.read()


def _report(lines: "queue.Queue[str]", timeout: float):
    report = []
    deadline = time.monotonic() + timeout
    while True:
        line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        report.append(line.rstrip("\n"))
        if line.startswith(("Found ", "All checks passed")):
            return report


def test_watch_refuses_what_it_cannot_repeat(tmp_path):
    write_tree(tmp_path, PROJECT)
    for flags in (["--fix"], ["--output-file", "out.txt"], ["--stdin-filename", "x.py", "-"]):
        done = run_cli("check", "--watch", *flags, cwd=tmp_path, stdin="")
        assert done.returncode == 2 and "--watch cannot be combined" in done.stderr, flags


# -- progress on a terminal ---------------------------------------------------------------------

def _long_run_tree(root: Path) -> None:
    body = "".join(
        f"def f{j}(mod):\n    with tvm.transform.PassContext(opt_level=3):\n"
        f"        mod = relay.transform.FoldScaleAxis()(mod)\n    return mod\n\n"
        for j in range(15)
    )
    write_tree(root, {"pyproject.toml": CONFIG, **{f"m{i}.py": "import tvm\nfrom tvm import relay\n\n" + body for i in range(100)}})


def _on_a_terminal(args, cwd, env) -> bytes:
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tvmlint", *args], cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal)
    os.close(terminal)
    output = drain_pty(controller)
    process.wait(timeout=300)
    return output


@pytest.mark.long
def test_a_long_run_shows_progress_on_a_terminal_only(tmp_path):
    _long_run_tree(tmp_path)
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "NO_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="100")
    args = ["check", "--no-cache", "-j", "1", "."]
    # one process checking 100 files of 15 functions each takes seconds: the bar appears after the first
    shown = _on_a_terminal(args, tmp_path, env)
    assert b"All checks passed (100 files checked)." in shown
    assert re.search(rb"Checking .*\d+/100.* files", shown), shown[-500:]
    assert b"100/100" in shown

    # a pipe, CI, --quiet: never
    piped = subprocess.run([sys.executable, "-m", "tvmlint", *args], cwd=tmp_path, env=env,
                           capture_output=True, timeout=300)
    assert piped.returncode == 0 and b"Checking" not in piped.stderr + piped.stdout
    assert piped.stderr == b""
    in_ci = _on_a_terminal(args, tmp_path, {**env, "CI": "true"})
    assert b"Checking" not in in_ci and b"All checks passed" in in_ci
    quiet = _on_a_terminal([*args, "-q"], tmp_path, env)
    assert b"Checking" not in quiet
    # `tvmlint fix` (and `check --fix`) checks the same way
    fixing = _on_a_terminal(["fix", "--no-cache", "-j", "1", "."], tmp_path, env)
    assert re.search(rb"Checking .*\d+/100.* files", fixing) and b"Fixed 0 findings in 0 files; 0 remaining." in fixing
