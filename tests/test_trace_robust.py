"""`tvmlint trace` when the script fails, exits, hangs, forks or is interrupted, and on hostile inputs (#30).

Whatever happens to the script, the trace file holds what ran until then and is
whole JSON; the script's exit code is tvmlint's. What tvmlint cannot run is one
line and exit 2, as for `check`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli, run_main, signals_as_from_a_terminal

BIN = Path(sys.executable).parent


def _tvm() -> bool:
    import importlib.util

    return importlib.util.find_spec("tvm") is not None


needs_tvm = pytest.mark.skipif(not _tvm(), reason="apache-tvm is not installed (pip install -e '.[test]')")

ONE_PASS = "import tvm\nfrom tvm import relax\nrelax.transform.FuseTIR()(tvm.IRModule())\n"
SLOW_PASS = (
    "import time\nimport tvm\n"
    "@tvm.transform.module_pass(opt_level=0, name='Slow')\n"
    "def slow(mod, ctx):\n    print('in the pass', flush=True)\n    time.sleep(600)\n    return mod\n"
    "tvm.transform.Sequential([tvm.relax.transform.FuseTIR(), slow])(tvm.IRModule())\n"
)


def _trace(tmp_path: Path, script: str, *options: str, timeout: float = 300) -> tuple:
    (tmp_path / "script.py").write_text(script, encoding="utf-8")
    done = run_cli("trace", "--format", "json", "-o", "trace.json", *options, "--", sys.executable, "script.py",
                   cwd=tmp_path, timeout=timeout)
    return done, json.loads((tmp_path / "trace.json").read_text(encoding="utf-8"))


def _runs(doc: dict) -> list:
    return [run for site in doc["sites"] for run in site["runs"]]


@needs_tvm
def test_a_failing_script_leaves_its_trace_and_its_exit_code(tmp_path):
    done, doc = _trace(tmp_path, ONE_PASS + "raise RuntimeError('the model is wrong')\n")
    assert done.returncode == 1 and "the model is wrong" in done.stderr
    assert doc["exit"]["code"] == 1
    assert [run["passes"][0]["name"] for run in _runs(doc)] == ["FuseTIR"]


@needs_tvm
def test_an_exiting_script_leaves_its_trace_and_its_exit_code(tmp_path):
    done, doc = _trace(tmp_path, ONE_PASS + "import sys\nsys.exit(3)\n")
    assert done.returncode == 3
    assert doc["exit"]["code"] == 3 and [site["line"] for site in doc["sites"]] == [3]


@needs_tvm
def test_a_pass_that_raises_is_marked_failed_and_the_run_goes_on(tmp_path):
    script = (
        "import tvm\n@tvm.transform.module_pass(opt_level=0, name='Boom')\ndef boom(mod, ctx):\n"
        "    raise ValueError('boom')\n"
        "try:\n    tvm.transform.Sequential([tvm.relax.transform.FuseTIR(), boom])(tvm.IRModule())\n"
        "except Exception:\n    pass\n" + ONE_PASS
    )
    done, doc = _trace(tmp_path, script)
    assert done.returncode == 0, done.stderr
    failed, later = _runs(doc)
    assert failed["status"] == "failed" and "boom" in failed["failed"]
    assert later["status"] == "finished" and later["passes"][0]["name"] == "FuseTIR"


@needs_tvm
def test_a_hanging_script_is_stopped_by_timeout_with_what_ran(tmp_path):
    started = time.monotonic()
    done, doc = _trace(tmp_path, SLOW_PASS, "--timeout", "4")
    assert time.monotonic() - started < 60
    assert done.returncode == 2 and "--timeout 4s" in done.stderr
    assert doc["exit"]["timed_out"]
    (run,) = _runs(doc)
    assert run["status"] == "unfinished"
    sequential = run["passes"][0]
    assert [child["name"] for child in sequential["children"]] == ["FuseTIR", "Slow"]
    assert sequential["children"][0]["state"] == "ran" and sequential["children"][1]["state"] == "unfinished"


@needs_tvm
def test_ctrl_c_leaves_a_complete_file(tmp_path):
    (tmp_path / "script.py").write_text(SLOW_PASS, encoding="utf-8")
    process = subprocess.Popen([str(BIN / "tvmlint"), "trace", "--format", "json", "-o", "trace.json", "--",
                                sys.executable, "script.py"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=signals_as_from_a_terminal)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the file is rewritten while the script runs: wait for the slow pass
        path = tmp_path / "trace.json"
        if path.exists() and '"Slow"' in path.read_text(encoding="utf-8"):
            break
        time.sleep(0.2)
    interim = json.loads((tmp_path / "trace.json").read_text(encoding="utf-8"))
    assert interim["exit"] is None  # still running, and already whole JSON
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    doc = json.loads((tmp_path / "trace.json").read_text(encoding="utf-8"))
    # the script's own exit code: KeyboardInterrupt came out of the pass as TVM re-raised it
    assert process.returncode == doc["exit"]["code"] != 0 and "interrupted" in err
    assert doc["exit"]["interrupted"] and _runs(doc)[0]["status"] == "unfinished"


@needs_tvm
def test_what_a_script_forks_is_traced_and_stopped(tmp_path):
    script = ONE_PASS + (
        "import os, time\nif os.fork() == 0:\n    relax.transform.CanonicalizeBindings()(tvm.IRModule())\n"
        "    time.sleep(600)\n    os._exit(0)\ntime.sleep(2)\n"
    )
    started = time.monotonic()
    done, doc = _trace(tmp_path, script)
    assert done.returncode == 0 and time.monotonic() - started < 60
    pids = {run["pid"] for run in _runs(doc)}
    assert len(pids) == 2
    assert sorted(site["line"] for site in doc["sites"]) == [3, 6]


# -- hostile inputs -------------------------------------------------------------------------------

def _one_line_error(done) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tvmlint: error: "), done.stderr
    return lines[0]


def test_a_missing_script(tmp_path):
    assert "does not exist" in _one_line_error(run_cli("trace", "--", sys.executable, "nowhere.py", cwd=tmp_path))


def test_a_directory_and_a_fifo_as_the_script(tmp_path):
    (tmp_path / "folder").mkdir()
    assert "is a directory" in _one_line_error(run_cli("trace", "--", sys.executable, "folder", cwd=tmp_path))
    os.mkfifo(tmp_path / "pipe.py")
    line = _one_line_error(run_cli("trace", "--", sys.executable, "pipe.py", cwd=tmp_path, timeout=60))
    assert "not a regular file" in line


def test_no_command_and_python_options_that_hide_the_tracer(tmp_path):
    assert "needs a command" in _one_line_error(run_cli("trace", cwd=tmp_path))
    (tmp_path / "s.py").write_text("print(1)\n", encoding="utf-8")
    assert "-I" in _one_line_error(run_cli("trace", "--", sys.executable, "-I", "s.py", cwd=tmp_path))


def test_an_interpreter_without_tvm(tmp_path):
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(tmp_path / "bare")],
                   check=True, timeout=120)
    (tmp_path / "s.py").write_text("print(1)\n", encoding="utf-8")
    line = _one_line_error(run_cli("trace", "--", str(tmp_path / "bare" / "bin" / "python"), "s.py", cwd=tmp_path))
    assert "no TVM is installed" in line


@needs_tvm
def test_output_to_dev_null_a_fifo_and_through_a_symlink(tmp_path):
    (tmp_path / "script.py").write_text(ONE_PASS, encoding="utf-8")
    done = run_cli("trace", "--format", "json", "-o", "/dev/null", "--", sys.executable, "script.py", cwd=tmp_path)
    assert done.returncode == 0 and os.path.exists("/dev/null") and not Path("/dev/null").is_file()
    # a symlink: its target is written, the link kept
    (tmp_path / "real.json").write_text("old", encoding="utf-8")
    (tmp_path / "link.json").symlink_to("real.json")
    done = run_cli("trace", "--format", "json", "-o", "link.json", "--", sys.executable, "script.py", cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text(encoding="utf-8"))["schema"] == "tvmlint-trace"
    # a FIFO: written once, in place, to the reader waiting on it
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    done = run_cli("trace", "--format", "json", "-o", str(fifo), "--", sys.executable, "script.py", cwd=tmp_path)
    data, _ = reader.communicate(timeout=60)
    assert done.returncode == 0 and json.loads(data)["schema"] == "tvmlint-trace" and fifo.exists()


CHECKED = "import tvm\nfrom tvm import relax\nwith tvm.transform.PassContext(opt_level=0):\n    relax.transform.FuseTIR()(tvm.IRModule())\n"


@pytest.mark.parametrize("content, said", [
    ("not json at all", "not JSON"),
    ('{"schema": "tvmlint-trace", "version": 1, "sites": [', "not JSON, or cut short"),
    ('{"something": "else"}', "not a tvmlint trace"),
    ('{"schema": "tvmlint-trace", "version": 99, "sites": []}', "version 99"),
    ("[" * 200_000, "nested too deeply"),  # json's decoder recursed into an internal error
    ('{"schema": "tvmlint-trace", "version": 1, "sites": [{"runs": "x"}]}', "not a whole trace"),
    ('{"schema": "tvmlint-trace", "version": 1, "sites": [{"runs": [{"passes": [{"children": 3}]}]}]}', "not a whole trace"),
    ('{"schema": "tvmlint-trace", "version": 1, "sites": [{"runs": [{"run": 1, "status": "finished", "context": {}, '
     '"stack": [1, {"file": 2}], "passes": [], "skipped": [], "ir_after": []}]}]}', None),
])
def test_check_with_a_bad_trace_file_says_one_line_and_reports_the_static_findings(tmp_path, content, said):
    (tmp_path / "m.py").write_text(CHECKED, encoding="utf-8")
    (tmp_path / "trace.json").write_text(content, encoding="utf-8")
    done = run_main("check", "--target-version", "0.27", "--trace", "trace.json", "m.py", cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == (1 if said is None else 2), done.stderr
    if said is None:  # odd frames are passed over: nothing of the trace is at this line
        assert done.returncode == 1 and "not reached in the trace" in done.stdout, done.stderr
        return
    assert len(lines) == 1 and said in lines[0] and "static only" in lines[0]
    assert "TVM101" in done.stdout  # the run went on


def test_check_with_a_trace_that_is_a_fifo_or_missing(tmp_path):
    (tmp_path / "m.py").write_text(CHECKED, encoding="utf-8")
    os.mkfifo(tmp_path / "trace.json")
    done = run_cli("check", "--target-version", "0.27", "--trace", "trace.json", "m.py", cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "not a regular file" in done.stderr and "TVM101" in done.stdout
    done = run_main("check", "--target-version", "0.27", "--trace", "gone.json", "m.py", cwd=tmp_path)
    assert done.returncode == 2 and "gone.json" in done.stderr and "TVM101" in done.stdout


def _old_tvm(tmp_path: Path, version: str, dist: bool) -> dict:
    """A stand-in for a TVM build older than 0.8 (no tvm.instrument), on PYTHONPATH: PyPI has none
    for current Pythons. With `dist`, its metadata says the version; without, only import tells."""
    site = tmp_path / "old"
    (site / "tvm").mkdir(parents=True)
    (site / "tvm" / "__init__.py").write_text(f"__version__ = {version!r}\n", encoding="utf-8")
    if dist:
        meta = site / f"apache_tvm-{version}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: apache-tvm\nVersion: {version}\n", encoding="utf-8")
    (tmp_path / "s.py").write_text("import tvm\nprint('ran on')\n", encoding="utf-8")
    return {"PYTHONPATH": str(site)}


def test_a_tvm_too_old_for_instruments_is_one_line_and_exit_2(tmp_path):
    env = _old_tvm(tmp_path, "0.7.0", dist=True)
    line = _one_line_error(run_cli("trace", "--", sys.executable, "s.py", cwd=tmp_path, env=env))
    assert "TVM 0.7.0 has no PassInstrument" in line


def test_a_tvm_without_instruments_found_only_at_import(tmp_path):
    env = _old_tvm(tmp_path, "0.7.dev0", dist=False)
    done = run_cli("trace", "--", sys.executable, "s.py", cwd=tmp_path, env=env)
    assert done.returncode == 2 and "ran on" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tvmlint: error: ") and "cannot be traced" in lines[0]
    assert "tvm.instrument" in lines[0]


def test_the_output_file_cannot_be_the_script(tmp_path):
    (tmp_path / "s.py").write_text("print(1)\n", encoding="utf-8")
    line = _one_line_error(run_cli("trace", "-o", "s.py", "--", sys.executable, "s.py", cwd=tmp_path))
    assert "is the script itself" in line and (tmp_path / "s.py").read_text(encoding="utf-8") == "print(1)\n"
    (tmp_path / "out").mkdir()
    assert "is a directory" in _one_line_error(run_cli("trace", "-o", "out", "--", sys.executable, "s.py", cwd=tmp_path))


def _on_a_terminal(tmp_path: Path, script: str, answer: bytes, after: bytes) -> tuple:
    """tvmlint trace in a pseudo-terminal's foreground, as a user runs it: type `answer` once `after` shows."""
    import pty
    import select

    (tmp_path / "script.py").write_text(script, encoding="utf-8")
    pid, fd = pty.fork()
    if pid == 0:
        signals_as_from_a_terminal()  # a terminal's session, whatever started the tests
        os.chdir(tmp_path)
        os.execv(str(BIN / "tvmlint"), ["tvmlint", "trace", "--format", "json", "-o", "trace.json", "--",
                                         sys.executable, "script.py"])
    out, sent, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        if after in out and not sent:
            time.sleep(0.3)
            os.write(fd, answer)
            sent = True
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)  # the session pty.fork made: tvmlint and the script
            os.waitpid(pid, 0)
            os.close(fd)
            raise AssertionError(f"tvmlint trace did not end on a terminal within 120 s: {out[-2000:]!r}")
        time.sleep(0.2)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace"), json.loads((tmp_path / "trace.json").read_text())


@needs_tvm
def test_on_a_terminal_the_script_reads_it_and_gets_ctrl_c(tmp_path):
    code, out, doc = _on_a_terminal(tmp_path, ONE_PASS + "print('got', input('name? '))\n" + ONE_PASS.splitlines()[-1] + "\n",
                                    b"world\n", b"name? ")
    assert code == 0 and "got world" in out and [site["line"] for site in doc["sites"]] == [3, 5]
    code, out, doc = _on_a_terminal(tmp_path, SLOW_PASS, b"\x03", b"in the pass")
    assert code == doc["exit"]["code"] != 0 and _runs(doc)[0]["status"] == "unfinished"
    assert "in noted" not in out  # no signal handler of tvmlint's in the KeyboardInterrupt's traceback


@needs_tvm
def test_a_script_killed_by_a_signal_exits_as_a_shell_says(tmp_path):
    done, doc = _trace(tmp_path, ONE_PASS + "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert done.returncode == 128 + 9
    assert doc["exit"]["signal"] == "SIGKILL" and [site["line"] for site in doc["sites"]] == [3]
