"""Where tvmlint's command line promises ruff's semantics, the real ruff (a test dependency) is
run beside it on the same shape of project, and both must answer alike: `--diff`'s exit code,
and what `--select` on the command line does to the configured selection (issue #32)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_main, write_tree

pytest.importorskip("ruff")


def ruff(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *args],
                          cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60)


def tvmlint(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    # the command's main in this process (helpers.run_main): ruff beside it is the real ruff
    return run_main(*args, cwd=cwd, stdin=stdin)


def codes(output: str) -> set:
    """The rule codes a concise report names (ruff's `path:line:col: CODE msg`, and tvmlint's)."""
    return set(re.findall(r":\d+:\d+: ([A-Z]+[0-9]+)\b", output))


# -- --diff: exit 1 while a fix is pending, 0 when none is --------------------------------------

# ruff: F401's fix is safe, E711's unsafe. tvmlint at 0.8: TVM202's rename is safe; TVM101's
# PassContext wrapping is unsafe
RUFF_SAFE, RUFF_UNSAFE = "import os\n", "x = 1\nif x == None:\n    pass\n"
TVM_SAFE = "import tvm\nfrom tvm.contrib import graph_runtime\n"
TVM_UNSAFE = "import tvm\nfrom tvm import relay\n\nmod = relay.transform.FoldScaleAxis()(mod)\n"


@pytest.mark.parametrize("shape, flags, pending", [
    ("safe", (), True),
    ("unsafe", (), False),  # a finding remains, but no fix is applied without --unsafe-fixes
    ("unsafe", ("--unsafe-fixes",), True),
    ("clean", (), False),
])
def test_diff_exits_1_exactly_when_a_fix_is_pending_as_ruff(tmp_path, shape, flags, pending):
    sources = {"safe": (RUFF_SAFE, TVM_SAFE), "unsafe": (RUFF_UNSAFE, TVM_UNSAFE), "clean": ("x = 1\n", "import tvm\n")}
    ruff_text, tvm_text = sources[shape]
    write_tree(tmp_path, {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401", "E711"]\n\n'
                                            '[tool.tvmlint]\ntarget-version = "0.8"\n',
                          "r.py": ruff_text, "t.py": tvm_text})
    expected = 1 if pending else 0
    assert ruff(tmp_path, "--diff", *flags, "r.py").returncode == expected
    for command in (("check", "--diff"), ("fix", "--diff"), ("check", "--fix", "--diff")):
        done = tvmlint(tmp_path, *command, "--no-cache", *flags, "t.py")
        assert done.returncode == expected, (command, done.stdout, done.stderr)
        assert ("+" in done.stdout) == pending  # the diff shows what is pending, and only that
    assert (tmp_path / "t.py").read_text() == tvm_text  # nothing written
    # the source on a pipe: the same gate, as ruff's
    assert ruff(tmp_path, "--diff", *flags, "--stdin-filename", "r.py", "-", stdin=ruff_text).returncode == expected
    piped = tvmlint(tmp_path, "fix", "--diff", *flags, "--stdin-filename", "t.py", "-", stdin=tvm_text)
    assert piped.returncode == expected, piped.stderr


# -- --select on the command line replaces the configured selection ------------------------------

# One project for each tool, with codes that answer each other: ruff's F401 is tvmlint's TVM202,
# E711 TVM101, E703 TVM103, W291 TVM303; the linters E, F, W are the prefixes TVM1, TVM2, TVM3.
ANSWERS = {"F401": "TVM202", "E711": "TVM101", "E703": "TVM103", "W291": "TVM303", "E": "TVM1", "F": "TVM2", "W": "TVM3"}
RUFF_PROJECT = {
    "pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\nignore = ["F401"]\nextend-select = ["W291"]\n',
    "m.py": "import os   \nx = 1\nif x == None:\n    pass\ny = 1;\n",
}
TVM_PROJECT = {
    "pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.8"\nselect = ["TVM1", "TVM2"]\nignore = ["TVM202"]\n'
                      'extend-select = ["TVM303"]\n',
    "m.py": "import tvm\nfrom tvm import relay\nfrom tvm.contrib import graph_runtime\n\n"
            "mod = relay.transform.FoldScaleAxis()(mod)\nrelay.build_config(opt_level=3)\n"
            "with tvm.transform.PassContext(opt_level=10):\n    pass\n",
}


def _as_tvmlint(args):
    return [",".join(ANSWERS.get(part, part) for part in arg.split(",")) for arg in args]


@pytest.mark.parametrize("args", [
    (),
    ("--select", "F401"),
    ("--select", "F401,E711"),
    ("--select", "F"),
    ("--select", "F401", "--ignore", "F401"),
    ("--select", "F401", "--ignore", "F"),  # the more specific selector wins
    ("--select", "F", "--ignore", "F401"),
    ("--select", "F,E", "--extend-select", "F401", "--ignore", "F401"),  # equally specific: the ignore wins
    ("--select", "F401", "--extend-select", "E711"),
    ("--select", "F401", "--extend-ignore", "F401"),
    ("--extend-select", "F401"),  # a later layer turns on what the configuration ignored
    ("--extend-select", "W"),
    ("--ignore", "E711"),
    ("--ignore", "E"),
])
def test_command_line_selection_layers_on_the_configuration_as_ruffs(tmp_path, args):
    write_tree(tmp_path / "ruff", RUFF_PROJECT)
    write_tree(tmp_path / "tvm", TVM_PROJECT)
    ruff_codes = codes(ruff(tmp_path / "ruff", *args, "m.py").stdout) & set(ANSWERS)
    done = tvmlint(tmp_path / "tvm", "check", "--no-cache", "--format", "concise", *_as_tvmlint(args), "m.py")
    assert done.returncode in (0, 1), done.stderr
    assert codes(done.stdout) == {ANSWERS[code] for code in ruff_codes}, (args, ruff_codes, done.stdout)


def test_fix_with_select_leaves_an_unselected_rules_noqa_alone_as_ruff(tmp_path):
    # the configuration turns on the unused-noqa rule; `--select` on the command line leaves it out
    ruff_source = "import os\nx = 1  # noqa: E711\n"
    write_tree(tmp_path / "ruff", {"pyproject.toml": '[tool.ruff.lint]\nextend-select = ["RUF100"]\n',
                                   "m.py": ruff_source})
    assert "RUF100" in ruff(tmp_path / "ruff", "m.py").stdout  # the directive is unused
    ruff(tmp_path / "ruff", "--fix", "--select", "F401", "m.py")
    assert (tmp_path / "ruff" / "m.py").read_text() == "x = 1  # noqa: E711\n"

    tvm_source = "import tvm\nfrom tvm.contrib import graph_runtime\nx = 1  # noqa: TVM101\n"
    write_tree(tmp_path / "tvm", {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.8"\nextend-select = ["TVM002"]\n',
                                  "m.py": tvm_source})
    assert "TVM002" in tvmlint(tmp_path / "tvm", "check", "--no-cache", "m.py").stdout
    done = tvmlint(tmp_path / "tvm", "fix", "--no-cache", "--select", "TVM202", "m.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "tvm" / "m.py").read_text() == tvm_source.replace(
        "import graph_runtime", "import graph_executor as graph_runtime")


# -- TVM002 beside RUF100/RUF102: unused and unknown codes of one's own, other tools' left alone ----

# ruff's own codes F401 (unused here) and F999 (no such rule), an external tool's XYZ123; tvmlint's
# TVM101 and TVM999, and another tool's E501 (a code outside TVM is never tvmlint's to judge)
NOQA_ANSWERS = {"F401": "TVM101", "F999": "TVM999", "XYZ123": "E501"}
NOQA_LINES = ["x = 1  # noqa: F401\n", "y = 2  # noqa: F999\n", "z = 3  # noqa: XYZ123\n",
              "w = 4  # noqa: F401, XYZ123\n", "v = 5  # noqa: XYZ123, F999\n", "u = 6  # noqa: F401, F999\n"]


def _noqa_codes(text: str) -> list:
    return [sorted(re.findall(r"[A-Z]+[0-9]+", line.partition("noqa")[2])) for line in text.splitlines()]


def test_unused_noqa_reports_and_removes_what_ruff_does(tmp_path):
    ruff_text = "".join(NOQA_LINES)
    tvm_text = ruff_text
    for ours, theirs in NOQA_ANSWERS.items():
        tvm_text = tvm_text.replace(ours, theirs)
    write_tree(tmp_path / "ruff", {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F", "RUF100", "RUF102"]\n'
                                                    'external = ["XYZ"]\n', "m.py": ruff_text})
    write_tree(tmp_path / "tvm", {"pyproject.toml": '[tool.tvmlint]\nselect = ["TVM101", "TVM002"]\n', "m.py": tvm_text})
    ruff_lines = sorted({int(line.split(":")[1]) for line in ruff(tmp_path / "ruff", "m.py").stdout.splitlines()
                         if re.search(r": RUF10[02] ", line)})
    done = tvmlint(tmp_path / "tvm", "check", "--no-cache", "--format", "concise", "m.py")
    assert done.returncode == 1, done.stderr
    tvm_lines = sorted(int(line.split(":")[1]) for line in done.stdout.splitlines() if ": TVM002 " in line)
    assert tvm_lines == ruff_lines == [1, 2, 4, 5, 6]
    assert "unknown rule code" in done.stdout
    # the fixes leave the same codes on each line (ruff rewrites the directive's spelling; tvmlint
    # removes the codes alone)
    ruff(tmp_path / "ruff", "--fix", "m.py")
    fixed = tvmlint(tmp_path / "tvm", "fix", "--no-cache", "m.py")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    ruff_after = _noqa_codes((tmp_path / "ruff" / "m.py").read_text())
    tvm_after = _noqa_codes((tmp_path / "tvm" / "m.py").read_text())
    assert tvm_after == [[NOQA_ANSWERS[code] for code in codes] for codes in ruff_after]


def test_unused_noqa_fix_changes_no_byte_but_the_codes_it_removes(tmp_path):
    # a BOM, CRLF line ends, a cookie, a comment spelt its own way, a non-ASCII character before it
    original = ("\ufeff# -*- coding: utf-8 -*-\r\nimport tvm\r\n"
                "naïve = 1  # NOQA:E501 ,  TVM101,TVM999\r\nkept = 2  # noqa:E501\r\n").encode("utf-8")
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\nselect = ["TVM101", "TVM002"]\n'})
    (tmp_path / "m.py").write_bytes(original)
    done = tvmlint(tmp_path, "fix", "--no-cache", "m.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "m.py").read_bytes() == original.replace(b" ,  TVM101,TVM999", b"")


def test_unused_noqa_on_a_clean_line_of_a_file_with_that_finding_elsewhere(tmp_path):
    # TVM101 is pending on line 8 (fold's callers are unknown), and the file's other function is
    # one the cheap stage leaves out: line 4 was still analysed, and nothing arises there
    source = ("import tvm\nfrom tvm import relay\n\nx = 1  # noqa: TVM101\n\n\n"
              "def fold(mod):\n    return relay.transform.FoldScaleAxis()(mod)  # noqa: TVM101\n\n\n"
              "def other():\n    return 3\n")
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\nextend-select = ["TVM002"]\n',
                          "m.py": source})
    for args in (("m.py",), ("--stdin-filename", "m.py", "-")):
        done = tvmlint(tmp_path, "check", "--no-cache", "--format", "concise", *args, stdin=source)
        found = [line.split(": ")[1].split()[0] + "@" + line.split(":")[1] for line in done.stdout.splitlines()
                 if line.startswith("m.py:")]
        assert found == ["TVM002@4"], done.stdout


def test_a_config_file_the_tool_cannot_read_settings_from_is_an_error_as_in_ruff(tmp_path):
    # ruff reads a file not named pyproject.toml as a ruff.toml, and refuses one it cannot; tvmlint
    # reads only [tool.tvmlint], and refuses a file without it (ruff takes a pyproject.toml without
    # [tool.ruff] as the defaults; tvmlint refuses that too: a named file with no settings is a mistake)
    write_tree(tmp_path, {"m.py": "x = 1\n", "some.toml": "[tool.other]\nkey = 1\n"})
    assert ruff(tmp_path, "--config", "some.toml", "m.py").returncode == 2
    done = tvmlint(tmp_path, "check", "--config", "some.toml", "m.py")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "no [tool.tvmlint] table" in done.stderr
