"""`tvmlint fix` is `tvmlint check --fix` (the README says so): the same flags, the same output,
the same exit code, through the command line; a flag either refuses is named, on the one
error line, with the refusing command's own short usage (issue #32)."""

from __future__ import annotations

import re

import pytest
from helpers import run_main, write_tree

CONFIG = '[tool.tvmlint]\ntarget-version = "0.8"\n'
# TVM202's rename is a safe fix; TVM101 stays (its fix is unsafe)
MODEL = ("import tvm\nfrom tvm import relay\nfrom tvm.contrib import graph_runtime\n\n"
         "mod = relay.transform.FoldScaleAxis()(mod)\n")


@pytest.mark.parametrize("flags", [
    ("-q",),
    ("-s",),
    ("--exit-zero",),
    ("--show-fixes",),
    ("--statistics",),
    ("--exit-non-zero-on-fix",),
    ("--format", "json"),
    ("--output-format", "concise", "-q"),
    ("-o", "report.txt"),
    ("--unsafe-fixes", "--exit-non-zero-on-fix", "--show-fixes"),
])
def test_fix_takes_check_fix_flags_and_answers_alike(tmp_path, flags):
    answers = []
    for command in (("check", "--fix"), ("fix",)):
        root = tmp_path / command[-1].lstrip("-")
        write_tree(root, {"pyproject.toml": CONFIG, "model.py": MODEL})
        done = run_main(*command, "--no-cache", *flags, "model.py", cwd=root)
        assert "error" not in done.stderr, done.stderr
        report = root / "report.txt"
        answers.append((done.returncode, done.stdout, done.stderr, (root / "model.py").read_text(),
                        report.read_text() if report.exists() else None))
    assert answers[0] == answers[1]
    code, stdout, stderr, fixed, report = answers[1]
    assert "graph_executor" in fixed  # it did fix
    if "--exit-zero" in flags:
        assert code == 0
    elif "--unsafe-fixes" in flags:
        assert code == 1 and "FoldScaleAxis" not in stdout  # all fixed, but a file changed
    else:
        assert code == 1  # TVM101 remains
    if "-o" in flags:
        assert "TVM101" in report and stdout == ""
    if "--statistics" in flags:
        assert stdout.splitlines()[0].split("\t")[:2] == ["1", "TVM101"]
    if "-s" in flags:
        assert stdout == "" and stderr == ""


def test_statistics_with_diff_is_refused_as_ruff_refuses_it(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "model.py": MODEL})
    for command in (("fix", "--diff"), ("check", "--diff"), ("check", "--fix", "--diff")):
        done = run_main(*command, "--statistics", "model.py", cwd=tmp_path)
        assert done.returncode == 2 and "--statistics cannot be combined with --diff" in done.stderr
    assert (tmp_path / "model.py").read_text() == MODEL


@pytest.mark.parametrize("argv, refused, usage", [
    (("fix", "--bogus", "model.py"), "--bogus", "(usage: tvmlint fix [OPTIONS] [PATHS ...]; `tvmlint fix --help`"),
    (("fix", "--watch"), "--watch", "(usage: tvmlint fix [OPTIONS] [PATHS ...];"),  # check --fix --watch is refused too
    (("fix", "--format", "nope"), "nope", "(usage: tvmlint fix [OPTIONS] [PATHS ...];"),
    (("check", "--bogus"), "--bogus", "(usage: tvmlint check [OPTIONS] [PATHS ...]; `tvmlint check --help`"),
    (("rules", "--bogus"), "--bogus", "(usage: tvmlint rules [OPTIONS];"),
    (("--bogus",), "--bogus", "(usage: tvmlint [OPTIONS] COMMAND; `tvmlint --help`"),
])
def test_a_bad_flag_shows_the_usage_of_the_command_it_was_given_to(tmp_path, argv, refused, usage):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "model.py": MODEL})
    done = run_main(*argv, cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()  # one line, as every error of tvmlint's
    assert line.startswith("tvmlint: error: ") and refused in line and usage in line, line
    assert (tmp_path / "model.py").read_text() == MODEL


def _usage_options(help_text: str) -> dict:
    """option -> the metavar it takes ("" for a switch), from the usage block of `--help`."""
    usage = help_text.split("\n\n", 1)[0]
    return {flag: value for flag, value in re.findall(r"\[(-[-\w]+)(?: ([^\]]+))?\]", usage)}


def test_every_flag_of_check_is_taken_by_fix_or_refused_by_check_fix(tmp_path):
    # the parity, read from the two commands' own --help: nothing check --fix accepts is missing from fix
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "model.py": MODEL})
    check = _usage_options(run_main("check", "--help", cwd=tmp_path).stdout)
    fix = _usage_options(run_main("fix", "--help", cwd=tmp_path).stdout)
    assert "--select" in check and "--exit-zero" in fix
    assert set(fix) <= set(check) | {"--fix"}
    only_check = sorted(set(check) - set(fix) - {"--fix"})
    assert only_check  # --confirm, --daemon, --watch, --show-settings, ...
    for flag in only_check:
        value = check[flag]
        given = [flag] + (["5" if value == "SECONDS" else "x"] if value else [])
        done = run_main("check", "--fix", *given, "model.py", cwd=tmp_path)
        assert done.returncode == 2, (flag, done.stdout, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and flag in done.stderr, (flag, done.stderr)
        assert (tmp_path / "model.py").read_text() == MODEL
