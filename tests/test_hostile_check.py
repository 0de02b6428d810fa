"""Hostile inputs for `check` found on real code (#28, #29): a run ends, whatever the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run_cli, run_main

# commented-out code after a commented PassContext( (gicLAB/transfer-tuning src/scripts/utils.py):
# the cheap stage's text screen once tried every way of splitting these comments, each line
# multiplying its time by seven, and the run never ended
COMMENTED_OUT = (
    "import tvm\n"
    "#     # with tvm.transform.PassContext(\n"
    "#     #     opt_level=3, config={'relay.backend.use_auto_scheduler': True}\n"
    "#     # ):\n"
    "#     #     lib = relay.build(\n"
    + "#     #         mod,\n" * 40
    + "#     #     )\n"
    "x = 1\n"
)


def test_commented_out_code_after_a_context_does_not_hang(tmp_path: Path):
    (tmp_path / "utils.py").write_text(COMMENTED_OUT, encoding="utf-8")
    done = run_cli("check", "--no-cache", "--target-version", "0.8", "utils.py", cwd=tmp_path)  # 300 s bound
    assert done.returncode == 0, done.stderr
    assert "All checks passed" in done.stdout


def test_a_usage_error_is_one_line_and_exit_2(tmp_path: Path):
    for args in (["check", "--select"], ["check", "--bogus"], ["nosuch"], ["explain"], ["check", "--jobs", "many"]):
        done = run_main(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.returncode)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tvmlint: error: "), (args, done.stderr)
        assert done.stdout == ""


def test_a_name_that_adds_to_itself_is_followed_a_bounded_way(tmp_path: Path):
    # `names = names + [...]`, then read again: following the names in a pass-name constant once
    # went round for ever, and the module got "too deeply nested" instead of its findings
    from tests.helpers import check_tree

    source = (
        "import tvm\nfrom tvm import relay\nSKIP = ['FoldConstant']\nSKIP = SKIP + ['FuseOP']\nMORE = SKIP + ['FuseOps']\n"
        "mod = relay.transform.FoldScaleAxis()(mod)\n"
    )
    findings = check_tree(tmp_path, {"job.py": source}, select=["TVM001", "TVM101", "TVM104"], target="0.8")
    assert [f.code for f in findings] == ["TVM101"], [f.message for f in findings]


# -- ignore files (#29): read only as regular files, with a bound, and never for minutes ----------

def _repository(tmp_path: Path) -> Path:
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    return tmp_path


def test_an_ignore_file_linked_to_dev_zero_is_not_read_for_ever(tmp_path: Path):
    root = _repository(tmp_path)
    (root / ".ignore").symlink_to("/dev/zero")
    done = run_cli("check", "--no-cache", ".", cwd=root, timeout=60)
    assert done.returncode == 0, done.stderr
    assert ".ignore: ignore file not read (not a regular file (a device or socket))" in done.stderr


def test_a_huge_ignore_file_is_named_and_passed_over(tmp_path: Path):
    root = _repository(tmp_path)
    (root / ".gitignore").write_text("# x\n" * 400_000, encoding="utf-8")  # 1.6 MB
    done = run_cli("check", "--no-cache", ".", cwd=root, timeout=60)
    assert done.returncode == 0 and "ignore file not read (larger than 1 MB)" in done.stderr


def test_a_long_run_of_asterisks_means_one_and_takes_no_time(tmp_path: Path):
    # git reads `***...` as regular asterisks: one `*` within a path segment
    root = _repository(tmp_path)
    (root / ".gitignore").write_text("*" * 2001 + "a.py\n", encoding="utf-8")
    (root / "b.py").write_text("y = 2\n", encoding="utf-8")
    done = run_cli("check", "--no-cache", "--show-files", ".", cwd=root, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["b.py"]


# -- output that cannot be written (#29): one line and exit 2, never a traceback ----------------

FOLDING = "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"


def _run_with(tmp_path: Path, *args: str, close=(), stdout=None):
    import os
    import subprocess
    import sys

    def closing():
        for fd in close:
            os.close(fd)

    return subprocess.run([sys.executable, "-m", "tvmlint", *args], cwd=tmp_path, preexec_fn=closing,
                          stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)


@pytest.mark.long
def test_a_full_disk_is_one_line_and_exit_2_in_every_format(tmp_path: Path):
    (tmp_path / "a.py").write_text(FOLDING, encoding="utf-8")
    for output_format in ("text", "json", "sarif", "junit", "gitlab"):
        with open("/dev/full", "w") as full:
            done = _run_with(tmp_path, "check", "--no-cache", "--target-version", "0.8", "--output-format",
                             output_format, "a.py", stdout=full)
        assert done.returncode == 2, (output_format, done.stderr)
        assert done.stderr.strip().splitlines() == [
            "tvmlint: error: could not write the output: No space left on device"], (output_format, done.stderr)
    with open("/dev/full", "w") as full:
        done = _run_with(tmp_path, "rules", stdout=full)
    assert done.returncode == 2 and "No space left on device" in done.stderr


# -- unbounded inputs (#29): stdin and the configuration are read with a bound -------------------

def _with_stdin(tmp_path: Path, source: str, *args: str):
    import subprocess
    import sys

    with open(source, "rb") as stdin:
        return subprocess.run([sys.executable, "-m", "tvmlint", *args], cwd=tmp_path, stdin=stdin,
                              capture_output=True, text=True, timeout=120)


def test_stdin_from_dev_zero_is_read_only_up_to_max_file_size(tmp_path: Path):
    done = _with_stdin(tmp_path, "/dev/zero", "check", "--no-cache", "-")
    assert done.returncode == 1 and "TVM001" in done.stdout and "more than the limit of 5 MB" in done.stdout
    done = _with_stdin(tmp_path, "/dev/zero", "fix", "-")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "tvmlint: error: the input is larger than 5 MB (max-file-size)"


def test_a_configuration_nested_too_deeply_or_not_a_file_is_one_line(tmp_path: Path):
    import os

    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "deep.toml").write_text("[tool.tvmlint]\nselect = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    done = run_cli("check", "--no-cache", "--config", "deep.toml", "a.py", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == "tvmlint: error: deep.toml: not valid TOML: nested too deeply to read"
    os.mkfifo(tmp_path / "fifo.toml")
    done = run_cli("check", "--no-cache", "--config", "fifo.toml", "a.py", cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr



def test_a_forks_own_tree_that_cannot_be_read_leaves_the_finding(tmp_path: Path):
    # the project step reads a fork's own python/tvm for the names it still defines: a FIFO, a
    # directory or an unparsable file where a module should be is read as defining nothing
    import os

    package = tmp_path / "python" / "tvm" / "relay"
    package.mkdir(parents=True)
    (tmp_path / "python" / "tvm" / "__init__.py").write_text("from . import relay\n", encoding="utf-8")
    (package / "__init__.py").write_text("from .transform import *\nfrom .ir_pass import *\n", encoding="utf-8")
    os.mkfifo(package / "ir_pass.py")
    (package / "transform.py").mkdir()
    (tmp_path / "use.py").write_text("from tvm import relay\ny = relay.ir_pass.infer_type(x)\nz = relay.infer(x)\n",
                                     encoding="utf-8")
    done = run_cli("check", "--no-cache", "--target-version", "0.6", "--select", "TVM201", "--output-format",
                   "concise", "use.py", cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "use.py:2:5: TVM201 `tvm.relay.ir_pass.infer_type` does not exist in TVM 0.6" in done.stdout
    (package / "ir_pass.py").unlink()
    (package / "ir_pass.py").write_text("def infer_type(expr):\n    return expr\n", encoding="utf-8")
    done = run_cli("check", "--no-cache", "--target-version", "0.6", "--select", "TVM201", "use.py",
                   cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout

# -- the daemon's directory (#29): never made where the user did not mean -----------------------

def test_a_relative_daemon_dir_or_a_missing_runtime_dir_makes_no_folder(tmp_path: Path, monkeypatch):
    from tvmlint.frontends.daemon.address import daemon_dir

    cache = tmp_path / "cache"
    monkeypatch.setenv("TVMLINT_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TVMLINT_DAEMON_DIR", "relative-daemons")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "no-such-runtime"))
    assert daemon_dir() == cache / "daemon"
    assert not (tmp_path / "relative-daemons").exists() and not (tmp_path / "no-such-runtime").exists()
    monkeypatch.setenv("XDG_RUNTIME_DIR", "run/user")  # relative: ignored, as XDG says
    assert daemon_dir() == cache / "daemon" and not (tmp_path / "run").exists()
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert daemon_dir() == runtime / "tvmlint"


def test_watch_waits_for_a_removed_folder_and_checks_it_again(tmp_path: Path):
    import shutil
    import subprocess
    import sys
    import time

    pytest = __import__("pytest")
    pytest.importorskip("watchfiles")
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        watching = subprocess.Popen([sys.executable, "-m", "tvmlint", "check", "--no-cache", "--target-version", "0.27",
                                     "--watch", "d"], cwd=tmp_path, stdout=stdout, stderr=stderr)
        try:
            def wait_for(text: str, where: Path) -> bool:
                end = time.monotonic() + 60
                while time.monotonic() < end:
                    if text in where.read_text(encoding="utf-8"):
                        return True
                    time.sleep(0.2)
                return False

            assert wait_for("watching for file changes", err)
            shutil.rmtree(folder)
            assert wait_for("waiting for d to come back", err)
            folder.mkdir()
            (folder / "b.py").write_text("from tvm import relay\n", encoding="utf-8")
            assert wait_for("d/b.py", out), err.read_text(encoding="utf-8")
            (folder / "c.py").write_text("from tvm import relay\n", encoding="utf-8")
            assert wait_for("d/c.py", out)  # and it watches the new folder
            assert watching.poll() is None
        finally:
            watching.kill()
            watching.wait()


def test_watch_on_one_file_checks_it_again_when_a_caller_elsewhere_changes(tmp_path: Path):
    # the helper's finding comes from its caller's context (#32): an edit of the caller, a file
    # the command did not name, changes what the named file reports
    import subprocess
    import sys
    import time

    pytest = __import__("pytest")
    pytest.importorskip("watchfiles")
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.8"\n', encoding="utf-8")
    (tmp_path / "passes.py").write_text(
        "from tvm import relay\n\n\ndef fold_scales(mod):\n    return relay.transform.FoldScaleAxis()(mod)\n",
        encoding="utf-8")
    caller = tmp_path / "app" / "compile_model.py"
    caller.parent.mkdir()
    unguarded = "import sys\nsys.path.insert(0, '..')\nfrom passes import fold_scales\n\nmod = fold_scales(load())\n"
    caller.write_text(unguarded, encoding="utf-8")
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        watching = subprocess.Popen([sys.executable, "-m", "tvmlint", "check", "--no-cache", "--output-format", "concise",
                                     "--watch", "passes.py"], cwd=tmp_path, stdout=stdout, stderr=stderr)
        try:
            def runs() -> int:
                return err.read_text(encoding="utf-8").count("watching for file changes")

            def wait_for(condition) -> bool:
                end = time.monotonic() + 60
                while time.monotonic() < end:
                    if condition():
                        return True
                    time.sleep(0.2)
                return False

            assert wait_for(lambda: runs() == 1), err.read_text(encoding="utf-8")
            assert "passes.py:5:" in out.read_text(encoding="utf-8")
            caller.write_text(unguarded.replace(
                "mod = fold_scales(load())", "import tvm\n\nwith tvm.transform.PassContext(opt_level=3):\n    mod = fold_scales(load())"),
                encoding="utf-8")
            assert wait_for(lambda: runs() == 2), err.read_text(encoding="utf-8")
            last = out.read_text(encoding="utf-8").rpartition("passes.py:5:")
            assert "All checks passed" in last[2], out.read_text(encoding="utf-8")
            assert watching.poll() is None
        finally:
            watching.kill()
            watching.wait()


def test_a_long_elif_chain_beside_the_checked_file_is_no_internal_error(tmp_path: Path):
    # lac-dcc/DropletSearch's tuning scripts hold one `if`/`elif` per shape, 500 of them: each
    # `elif` nests in the one before, and the cheap stage walked that nesting by recursion
    # (RecursionError, exit 2 for every file of the folder) before the depth guard was asked
    chain = "".join(f"    elif n == {i}:\n        shape = ({i}, {i})\n" for i in range(1, 520))
    (tmp_path / "shapes.py").write_text(
        "import tvm\nfrom tvm import relay\nfrom utils import *\n\n"
        "def pick(n):\n    if n == 0:\n        shape = (0, 0)\n" + chain + "    return relay.build(mod, 'llvm')\n"
    )
    (tmp_path / "utils.py").write_text("import tvm\nfrom shapes import pick\n\ndef run(n):\n    return pick(n)\n")
    for named in ("utils.py", "shapes.py", "."):
        result = run_cli("check", "--no-cache", "--target-version", "0.14", named, cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
        assert "internal error" not in result.stderr
    result = run_cli("check", "--no-cache", "--target-version", "0.14", "shapes.py", cwd=tmp_path)
    assert "too deeply nested" in result.stdout
