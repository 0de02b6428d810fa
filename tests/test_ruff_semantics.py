"""Where tvmlint's command line promises ruff's semantics, the real ruff (a test dependency) is
run beside it on the same shape of project, and both must answer alike: `--diff`'s exit code,
and what `--select` on the command line does to the configured selection (issue #32)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli, write_tree

pytest.importorskip("ruff")


def ruff(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *args],
                          cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60)


def tvmlint(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd, stdin=stdin, timeout=120)


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
