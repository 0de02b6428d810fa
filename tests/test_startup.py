"""A run on one file imports only what it uses: the pre-commit case starts a process per commit."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from tvmlint.commands import COMMANDS
from tvmlint.output.text import render

from helpers import run_cli, write_tree

UNUSED = ("libcst", "rich", "multiprocessing", "concurrent.futures", "tvm", "tvmlint.commands.registry",
          "tvmlint.commands.lsp", "tvmlint.checks", "tvmlint.cache")


def _modules_after(args, cwd):
    probe = (
        "import json, sys\n"
        "from tvmlint.cli import main\n"
        f"code = main({list(args)!r})\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.rstrip("\n").split("\n")
    code, modules = json.loads(last)
    return code, "\n".join(output), set(modules)


def test_a_file_without_tvm_imports_none_of_what_it_does_not_use(tmp_path):
    write_tree(tmp_path, {"script.py": "import os\nprint(os.getcwd())\n"})
    code, output, modules = _modules_after(["check", "script.py", "--no-cache", "--target-version", "0.19"], tmp_path)
    assert code == 0 and output == "All checks passed (1 file checked)."
    assert not {name for name in modules for unused in UNUSED if name == unused or name.startswith(unused + ".")}


def test_a_file_naming_tvm_that_no_rule_wants_is_checked_without_libcst(tmp_path):
    # The rules load (the cheap stage asks each what it wants) but libcst waits until a
    # file is analysed: most files in a TVM repository name TVM and need no analysis.
    write_tree(tmp_path, {"script.py": "import tvm\nprint(tvm.__version__)\n"})
    code, output, modules = _modules_after(["check", "script.py", "--no-cache", "--target-version", "0.27"], tmp_path)
    assert code == 0 and output == "All checks passed (1 file checked)."
    assert "tvmlint.checks.gated_pass_skipped" in modules and "tvmlint.analysis" in modules
    assert not {name for name in modules if name == "libcst" or name.startswith("libcst.")}


def test_a_file_a_rule_wants_is_analysed_with_libcst(tmp_path):
    write_tree(tmp_path, {"script.py": "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"})
    code, output, modules = _modules_after(["check", "script.py", "--no-cache", "--target-version", "0.19"], tmp_path)
    assert code == 1 and "TVM101" in output and "libcst" in modules


def test_a_clean_result_prints_what_rich_prints(tmp_path):
    from rich.console import Console

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream_type in (io.StringIO, Terminal):
        ours, theirs = stream_type(), stream_type()
        render([], 3, ours)
        Console(file=theirs, highlight=False, soft_wrap=True, emoji=False).print("All checks passed (3 files checked).")
        assert ours.getvalue() == theirs.getvalue()


def test_every_command_is_listed_and_runs(tmp_path):
    help_text = run_cli("--help", cwd=tmp_path).stdout
    assert all(name in help_text for name in COMMANDS)
    assert "check files and report findings" in help_text
    assert run_cli("rules", cwd=tmp_path).returncode == 0
    assert "--target-version" in run_cli("check", "--help", cwd=tmp_path).stdout
    wrong = run_cli("chekc", cwd=tmp_path)
    assert wrong.returncode == 2 and "invalid choice" in wrong.stderr


def test_the_command_leaves_without_teardown_but_with_all_its_output(tmp_path):
    # `tvmlint` ends with os._exit (tvmlint.cli.entry): whatever was still buffered must be out
    # first, more than a pipe holds, and the exit code must be main's
    files = {f"m{i:03d}.py": "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n" for i in range(300)}
    write_tree(tmp_path, files)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}  # buffered, as in a hook

    def run(*args):
        return subprocess.run([sys.executable, "-m", "tvmlint", "check", *args, "--no-cache", "--target-version", "0.19"],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)

    done = run(".", "--format", "json", "--jobs", "1")
    assert len(done.stdout) > 65536 and done.stdout.endswith("\n")
    findings = json.loads(done.stdout)
    assert done.returncode == 1 and len(findings) == 300 and {f["code"] for f in findings} == {"TVM101"}
    # one line at a time: the last lines are the ones a buffer still holds at the end
    lines = run(".", "--format", "concise")
    assert lines.returncode == 1 and lines.stdout.count("TVM101") == 300
    assert "Found 300 findings in 300 files checked." in lines.stdout.rstrip("\n").split("\n")[-1]
    clean = run("m000.py", "--select", "TVM401")
    assert clean.returncode == 0 and clean.stdout.startswith("All checks passed")
