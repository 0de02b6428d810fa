"""`tvmlint fix`: rewrites, idempotence, encodings and line endings, atomic writes, --diff, stdin, exit codes."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from helpers import REPO, run_main, write_tree

from tvmlint.base.diagnostics import Edit, Finding, Fix, Position
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.fixer import FileChanged, fix_file, fix_text, write_atomic
from tvmlint.run.runner import check_text

PORT = (
    "from tvm import relay\n"
    "from tvm.contrib import graph_runtime\n"
    "\n"
    "with relay.build_config(opt_level=3):\n"
    "    lib = relay.build(mod, 'llvm')\n"
    "blob = relay.save_param_dict(params)\n"
    "m = graph_runtime.GraphModule(lib['default'](dev))\n"
)
PORT_FIXED = (
    "from tvm import relay\n"
    "from tvm.contrib import graph_executor as graph_runtime\n"
    "import tvm\n"
    "\n"
    "with tvm.transform.PassContext(opt_level=3):\n"
    "    lib = relay.build(mod, 'llvm')\n"
    "blob = tvm.runtime.save_param_dict(params)\n"
    "m = graph_runtime.GraphModule(lib['default'](dev))\n"
)
CONFIG = '[tool.tvmlint]\ntarget-version = "0.8"\n'


def project(tmp_path: Path, text: str = PORT, config: str = CONFIG) -> Path:
    write_tree(tmp_path, {"pyproject.toml": config})
    path = tmp_path / "port.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_fix_rewrites_and_reports_and_exits_0_when_nothing_remains(tmp_path):
    path = project(tmp_path)
    result = run_main("fix", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_text(encoding="utf-8") == PORT_FIXED
    assert "port.py: fixed 3 (TVM202 x3)" in result.stdout
    assert "Fixed 3 findings in 1 file; 0 remaining." in result.stdout
    assert "from tvm.transform import" not in path.read_text(encoding="utf-8")


def test_second_run_changes_nothing(tmp_path):
    path = project(tmp_path)
    run_main("fix", ".", cwd=tmp_path)
    once = path.read_bytes()
    again = run_main("fix", ".", cwd=tmp_path)
    assert path.read_bytes() == once
    assert "Fixed 0 findings in 0 files" in again.stdout


def test_exit_1_and_the_remaining_findings_are_listed(tmp_path):
    path = project(tmp_path, PORT.replace("    lib = relay.build", "    graph, lib, params = relay.build"))
    result = run_main("fix", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "TVM203" in result.stdout and "1 remaining" in result.stdout
    assert "tvm.transform.PassContext(opt_level=3)" in path.read_text(encoding="utf-8")


def test_check_fix_is_fix(tmp_path):
    path = project(tmp_path)
    result = run_main("check", "--fix", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_text(encoding="utf-8") == PORT_FIXED


def test_diff_writes_nothing(tmp_path):
    path = project(tmp_path)
    result = run_main("fix", "--diff", ".", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == PORT
    assert "-with relay.build_config(opt_level=3):" in result.stdout
    assert "+with tvm.transform.PassContext(opt_level=3):" in result.stdout
    assert "+import tvm" in result.stdout
    assert "Would fix 3 findings in 1 file; 0 remaining." in result.stderr
    assert result.returncode == 1  # fixes are pending (ruff's --diff exit code)


def test_stdin_prints_the_fixed_source(tmp_path):
    project(tmp_path)
    result = run_main("fix", "--stdin-filename", "port.py", "-", cwd=tmp_path, stdin=PORT)
    assert result.stdout == PORT_FIXED
    assert "fixed 3" in result.stderr
    assert result.returncode == 0
    assert (tmp_path / "port.py").read_text(encoding="utf-8") == PORT  # stdin mode never writes


def test_usage_error_exits_2(tmp_path):
    assert run_main("fix", "missing.py", cwd=tmp_path).returncode == 2


def test_unsafe_fixes_apply_tvm101_only_when_asked(tmp_path):
    source = "from tvm import relay\nimport tvm\nmod = relay.transform.FoldScaleAxis()(mod)\n"
    path = project(tmp_path, source, '[tool.tvmlint]\ntarget-version = "0.19"\n')
    safe = run_main("fix", ".", cwd=tmp_path)
    assert safe.returncode == 1 and path.read_text(encoding="utf-8") == source
    unsafe = run_main("fix", "--unsafe-fixes", ".", cwd=tmp_path)
    assert unsafe.returncode == 0, unsafe.stdout
    assert path.read_text(encoding="utf-8") == (
        "from tvm import relay\nimport tvm\nwith tvm.transform.PassContext(opt_level=3):\n"
        "    mod = relay.transform.FoldScaleAxis()(mod)\n"
    )


def test_crlf_stays_crlf(tmp_path):
    path = project(tmp_path)
    path.write_bytes(PORT.replace("\n", "\r\n").encode())
    assert run_main("fix", ".", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == PORT_FIXED.replace("\n", "\r\n").encode()


def test_bom_stays(tmp_path):
    path = project(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + PORT.encode())
    assert run_main("fix", ".", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + PORT_FIXED.encode()


def test_latin1_with_coding_cookie_stays_latin1(tmp_path):
    header = "# -*- coding: latin-1 -*-\n# caf\u00e9 na\u00efve\n"
    path = project(tmp_path)
    path.write_bytes((header + PORT).encode("latin-1"))
    assert run_main("fix", ".", cwd=tmp_path).returncode == 0
    data = path.read_bytes()
    assert data == (header + PORT_FIXED).encode("latin-1")
    assert b"caf\xe9" in data


def test_permissions_kept_and_no_temporary_file_left(tmp_path):
    path = project(tmp_path)
    os.chmod(path, 0o640)
    assert run_main("fix", ".", cwd=tmp_path).returncode == 0
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert path.read_text(encoding="utf-8") == PORT_FIXED
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".port.py.")] == []  # the temporary file


def test_unparseable_source_is_never_written(tmp_path):
    path = project(tmp_path, "from tvm import relay\nwith relay.build_config(opt_level=3):\nblob = (\n")
    before = path.read_bytes()
    result = run_main("fix", ".", cwd=tmp_path)
    assert result.returncode == 1 and "TVM001" in result.stdout
    assert path.read_bytes() == before


def _checker(tmp_path: Path, extra=None):
    resolver = SettingsResolver(Overrides(), cwd=tmp_path)
    path = tmp_path / "port.py"

    def check(text):
        findings = check_text(text, path, resolver.for_path(path), shown="port.py")
        return findings + (extra(text) if extra else [])

    return check


def _bad_fix(content: str):
    """A finding (as a rule with a faulty fix would give) whose fix inserts `content` at 1:1."""
    edit = Edit(Position(1, 1), Position(1, 1), content)
    return Finding("port.py", Position(1, 1), Position(1, 1), "TVM999", "warning", "synthetic", Fix("bad", (edit,), True))


def test_a_fix_that_breaks_the_syntax_is_discarded_and_the_file_left_alone(tmp_path):
    path = project(tmp_path)
    before = path.read_bytes()
    outcome = fix_file(path, "port.py", _checker(tmp_path, lambda text: [_bad_fix("(\n")]), unsafe=False, write=True)
    assert any("would not parse" in why for _, why in outcome.fix.discarded)
    # the good fixes still went through; the broken one is not in the file
    text = path.read_text(encoding="utf-8")
    assert text == PORT_FIXED and path.read_bytes() != before


def test_a_fix_whose_finding_stays_is_discarded(tmp_path):
    project(tmp_path)
    result = fix_text(PORT, _checker(tmp_path, lambda text: [_bad_fix("# noted\n")]), unsafe=False)
    assert [why for _, why in result.discarded] == ["the finding is still there after the fix"]
    assert result.fixed == PORT_FIXED


def test_a_file_changed_on_disk_is_not_written(tmp_path):
    path = project(tmp_path)
    with pytest.raises(FileChanged):
        write_atomic(path, b"new", expected=b"what we read earlier")
    assert path.read_text(encoding="utf-8") == PORT


def test_examples_diff_shows_the_rewrites(tmp_path):
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    before = {p: p.read_bytes() for p in (tmp_path / "examples").rglob("*.py")}
    result = run_main("fix", "--diff", "examples", cwd=tmp_path)
    diff = result.stdout
    for line in (
        "+from tvm.contrib import graph_executor as graph_runtime",
        "+    with tvm.transform.PassContext(opt_level=3):",
        "+        handle.write(tvm.runtime.save_param_dict(params))",
        "+from tvm.script import tirx as T",
        "+        with T.sblock(\"conv2d_nhwc\"):",
        "+    sch = tvm.s_tir.Schedule(mod)",
    ):
        assert line in diff, diff
    assert "from tvm.transform import" not in diff
    assert {p: p.read_bytes() for p in before} == before


def test_no_cache_and_jobs_hold_for_fix_and_check_fix(tmp_path):
    """`check --fix --no-cache` used to write the cache anyway, and `fix` took neither option."""
    path = project(tmp_path)
    for command in (["fix", "--no-cache", "--jobs", "2"], ["check", "--fix", "--no-cache", "--jobs", "1"]):
        path.write_text(PORT, encoding="utf-8")
        result = run_main(*command, ".", cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert path.read_text(encoding="utf-8") == PORT_FIXED
        assert not (tmp_path / ".tvmlint_cache").exists(), command
    # --confirm has nothing to confirm in a fix run: said, not silently ignored
    path.write_text(PORT, encoding="utf-8")
    refused = run_main("check", "--fix", "--confirm", ".", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.strip() == "tvmlint: error: --confirm cannot be combined with --fix"
    assert path.read_text(encoding="utf-8") == PORT


def test_a_read_only_file_is_left_untouched_and_reported():
    """The rename that replaces a file needs only the directory's permission: a read-only file (a
    vendored copy, a file version control keeps read-only until it is opened for edit) was replaced."""
    import subprocess
    import sys
    import tempfile

    from test_faults import _unprivileged

    drop = _unprivileged()  # as root, without the capabilities that ignore permission bits
    root = Path(tempfile.mkdtemp(prefix="tvmlint-readonly-"))
    try:
        root.chmod(0o777)  # the directory is writable: only the file's own mode says no
        write_tree(root, {"pyproject.toml": CONFIG, "port.py": PORT, "other.py": PORT})
        for path in root.iterdir():
            path.chmod(0o644)
        (root / "port.py").chmod(0o444)
        done = subprocess.run(
            [sys.executable, "-m", "tvmlint", "fix", "--no-cache", "."], cwd=root, capture_output=True, text=True,
            env=dict(os.environ, HOME=str(root)), timeout=300, **drop,
        )
        assert "tvmlint: port.py: left untouched: could not be written (the file is read-only)" in done.stderr, done.stderr
        assert done.returncode == 1
        assert (root / "port.py").read_text(encoding="utf-8") == PORT
        assert stat.S_IMODE((root / "port.py").stat().st_mode) == 0o444
        assert (root / "other.py").read_text(encoding="utf-8") == PORT_FIXED
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another owner")
def test_the_owner_and_group_are_kept(tmp_path):
    """Root fixing a user's checkout (sudo, a CI container on a mounted tree) left root-owned files."""
    path = project(tmp_path)
    os.chown(path, 12345, 23456)
    assert run_main("fix", "--no-cache", ".", cwd=tmp_path).returncode == 0
    assert path.read_text(encoding="utf-8") == PORT_FIXED
    assert (path.stat().st_uid, path.stat().st_gid) == (12345, 23456)


def test_a_file_saved_by_someone_else_while_it_is_fixed_is_left_as_they_saved_it(tmp_path):
    """The whole road, not only write_atomic: an editor saves the file while fix_file re-checks it."""
    path = project(tmp_path)
    theirs = PORT + "# saved from the editor meanwhile\n"
    check = _checker(tmp_path)

    def check_while_they_save(text):
        if path.read_text(encoding="utf-8") != theirs:
            path.write_text(theirs, encoding="utf-8")
        return check(text)

    outcome = fix_file(path, "port.py", check_while_they_save, unsafe=False, write=True)
    assert not outcome.written
    assert outcome.problem == "left untouched: it changed on disk while tvmlint was fixing it"
    assert path.read_text(encoding="utf-8") == theirs
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tvmlint")] == []


def test_a_fix_whose_result_only_libcst_parses_is_discarded(tmp_path):
    """libcst parses the newest grammar whatever Python runs it; `type X = int` (3.12) is no
    Python to a 3.11 that runs the code. The re-check then only saw a TVM001, so the fixed
    findings looked gone and the file was written."""
    import ast
    import sys

    if sys.version_info >= (3, 12):
        pytest.skip("this Python parses `type X = int`")
    path = project(tmp_path)
    newer = lambda text: [] if "type X" in text else [_bad_fix("type X = int\n")]  # noqa: E731
    outcome = fix_file(path, "port.py", _checker(tmp_path, newer), unsafe=False, write=True)
    assert any("would not parse" in why for _, why in outcome.fix.discarded), outcome.fix.discarded
    ast.parse(path.read_text(encoding="utf-8"))
    assert path.read_text(encoding="utf-8") == PORT_FIXED
