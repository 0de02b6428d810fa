"""`tvmlint check` as a user runs it: exit codes, formats, paths."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import REPO, run_cli, write_tree

SILENT = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
CLEAN = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldConstant()(mod)\n"
CONFIG = '[tool.tvmlint]\ntarget-version = "0.19"\n'


def test_exit_codes_and_summary(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "clean.py": CLEAN})
    clean = run_cli("check", "--format", "concise", cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr
    assert "All checks passed (1 file checked)." in clean.stdout

    write_tree(tmp_path, {"bad.py": SILENT})
    dirty = run_cli("check", "--format", "concise", cwd=tmp_path)
    assert dirty.returncode == 1
    assert dirty.stdout.splitlines()[0].startswith("bad.py:3:7: TVM101 ")
    assert "Found 1 finding in 2 files checked." in dirty.stdout
    assert run_cli("check", "--exit-zero", cwd=tmp_path).returncode == 0


def test_usage_errors_exit_2_with_one_line(tmp_path):
    missing = run_cli("check", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "tvmlint: error: no such file or directory: nope.py"
    bad_select = run_cli("check", "--select", "TVM999", cwd=tmp_path)
    assert bad_select.returncode == 2 and "unknown rule code 'TVM999'" in bad_select.stderr
    bad_version = run_cli("check", "--target-version", "1.5", cwd=tmp_path)
    assert bad_version.returncode == 2 and "not a release tvmlint knows" in bad_version.stderr
    assert "Traceback" not in bad_select.stderr + bad_version.stderr + missing.stderr


def test_json_format_keys(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "pkg/bad.py": SILENT})
    result = run_cli("check", "--format", "json", cwd=tmp_path)
    assert result.returncode == 1
    [finding] = json.loads(result.stdout)
    assert set(finding) == {
        "path", "line", "column", "end_line", "end_column", "code", "severity", "message", "detail", "fix",
    }
    assert finding["path"] == "pkg/bad.py"
    assert (finding["line"], finding["column"], finding["end_line"], finding["end_column"]) == (3, 7, 3, 43)
    assert finding["code"] == "TVM101" and finding["severity"] == "error"
    # the one sentence, and beside it why and what to do
    assert "\n" not in finding["message"] and "at opt_level 2" in finding["message"]
    assert "run it inside `with tvm.transform.PassContext(opt_level=3):`" in finding["detail"]
    assert finding["fix"]["applicability"] == "unsafe" and finding["fix"]["safe"] is False
    assert finding["fix"]["edits"][-1]["content"].startswith("with tvm.transform.PassContext(opt_level=3):")


def test_text_format_has_no_colour_off_a_terminal(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "bad.py": SILENT})
    for env in ({}, {"NO_COLOR": "1"}):
        result = run_cli("check", cwd=tmp_path, env=env)
        assert "\x1b[" not in result.stdout
        assert "bad.py\n" in result.stdout
        assert "3:7 TVM101 error" in result.stdout
        assert "mod = relay.transform.FoldScaleAxis()(mod)" in result.stdout  # the code frame


def test_paths_outside_the_working_directory_are_shown_as_given(tmp_path):
    project = tmp_path / "project"
    write_tree(project, {"pyproject.toml": CONFIG, "bad.py": SILENT})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cli("check", "--format", "concise", str(project / "bad.py"), cwd=elsewhere)
    assert result.stdout.startswith(f"{project / 'bad.py'}:3:7: TVM101")


def test_directories_skip_environments_and_vcs(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": CONFIG,
        ".git/hooks/x.py": SILENT,
        ".venv/lib/x.py": SILENT,
        "env/pyvenv.cfg": "home = /usr\n",
        "env/lib/x.py": SILENT,
        "build/x.py": SILENT,
        "node_modules/x.py": SILENT,
        "src/real.py": SILENT,
    })
    result = run_cli("check", "--format", "concise", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()[:-1]] == ["src/real.py"]


def test_rules_and_rule_docs():
    listing = run_cli("rules", cwd=REPO)
    assert listing.returncode == 0
    assert "TVM101\tgated-pass-skipped\terror\t" in listing.stdout  # a pipe: tab-separated (tests/test_listings.py)
    docs = run_cli("rule", "tvm101", cwd=REPO)
    assert docs.returncode == 0
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert heading in docs.stdout
    unknown = run_cli("rule", "TVM999", cwd=REPO)
    assert unknown.returncode == 2 and "unknown rule" in unknown.stderr


def test_module_entry_point_and_version():
    result = run_cli("--version", cwd=REPO)
    assert result.returncode == 0 and result.stdout.startswith("tvmlint ")


def test_a_working_directory_that_was_removed_is_a_usage_error(tmp_path):
    """A shell left in a deleted directory (a rebuilt checkout): not an internal error to report."""
    import shlex

    (tmp_path / "ok.py").write_text("x = 1\n")
    gone = tmp_path / "gone"
    gone.mkdir()
    command = f"cd {shlex.quote(str(gone))} && rmdir {shlex.quote(str(gone))} && exec {shlex.quote(sys.executable)} -m tvmlint check {shlex.quote(str(tmp_path / 'ok.py'))}"
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "tvmlint: error: the working directory no longer exists", done.stderr


IN_PROCESS_RUNS = [
    ("check",),
    ("check", "--format", "json", "--select", "TVM1"),
    ("check", "--format", "sarif", "bad.py"),
    ("check", "--show-settings", "bad.py"),
    ("check", "--stdin-filename", "piped.py", "-"),
    ("fix", "--diff", "old.py"),
    ("fix", "-"),
    ("explain", "bad.py:3"),
    ("rule", "TVM101"),
    ("check", "--help"),
    ("check", "--select", "TVM999"),
    ("check", "--no-such-flag"),
    ("check", "nope.py"),
]


@pytest.mark.long
def test_run_main_runs_a_command_as_run_cli_does(tmp_path):
    """Tests that are about what a run reports use helpers.run_main (tvmlint's main in the test's
    process): it must give each command's exit code, stdout and stderr byte for byte."""
    from helpers import run_main

    old = 'import tvm\nfrom tvm import relay\n\nwith relay.build_config(opt_level=3):\n    lib = relay.build(mod, target="llvm")\n'
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "bad.py": SILENT, "old.py": old, "clean.py": CLEAN})
    codes = set()
    for argv in IN_PROCESS_RUNS:
        stdin = old if argv[-1] == "-" else None
        alone = run_cli(*argv, cwd=tmp_path, stdin=stdin)
        here = run_main(*argv, cwd=tmp_path, stdin=stdin)
        assert (here.returncode, here.stdout, here.stderr) == (alone.returncode, alone.stdout, alone.stderr), argv
        codes.add(alone.returncode)
    assert codes == {0, 1, 2}
    assert (tmp_path / "old.py").read_text() == old  # --diff writes nothing, in either
