"""A run on one file imports only what it uses: the pre-commit case starts a process per commit."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from helpers import run_cli, write_tree

from tvmlint.frontends.commands import COMMANDS
from tvmlint.output.text import render

UNUSED = ("libcst", "rich", "multiprocessing", "concurrent.futures", "tvm", "tvmlint.frontends.commands.registry",
          "tvmlint.frontends.commands.lsp", "tvmlint.checks", "tvmlint.run.cache")


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _modules_after(args, cwd):
    probe = (
        "import json, sys\n"
        "from tvmlint.frontends.cli import main\n"
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
    assert "tvmlint.checks.tvm101_gated_pass_skipped" in modules and "tvmlint.analysis.module" in modules
    assert not {name for name in modules if name == "libcst" or name.startswith("libcst.")}


def test_a_file_a_rule_wants_is_analysed_with_libcst(tmp_path):
    write_tree(tmp_path, {"script.py": "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"})
    code, output, modules = _modules_after(["check", "script.py", "--no-cache", "--target-version", "0.19"], tmp_path)
    assert code == 1 and "TVM101" in output and "libcst" in modules


def test_a_clean_result_prints_what_rich_prints(tmp_path):
    from rich.console import Console

    for stream_type in (io.StringIO, Terminal):
        ours, theirs = stream_type(), stream_type()
        render([], 3, ours)
        Console(file=theirs, highlight=False, soft_wrap=True, emoji=False).print("All checks passed (3 files checked).")
        assert ours.getvalue() == theirs.getvalue()


SOURCE = (
    "import tvm  # [bold]not markup[/bold]\n"
    "x = '漢字漢字' + tvm.relay.transform.FoldScaleAxis()(mod)  # é 😀\n"
    + "y = 1 + " + "2 + " * 120 + "z\n"
    "\tindented = tvm.transform.PassContext(opt_level=7)\n"
)


def _findings(path: str, with_tab: bool):
    from tvmlint.base.diagnostics import Edit, Finding, Fix, Position

    def at(line, start, end, message, **more):
        return Finding(path, Position(line, start), Position(line, end), "TVM101", "warning", message, **more)

    findings = [
        at(1, 1, 7, "a [red]message[/red] with \x1b[2J and \u202e in it"),
        at(2, 10, 40, "wide characters before the caret",
           fix=Fix("use [this]", (Edit(Position(2, 1), Position(2, 2), "z"),), safe=False),
           confirmed=None, confirmation="no TVM [installed]"),
        at(3, 400, 404, "far along a long line"),
        at(9, 1, 2, "a line the file does not have"),
    ]
    if with_tab:
        findings.append(at(4, 2, 10, "after a tab"))
    return findings


def _as_rich_prints(findings, files, sources, **console):
    from rich.console import Console
    from rich.text import Text

    from tvmlint.output.text import _lines

    out = io.StringIO()
    printer = Console(file=out, highlight=False, soft_wrap=True, emoji=False, **console)
    for line in _lines(findings, files, sources):
        printer.print(Text.assemble(*line))
    return out.getvalue()


def test_findings_written_without_rich_read_as_rich_prints_them(tmp_path, monkeypatch):
    path = str(tmp_path / "script.py")
    sources = {path: SOURCE}
    findings = _findings(path, with_tab=False)
    ours = io.StringIO()
    render(findings, 1, ours, sources)
    assert ours.getvalue() == _as_rich_prints(findings, 1, sources, no_color=True, force_terminal=False)
    assert "[bold]not markup[/bold]" in ours.getvalue() and "\\x1b[2J" in ours.getvalue()

    monkeypatch.setenv("NO_COLOR", "1")
    ours = Terminal()
    render(findings, 1, ours, sources)
    assert ours.getvalue() == _as_rich_prints(findings, 1, sources, no_color=True, force_terminal=False)


def test_a_report_on_a_terminal_is_coloured_and_reads_as_the_plain_one(tmp_path, monkeypatch):
    import re

    path = str(tmp_path / "script.py")
    sources = {path: SOURCE}
    findings = _findings(path, with_tab=False)
    plain = io.StringIO()
    render(findings, 1, plain, sources)

    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    coloured = Terminal()
    render(findings, 1, coloured, sources)
    # the code in its severity's colour, the path in bold; the words are the plain report's
    assert "\x1b[1;33mTVM101\x1b[0m" in coloured.getvalue() and "\x1b[1m" + path in coloured.getvalue()
    assert re.sub("\x1b\\[[0-9;]*m", "", coloured.getvalue()) == plain.getvalue()


def test_a_report_quoting_a_tab_goes_through_rich(tmp_path):
    path = str(tmp_path / "script.py")
    sources = {path: SOURCE}
    findings = _findings(path, with_tab=True)
    ours = io.StringIO()
    render(findings, 1, ours, sources)
    expected = _as_rich_prints(findings, 1, sources, no_color=True, force_terminal=False)
    assert ours.getvalue() == expected and "\t" not in expected


def test_a_report_on_a_pipe_does_not_import_rich(tmp_path):
    write_tree(tmp_path, {"script.py": "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"})
    code, output, modules = _modules_after(["check", "script.py", "--no-cache", "--target-version", "0.19"], tmp_path)
    assert code == 1 and "TVM101" in output and "  2 | mod = relay" in output
    assert not {name for name in modules if name == "rich" or name.startswith("rich.")}


def test_every_command_is_listed_and_runs(tmp_path):
    help_text = run_cli("--help", cwd=tmp_path).stdout
    assert all(name in help_text for name in COMMANDS)
    assert "check files and report findings" in help_text
    assert run_cli("rules", cwd=tmp_path).returncode == 0
    assert "--target-version" in run_cli("check", "--help", cwd=tmp_path).stdout
    wrong = run_cli("chekc", cwd=tmp_path)
    assert wrong.returncode == 2 and "invalid choice" in wrong.stderr


def test_the_command_leaves_without_teardown_but_with_all_its_output(tmp_path):
    # `tvmlint` ends with os._exit (tvmlint.frontends.cli.entry): whatever was still buffered must be out
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
