"""`check --diff` implies fixing, as ruff's does: it prints the diff of the fixes and writes nothing."""

from __future__ import annotations

from helpers import run_cli, write_tree

SOURCE = "import tvm\nfrom tvm.contrib import graph_runtime\n"


def test_check_diff_prints_the_fixes_and_writes_nothing(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.8"\n', "m.py": SOURCE})
    shown = run_cli("check", "--diff", "m.py", cwd=tmp_path)
    assert "-from tvm.contrib import graph_runtime\n+from tvm.contrib import graph_executor as graph_runtime\n" in shown.stdout
    assert (tmp_path / "m.py").read_text() == SOURCE
    assert shown.stdout == run_cli("fix", "--diff", "m.py", cwd=tmp_path).stdout
    assert shown.returncode == 1  # a fix is pending, as ruff's --diff says with exit 1
