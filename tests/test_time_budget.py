"""max-analysis-time (#29): a file whose analysis runs past its budget is stopped, with one line
for that file, and the run goes on; check, fix, stdin, explain and the language server's hover
and inlay hints all stop at the same budget. The slow file is a real one (8,000 pass calls in
one function: six seconds of analysis on a quiet machine), under a budget lowered to 1 s; a file
stopped says so in words that only the budget writes. Each stopped run costs its budget: a longer
one would catch nothing more, as a run that ignored it would not say it was stopped."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_tree

BUDGET = 1
SLOW = "import tvm\nfrom tvm import relay\n\n\ndef f(mod):\n" + "    mod = relay.transform.FoldScaleAxis()(mod)\n" * 8000 + "\n\nf(None)\n"
OK = "import tvm\nfrom tvm import relay\n\n\nmod = relay.transform.FoldScaleAxis()(mod)\n"
STOPPED = f"The file could not be analysed: its analysis took longer than {BUDGET} s (max-analysis-time)"
ERROR_LINE = f"tvmlint: error: slow.py: its analysis took longer than {BUDGET} s (max-analysis-time)"
# generous: a run that ignored the budget would still end, far later under load; this catches a hang
BOUND = 120
# each test waits out a budget or two: started first (tests/conftest.py)
pytestmark = pytest.mark.long


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_tree(tmp_path, {
        "pyproject.toml": f'[tool.tvmlint]\ntarget-version = "0.19"\nmax-analysis-time = {BUDGET}\n',
        "slow.py": SLOW, "ok.py": OK,
    })
    return tmp_path


def _timed(*args: str, cwd: Path, stdin=None):
    started = time.monotonic()
    done = run_cli(*args, cwd=cwd, stdin=stdin, timeout=BOUND)
    return done, time.monotonic() - started


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_over_max_analysis_time_is_stopped_and_the_others_checked(tree: Path, jobs: str):
    for _ in range(2):  # the second run reads the cache: a stop is never kept there
        done, took = _timed("check", "--format", "concise", "--jobs", jobs, ".", cwd=tree)
        assert done.returncode == 2, (done.returncode, done.stderr)
        assert done.stderr.splitlines() == [ERROR_LINE]
        assert f"slow.py:1:1: TVM001 {STOPPED}" in done.stdout
        assert "ok.py:5:7: TVM101" in done.stdout
        assert took < BOUND


def test_fix_and_stdin_stop_at_the_budget(tree: Path):
    done, _ = _timed("fix", ".", cwd=tree)
    assert done.returncode == 2 and ERROR_LINE in done.stderr.splitlines(), done.stderr
    assert (tree / "slow.py").read_text(encoding="utf-8") == SLOW
    for extra in (["--stdin-filename", "slow.py"], []):
        done, _ = _timed("check", "--format", "concise", *extra, "-", cwd=tree, stdin=SLOW)
        assert done.returncode == 2, (extra, done.stderr)
        assert STOPPED in done.stdout
    done, _ = _timed("check", "--add-noqa", ".", cwd=tree)
    assert done.returncode == 2 and ERROR_LINE in done.stderr.splitlines()
    assert (tree / "slow.py").read_text(encoding="utf-8") == SLOW  # no noqa hides the stop


def test_explain_stops_at_the_budget_in_one_line(tree: Path):
    done, took = _timed("explain", "slow.py:6", cwd=tree)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(ERROR_LINE + "; set max-analysis-time"), line
    assert took < BOUND


def test_the_language_server_stops_hover_and_inlay_hints_at_the_budget(tree: Path):
    pytest.importorskip("pygls")
    from tests.lsp_stdio import StdioServer

    server = StdioServer(tree, options={"inlay-hints": True})
    try:
        uri = (tree / "slow.py").as_uri()
        server.open(uri, SLOW)
        got = server.messages(lambda got: any(_stopped_in(m, uri) for m in got), timeout=BOUND)
        assert any(_stopped_in(m, uri) for m in got), "no diagnostic says the check was stopped"
        # on a pass call: an explanation, had the budget not stopped it
        hover = server.request(2, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 5, "character": 20}}, timeout=BOUND)
        assert hover is not None and hover.get("result") is None, hover
        hints = server.request(3, "textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
            "start": {"line": 0, "character": 0}, "end": {"line": 9000, "character": 0}}}, timeout=BOUND)
        assert hints is not None and not hints.get("result"), hints
        assert "result" in server.hover_answered(4)  # and it goes on
    finally:
        server.close()
    assert b"Traceback" not in server.process.stderr.read()


def _stopped_in(message: dict, uri: str) -> bool:
    params = message.get("params") or {}
    return (message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri
            and any(STOPPED in diagnostic["message"] for diagnostic in params["diagnostics"]))


def test_max_analysis_time_is_a_setting_like_max_file_size(tree: Path):
    shown = run_cli("check", "--show-settings", "slow.py", cwd=tree).stdout
    assert f"max-analysis-time = {BUDGET} (s)" in shown
    lifted = run_cli("check", "--show-settings", "--max-analysis-time", "0", "slow.py", cwd=tree).stdout
    assert "max-analysis-time = 0 (no limit)" in lifted and "--max-analysis-time" in lifted
    bad = run_cli("check", "--max-analysis-time", "-1", "ok.py", cwd=tree)
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and "--max-analysis-time" in bad.stderr
    (tree / "pyproject.toml").write_text('[tool.tvmlint]\nmax-analysis-time = "soon"\n', encoding="utf-8")
    bad = run_cli("check", "ok.py", cwd=tree)
    assert bad.returncode == 2 and bad.stderr.startswith("tvmlint: error: ") and "max-analysis-time" in bad.stderr
    assert len(bad.stderr.splitlines()) == 1


def _spin() -> str:
    while True:
        pass


def test_the_budget_stops_python_work_in_any_thread_and_after_a_fork():
    from tvmlint.run.budget import within

    assert within(0.2, _spin, lambda: "stopped") == "stopped"
    assert within(5, lambda: "done", lambda: "stopped") == "done"
    # a budget inside another one adds nothing: the outer one's stop passes through it
    assert within(0.2, lambda: within(30, _spin, lambda: "inner"), lambda: "outer") == "outer"
    answers = []
    worker = threading.Thread(target=lambda: answers.append(within(0.2, _spin, lambda: "stopped in a thread")))
    worker.start()
    worker.join(BOUND)
    assert answers == ["stopped in a thread"]
    # under a tracer or profiler (coverage, a debugger, cProfile) too
    traced = threading.Thread(target=lambda: (sys.settrace(lambda *_: None),
                                              answers.append(within(0.2, _spin, lambda: "stopped under a tracer"))),
                              daemon=True)
    traced.start()
    traced.join(30)
    assert answers[1:] == ["stopped under a tracer"]
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the parent's watchdog thread does not survive fork: the child's own works
        os.write(write, within(0.2, _spin, lambda: "stopped in a child").encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(child, 0)
    assert os.read(read, 100) == b"stopped in a child" and status == 0


def test_an_import_is_never_stopped_halfway(tmp_path: Path, monkeypatch):
    # a module whose import takes longer than the budget: imported whole, then the work stopped
    from tvmlint.run.budget import within

    (tmp_path / "slow_to_import.py").write_text("import time\nstarted = time.monotonic()\n"
                                                "while time.monotonic() - started < 0.6:\n    pass\ndone = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def work():
        import slow_to_import  # noqa: F401

        _spin()

    assert within(0.1, work, lambda: "stopped") == "stopped"
    # a stopped import would have left nothing in sys.modules
    assert sys.modules["slow_to_import"].done
    del sys.modules["slow_to_import"]
