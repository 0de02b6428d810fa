"""Hostile input on the way out: what tvmlint prints about a file must not hang, crash, or
drive the terminal, whatever the file is, holds or is called."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import write_tree
from test_fix import CONFIG, PORT

COMMAND = [sys.executable, "-m", "tvmlint"]


def run(*args: str, cwd: Path, env: dict = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command, its output as bytes (names that are not UTF-8 must come out as they are)."""
    full_env = dict(os.environ, **(env or {}))
    full_env.pop("NO_COLOR", None)
    return subprocess.run([*COMMAND, *args], cwd=cwd, capture_output=True, env=full_env, timeout=timeout)


def test_the_text_format_never_opens_a_fifo_or_reads_a_device(tmp_path):
    """The text format quotes each finding's line: it must not wait on a FIFO for a writer, nor read
    /dev/zero forever, to quote the TVM001 that says they are not source files."""
    write_tree(tmp_path, {"pyproject.toml": CONFIG, "port.py": PORT})
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    for command in (["check", "--no-cache", "."], ["fix", "."]):
        done = run(*command, cwd=tmp_path, timeout=60)  # before: blocked on fifo.py until killed
        out = done.stdout.decode()
        assert done.returncode == 1, done.stderr
        assert "fifo.py\n  1:1 TVM001 error The file could not be read: not a regular file (a FIFO)" in out
        assert "zero.py\n  1:1 TVM001 error The file could not be read: not a regular file (a device or socket)" in out
    assert "tvm.runtime.save_param_dict" in (tmp_path / "port.py").read_text()


def test_quoted_lines_are_read_in_the_files_own_encoding(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": CONFIG})
    (tmp_path / "latin1.py").write_bytes("# -*- coding: latin-1 -*-\n".encode() + PORT.replace("(params)", "(params)  # caf\xe9").encode("latin-1"))
    out = run("check", "--no-cache", ".", cwd=tmp_path).stdout.decode()
    assert "blob = relay.save_param_dict(params)  # caf\xe9" in out, out


def test_no_terminal_control_sequence_from_a_file_reaches_the_output(tmp_path):
    """A checked file can hold escape sequences (clear the screen, set the title, recolour) and
    bidirectional overrides (Trojan Source): quoted lines and messages show them, never send them."""
    write_tree(tmp_path, {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n'})
    # a raw ESC where Python rejects it: TVM001, whose quoted line holds the ESC
    (tmp_path / "esc.py").write_bytes(b"import tvm\nx = 1 \x1b]0;owned\x07\x1b[2J\n")
    # a config key whose value holds an ESC (written as an escape): the message names the key;
    # a right-to-left override in the comment on the quoted line
    (tmp_path / "key.py").write_text(
        "import tvm\n"
        "with tvm.transform.PassContext(opt_level=3, config={'relay.\\x1b[2Jx': 1}):  # \u202e evil\n"
        "    pass\n",
        encoding="utf-8",
    )
    unsafe = ("\x1b", "\x07", "\u202e")
    for fmt in ("text", "concise", "github"):
        done = run("check", "--no-cache", "--format", fmt, ".", cwd=tmp_path)
        out = done.stdout.decode()
        assert done.returncode == 1, done.stderr
        assert not any(ch in out for ch in unsafe), (fmt, out)
        assert "TVM001" in out and "TVM107" in out, out
        assert "'relay.\\x1b[2Jx'" in out, out  # the message shows the key, escaped
    text = run("check", "--no-cache", ".", cwd=tmp_path).stdout.decode()
    assert "x = 1 \ufffd]0;owned\ufffd\ufffd[2J" in text, text  # one character for one: the caret stays aligned


def _names_not_utf8(root: Path) -> None:
    """A file and a directory whose names are latin-1 bytes, as old archives and Windows copies leave them."""
    import pytest

    write_tree(root, {"pyproject.toml": CONFIG})
    try:
        (Path(os.fsdecode(bytes(root) + b"/caf\xe9.py"))).write_text(PORT)
        directory = Path(os.fsdecode(bytes(root) + b"/d\xff"))
        directory.mkdir()
        (directory / "x.py").write_text("def (\n")
    except (OSError, UnicodeError) as error:  # a file system that takes only UTF-8 names
        pytest.skip(f"cannot create a file name that is not UTF-8 here: {error}")


def test_file_names_that_are_not_utf8_are_reported_in_every_format(tmp_path):
    import json

    _names_not_utf8(tmp_path)
    strict = {"PYTHONIOENCODING": "utf-8:strict"}  # what a UTF-8 locale gives Python's stdout
    for fmt in ("text", "concise", "github", "json", "sarif"):
        done = run("check", "--no-cache", "--format", fmt, ".", cwd=tmp_path, env=strict)
        assert done.returncode == 1 and b"internal error" not in done.stderr, (fmt, done.stderr)
        if fmt in ("text", "concise", "github"):  # the names as they are on disk, bytes for bytes
            assert b"caf\xe9.py" in done.stdout and b"d\xff/x.py" in done.stdout, done.stdout
        elif fmt == "json":  # valid UTF-8 JSON; Python's json and os.fsencode give the name back
            paths = {os.fsencode(item["path"]) for item in json.loads(done.stdout.decode("utf-8"))}
            assert paths == {b"caf\xe9.py", b"d\xff/x.py"}
        else:  # a URI: the bytes percent-encoded
            log = json.loads(done.stdout.decode("utf-8"))
            uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
            assert uris == {"caf%E9.py", "d%FF/x.py"}
    fixed = run("fix", ".", cwd=tmp_path, env=strict)
    assert fixed.returncode == 1 and b"internal error" not in fixed.stderr, fixed.stderr
    assert b"caf\xe9.py: fixed 3 (TVM202 x3)" in fixed.stdout
    assert "tvm.runtime.save_param_dict" in Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.py")).read_text()


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path):
    """`tvmlint check | head`: the pipe closes before the output is all written. Every format stops
    as the text format (rich) always did: quietly, exit 1 (there were findings to print)."""
    write_tree(tmp_path, {"pyproject.toml": CONFIG, **{f"m{i:03d}.py": PORT for i in range(150)}})
    for fmt in ("text", "concise", "json", "sarif", "github"):
        process = subprocess.Popen([*COMMAND, "check", "--format", fmt, "."], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        process.stdout.readline()
        process.stdout.close()  # `head -1` has what it wanted
        stderr = process.stderr.read().decode()
        assert (fmt, process.wait(timeout=120), stderr) == (fmt, 1, "")


def test_a_line_of_megabytes_is_quoted_in_part(tmp_path):
    """A minified or generated file can hold one line of megabytes: quoting it whole flooded the
    terminal with it (and with as many spaces before the caret)."""
    # (a string: a statement of millions of nodes is not parsed at all, tests/test_large_files.py)
    line = "x = ['" + "1," * 2_000_000 + "1'] $ tail" + " t" * 1_000
    (tmp_path / "min.py").write_text("import tvm\n" + line + "\n")
    done = run("check", "--no-cache", "min.py", cwd=tmp_path)
    out = done.stdout.decode()
    assert done.returncode == 1 and len(out) < 2_000, len(out)
    quoted, caret = [row for row in out.splitlines() if row.lstrip().startswith(("2 |", "|"))]
    column = int(out.split("min.py\n  2:")[1].split(" ")[0])  # the parser's column: at the `$`
    assert line[column - 1 : column + 1] == "$ "
    shown = quoted.split("| ", 1)[1]
    assert shown.startswith("\u2026") and shown.endswith("\u2026")
    at = caret.index("^") - caret.index("|") - 2
    assert shown[at : at + 6] == "$ tail", (shown, at)
