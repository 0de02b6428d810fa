"""`tvmlint check --daemon` against a real daemon: a background process on a Unix socket,
clients started as pre-commit starts them. A run through the daemon must print, byte for
byte, and exit as the same run in a process of its own."""

from __future__ import annotations

import importlib.util
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import REPO, drain_pty, run_main
from tvmlint.base.processes import alive
from tvmlint.frontends.daemon import address, client

pytestmark = pytest.mark.skipif(not address.supported(), reason="the daemon needs Unix domain sockets")

FOLD = "import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
CLEAN = "import tvm\nx = 1\n"


@pytest.fixture
def env(monkeypatch):
    # short: a socket's path holds about 100 bytes, and pytest's tmp_path can be longer
    directory = tempfile.mkdtemp(prefix="tvd", dir="/tmp")
    values = {**os.environ, address.DIR_ENV: directory}
    values.pop("NO_COLOR", None)
    # this process asks the same daemon the commands do
    monkeypatch.setenv(address.DIR_ENV, directory)
    yield values
    reply = client.ask({"kind": "stop"})
    if reply is not None:
        _wait_gone(reply["pid"])
    shutil.rmtree(directory, ignore_errors=True)


def tvmlint(env, *args, cwd, stdin=None):
    done = subprocess.run([sys.executable, "-m", "tvmlint", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def served() -> int:
    reply = client.ask({"kind": "status"})
    return -1 if reply is None else reply["served"]


def start(env, *more) -> int:
    code, out, err = tvmlint(env, "daemon", "start", *more, cwd=REPO)
    assert code == 0, err
    return client.ask({"kind": "status"})["pid"]


def wait_for(condition, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _wait_gone(pid):
    if not wait_for(lambda: not alive(pid), 10):
        os.kill(pid, signal.SIGKILL)


def project(tmp_path: Path, files: dict) -> Path:
    """A project of Relay-era code, checked against the release it was written for."""
    files = {"pyproject.toml": '[tool.tvmlint]\ntarget-version = "0.19"\n', **files}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


RUNS = [
    ("check", "examples"),
    ("check", "examples", "--no-cache", "--jobs", "2"),
    ("check", "examples/relay_era/fold_scale_axis.py", "--no-cache"),
    ("check", "examples", "--format", "json"),
    ("check", "examples", "--format", "sarif"),
    ("check", "examples", "--format", "github"),
    ("check", "examples", "--format", "concise", "--select", "TVM101"),
    ("check", "examples", "--target-version", "0.27", "--exit-zero"),
    ("check", "no_such_file.py"),
    # a line to stderr from a module the daemon first loaded for an earlier client's run
    ("check", "examples/relay_era/fold_scale_axis.py", "--confirm", "--tvm-python", "/no/such/python"),
    ("check", "examples", "--select", "TVM999"),
]


@pytest.mark.long
def test_a_run_through_the_daemon_prints_and_exits_as_a_run_of_its_own(env):
    start(env)
    codes = set()
    for number, argv in enumerate(RUNS, start=1):
        alone = tvmlint(env, *argv, cwd=REPO)
        through = tvmlint(env, *argv, "--daemon", cwd=REPO)
        assert through == alone, argv
        assert served() == number, argv  # the daemon made it, not the fallback
        codes.add(alone[0])
    assert codes == {0, 1, 2}  # --exit-zero, findings, usage errors


def test_stdout_and_stderr_come_in_the_order_they_were_written(env):
    # --confirm, failing, says so on stderr before the report on stdout
    argv = ["check", "examples/relay_era/fold_scale_axis.py", "--confirm", "--tvm-python", "/no/such/python"]
    start(env)

    def merged(*more):
        done = subprocess.run([sys.executable, "-m", "tvmlint", *argv, *more], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        return done.returncode, done.stdout

    alone = merged()
    assert alone[1].startswith(b"tvmlint: --confirm skipped") and b"TVM101" in alone[1]
    assert merged("--daemon") == alone
    assert served() == 1


def test_relative_paths_are_the_clients_own(env, tmp_path):
    root = project(tmp_path, {"pkg/a.py": FOLD, "pkg/sub/b.py": FOLD, "pkg/sub/c.py": CLEAN})
    start(env)
    for cwd, path in ((root, "pkg"), (root / "pkg" / "sub", "."), (root / "pkg" / "sub", "../a.py")):
        alone = tvmlint(env, "check", path, cwd=cwd)
        assert tvmlint(env, "check", path, "--daemon", cwd=cwd) == alone
        assert alone[0] == 1 and alone[1]
    assert served() == 3


def test_a_file_changed_between_runs_is_checked_as_it_is_now(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    start(env)
    code, out, _ = tvmlint(env, "check", "model.py", "--daemon", cwd=root)
    assert code == 1 and b"TVM101" in out
    (root / "model.py").write_text(CLEAN, encoding="utf-8")
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root)[:2] == (0, tvmlint(env, "check", "model.py", cwd=root)[1])
    (root / "model.py").write_text("def broken(:\n", encoding="utf-8")
    code, out, _ = tvmlint(env, "check", "model.py", "--daemon", cwd=root)
    assert code == 1 and b"TVM001" in out
    assert served() == 3


def test_the_result_store_is_written_before_the_client_has_its_answer(env, tmp_path):
    # the daemon keeps its stores between runs: a store removed after a run stays removed, and
    # one a run of another process wrote is read again, not overwritten from memory
    root = project(tmp_path, {"model.py": FOLD, "other.py": CLEAN})
    start(env)
    for number in (1, 2):
        code, out, _ = tvmlint(env, "check", "model.py", "--daemon", cwd=root)
        assert code == 1 and b"TVM101" in out
        assert list((root / ".tvmlint_cache").glob("store-*.pickle"))
        shutil.rmtree(root / ".tvmlint_cache")
        time.sleep(0.3)
        assert not (root / ".tvmlint_cache").exists(), number
    assert tvmlint(env, "check", "other.py", cwd=root)[0] == 0  # another process's store
    assert tvmlint(env, "check", ".", "--daemon", cwd=root)[0] == 1
    assert tvmlint(env, "check", "other.py", "--no-cache", cwd=root)[0] == 0
    store = next((root / ".tvmlint_cache").glob("store-*.pickle"))
    from tvmlint.run.cache import ResultCache

    assert str(root / "other.py") in ResultCache(store.parent).files  # kept, not overwritten
    assert served() == 3


def test_a_configuration_changed_between_runs_applies(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    start(env)
    code, out, _ = tvmlint(env, "check", "model.py", "--daemon", cwd=root)
    assert code == 1 and b"TVM101" in out and b"TVM201" not in out
    (root / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.27"\n', encoding="utf-8")
    alone = tvmlint(env, "check", "model.py", cwd=root)
    assert b"TVM201" in alone[1]  # Relay is gone at 0.27
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    (root / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = [\n', encoding="utf-8")
    alone = tvmlint(env, "check", "model.py", cwd=root)
    assert alone[0] == 2 and b"pyproject.toml" in alone[2]
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    assert served() == 3


def test_stdin_is_handed_to_the_daemon(env, tmp_path):
    project(tmp_path, {})
    start(env)
    for argv in (("check", "--stdin-filename", "model.py", "-"), ("check", "-", "--format", "json")):
        alone = tvmlint(env, *argv, cwd=tmp_path, stdin=FOLD.encode())
        assert tvmlint(env, *argv, "--daemon", cwd=tmp_path, stdin=FOLD.encode()) == alone
        assert alone[0] == 1 and b"TVM101" in alone[1]
    assert served() == 2


def test_a_daemon_holding_other_rules_data_is_replaced_not_asked(env, tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(REPO / "rules", rules)
    root = project(tmp_path, {"model.py": FOLD})
    env = {**env, "TVMLINT_RULES_DIR": str(rules)}
    old = start(env)
    code, out, _ = tvmlint(env, "check", "model.py", "--daemon", "--no-cache", cwd=root)
    assert b"TVM101 error" in out
    catalog = rules / "catalog" / "TVM101.toml"
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text(text.replace('severity = "error"', 'severity = "warning"'), encoding="utf-8")
    code, status, _ = tvmlint(env, "daemon", "status", cwd=root)
    assert code == 0 and b"changed since it started" in status
    code, out, _ = tvmlint(env, "check", "model.py", "--daemon", "--no-cache", cwd=root)
    assert code == 1 and b"TVM101 warning" in out and b"TVM101 error" not in out
    # the old daemon went, and this run started the next, which then serves
    assert wait_for(lambda: not alive(old))
    assert wait_for(lambda: served() == 0)
    assert tvmlint(env, "check", "model.py", "--daemon", "--no-cache", cwd=root)[1] == out
    assert served() == 1


def test_a_dead_daemons_socket_is_not_waited_on(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    pid = start(env)
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not alive(pid))
    assert address.socket_path().exists()  # what a killed daemon leaves
    alone = tvmlint(env, "check", "model.py", cwd=root)
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    # a new one took the socket over
    assert wait_for(lambda: served() == 0)
    assert client.ask({"kind": "status"})["pid"] != pid


def test_the_first_run_checks_alone_and_starts_a_daemon_for_the_next(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    assert served() == -1
    alone = tvmlint(env, "check", "model.py", cwd=root)
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    assert wait_for(lambda: served() == 0)
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    assert served() == 1


def test_clients_at_once_each_get_their_own_run(env, tmp_path):
    files = {f"m{index}.py": FOLD * (index + 1) if index % 2 else CLEAN for index in range(6)}
    root = project(tmp_path, files)
    start(env)
    alone = {name: tvmlint(env, "check", name, "--no-cache", cwd=root) for name in files}
    results = {}

    def run(name):
        results[name] = tvmlint(env, "check", name, "--no-cache", "--daemon", cwd=root)

    threads = [threading.Thread(target=run, args=(name,)) for name in files]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == alone
    assert served() == len(files)


def _on_a_terminal(env, args, cwd) -> bytes:
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tvmlint", *args], cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL, stdout=terminal, stderr=subprocess.PIPE)
    os.close(terminal)
    output = drain_pty(controller)
    process.wait(timeout=120)
    return output


def test_a_terminal_gets_the_same_colours_through_the_daemon(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    start(env)
    env = {**env, "TERM": "xterm-256color", "COLUMNS": "120"}
    alone = _on_a_terminal(env, ["check", "model.py"], root)
    assert b"\x1b[" in alone
    assert _on_a_terminal(env, ["check", "model.py", "--daemon"], root) == alone
    plain = {**env, "NO_COLOR": "1"}
    alone = _on_a_terminal(plain, ["check", "model.py"], root)
    assert b"\x1b[" not in alone and b"TVM101" in alone
    assert _on_a_terminal(plain, ["check", "model.py", "--daemon"], root) == alone
    assert served() == 2


def test_an_idle_daemon_goes_away(env):
    pid = start(env, "--idle-timeout", "1")
    assert wait_for(lambda: not alive(pid))
    assert not address.socket_path().exists()
    assert tvmlint(env, "daemon", "status", cwd=REPO)[0] == 1


def test_status_start_and_stop(env):
    code, out, _ = tvmlint(env, "daemon", "status", cwd=REPO)
    assert (code, out) == (1, b"tvmlint daemon: not running\n")
    pid = start(env)
    code, out, _ = tvmlint(env, "daemon", "start", cwd=REPO)
    assert code == 0 and f"already running (pid {pid})".encode() in out
    code, out, _ = tvmlint(env, "daemon", "status", cwd=REPO)
    assert code == 0 and f"pid {pid}".encode() in out and b"current" in out
    code, out, _ = tvmlint(env, "daemon", "stop", cwd=REPO)
    assert code == 0 and f"stopped (pid {pid})".encode() in out
    assert not alive(pid)
    assert tvmlint(env, "daemon", "stop", cwd=REPO)[:2] == (0, b"tvmlint daemon: not running\n")


def quick_to_give_up(monkeypatch):
    """`tvmlint daemon status|stop` in this process, where the waits on a daemon that does not
    answer can be shortened: its reply (client.ASK_TIMEOUT, 10 s) and its end on SIGTERM
    (TERM_WAIT, 5 s; a stopped process never ends on it). (code, stdout, stderr) as tvmlint()."""
    from tvmlint.frontends.commands import daemon as command

    monkeypatch.setattr(client, "ASK_TIMEOUT", 1.0)
    monkeypatch.setattr(command, "TERM_WAIT", 0.5)

    def run(env, *args):
        done = run_main(*args, cwd=REPO, env=env)
        return done.returncode, done.stdout.encode(), done.stderr.encode()

    return run


def test_stop_reaches_a_daemon_still_starting(env, tmp_path, monkeypatch):
    # `check --daemon` with none running starts one in the background and checks in its own
    # process meanwhile. A stop before that daemon answers said "not running", and the daemon
    # came up afterwards (issue #32). It is frozen here the moment it holds its lock, so the
    # stop always comes before it can answer, however fast this machine is.
    root = project(tmp_path, {"model.py": CLEAN})
    code, _, err = tvmlint(env, "check", "model.py", "--daemon", cwd=root)
    assert code == 0, err
    assert wait_for(lambda: address.lock_holder()[1] is not None)
    pid = address.lock_holder()[1]
    os.kill(pid, signal.SIGSTOP)
    here = quick_to_give_up(monkeypatch)
    try:
        code, out, err = here(env, "daemon", "stop")
        assert code == 0 and out.startswith(f"tvmlint daemon: stopped (pid {pid}".encode()), (out, err)
        assert wait_for(lambda: not alive(pid), 5)
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert served() == -1
    assert address.lock_holder() == (False, None)


def test_stop_ends_a_daemon_that_does_not_answer(env, monkeypatch):
    # a daemon that holds its lock and answers nothing (stopped here with SIGSTOP) is ended,
    # where "not running" would leave it holding the lock, and every `check --daemon` waiting
    pid = start(env)
    os.kill(pid, signal.SIGSTOP)
    here = quick_to_give_up(monkeypatch)
    try:
        code, out, err = here(env, "daemon", "status")
        assert code == 0 and f"not answering (pid {pid})".encode() in out, (out, err)
        code, out, err = here(env, "daemon", "stop")
        assert code == 0 and f"stopped (pid {pid}; it was starting or not answering)".encode() in out, (out, err)
        assert not alive(pid)
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert address.lock_holder() == (False, None)


def test_fix_is_not_handed_over(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    code, out, err = tvmlint(env, "check", "model.py", "--fix", "--daemon", cwd=root)
    assert code == 2 and b"--daemon cannot be combined with --fix" in err
    assert (root / "model.py").read_text(encoding="utf-8") == FOLD
    assert served() == -1  # and none was started for it


def test_a_directory_others_can_write_to_holds_no_socket(env, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv(address.DIR_ENV, str(shared))
    assert address.socket_path() is None
    root = project(tmp_path, {"model.py": FOLD})
    env = {**env, address.DIR_ENV: str(shared)}
    alone = tvmlint(env, "check", "model.py", cwd=root)
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    assert list(shared.iterdir()) == []


def test_a_daemon_that_cannot_start_says_so_in_one_error_line(env, tmp_path):
    # as every exit 2 of tvmlint: one `tvmlint: error:` line (#29)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = {**env, address.DIR_ENV: str(shared)}
    for action in ("start", "run"):
        code, out, err = tvmlint(env, "daemon", action, cwd=REPO)
        lines = err.decode().splitlines()
        assert code == 2 and out == b"" and len(lines) == 1, (action, code, out, err)
        assert lines[0].startswith("tvmlint: error: the daemon "), lines


UNKNOWN_PASS = 'import tvm\nwith tvm.transform.PassContext(opt_level=3, disabled_pass=["FoldConstantt"]):\n    pass\n'


@pytest.mark.tvm
@pytest.mark.skipif(importlib.util.find_spec("tvm") is None, reason="apache-tvm is not installed (pip install -e '.[test]')")
def test_a_daemon_stopped_during_a_run_leaves_the_client_to_check_alone(env, tmp_path):
    (tmp_path / "model.py").write_text(UNKNOWN_PASS, encoding="utf-8")
    argv = ("check", "model.py", "--target-version", "0.27", "--confirm")
    alone = tvmlint({**env, "TVMLINT_CACHE_DIR": str(tmp_path / "alone")}, *argv, cwd=tmp_path)
    assert alone[0] == 1 and b"confirmed by the installed TVM" in alone[1]
    pid = start(env)
    # an empty cache: the companion imports TVM, over a second, so SIGTERM comes during the run
    client_run = subprocess.Popen([sys.executable, "-m", "tvmlint", *argv, "--daemon"], cwd=tmp_path,
                                  env={**env, "TVMLINT_CACHE_DIR": str(tmp_path / "through")},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)
    os.kill(pid, signal.SIGTERM)
    out, err = client_run.communicate(timeout=120)
    assert (client_run.returncode, out, err) == alone
    assert wait_for(lambda: not alive(pid))
    assert not address.socket_path().exists()


def _stalled_client(payload: bytes):
    """A client that connects, sends `payload` (half a request, or nothing) and then nothing more."""
    import socket

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(str(address.socket_path()))
    if payload:
        connection.sendall(payload)
    return connection


def test_a_client_that_sends_half_a_request_holds_up_nobody(env, tmp_path):
    from tvmlint.frontends.daemon import server

    root = project(tmp_path, {"model.py": FOLD})
    start(env)
    alone = tvmlint(env, "check", "model.py", cwd=root)
    begin = time.monotonic()
    assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
    unhindered = time.monotonic() - begin
    stalled = [_stalled_client(b'{"kind": "check", "argv": ["check", "mod'), _stalled_client(b"")]
    try:
        begin = time.monotonic()
        assert tvmlint(env, "check", "model.py", "--daemon", cwd=root) == alone
        hindered = time.monotonic() - begin
        assert served() == 2  # the daemon made it, while the two others still had it open
        # no wait for the stalled ones: the run takes about what it took without them
        assert hindered < min(unhindered + 3.0, server.REQUEST_TIMEOUT), (unhindered, hindered)
        # and each stalled connection is closed once its request is overdue
        for connection in stalled:
            connection.settimeout(server.REQUEST_TIMEOUT + 10)
            assert connection.recv(1) == b""
    finally:
        for connection in stalled:
            connection.close()
    assert served() == 2


def test_a_stopped_daemon_is_waited_on_only_for_the_timeout(env, tmp_path):
    root = project(tmp_path, {"model.py": FOLD})
    pid = start(env)
    code, out, err = tvmlint(env, "check", "model.py", cwd=root)
    os.kill(pid, signal.SIGSTOP)  # it still takes connections (the kernel's backlog), and answers none
    try:
        begin = time.monotonic()
        through = tvmlint(env, "check", "model.py", "--daemon", "--daemon-timeout", "1.5", cwd=root)
        took = time.monotonic() - begin
    finally:
        os.kill(pid, signal.SIGCONT)
    note = b"tvmlint: the daemon did not take the request within 1.5 s; checking in this process\n"
    assert through == (code, out, note + err)
    assert code == 1 and b"TVM101" in out
    assert took < 1.5 + 30, took  # the timeout, then a run of its own
    assert served() == 0


def test_a_daemon_that_takes_a_run_and_never_answers_is_left_after_the_timeout(env, tmp_path):
    """A daemon that reads the request and says it has it, then never replies (a run stuck)."""
    import socket

    from tvmlint.frontends.daemon import protocol

    root = project(tmp_path, {"model.py": FOLD})
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(address.socket_path()))
    listener.listen(4)
    taken = []

    def silent_daemon():
        connection, _ = listener.accept()
        taken.append(connection)
        request = protocol.receive(connection)
        taken.append(request)
        protocol.send(connection, {"kind": "accepted"})

    thread = threading.Thread(target=silent_daemon, daemon=True)
    thread.start()
    try:
        alone = tvmlint(env, "check", "model.py", cwd=root)
        environment = {**env, client.TIMEOUT_ENV: "2"}
        begin = time.monotonic()
        code, out, err = tvmlint(environment, "check", "model.py", "--daemon", cwd=root)
        took = time.monotonic() - begin
        thread.join(5)
        assert taken and taken[1]["kind"] == "check" and taken[1]["argv"][-1] == "--daemon"
        note = b"tvmlint: the daemon did not answer within 2 s (--daemon-timeout); checking in this process\n"
        assert (code, out, err) == (alone[0], alone[1], note + alone[2])
        assert 2.0 <= took < 2.0 + 30, took
    finally:
        for item in taken[:1]:
            item.close()
        listener.close()
        address.socket_path().unlink()


def test_the_reply_timeout_comes_from_the_flag_then_the_environment(monkeypatch):
    import argparse

    monkeypatch.delenv(client.TIMEOUT_ENV, raising=False)
    assert client.reply_timeout(argparse.Namespace()) == client.DEFAULT_TIMEOUT
    monkeypatch.setenv(client.TIMEOUT_ENV, "7.5")
    assert client.reply_timeout(argparse.Namespace(daemon_timeout=None)) == 7.5
    assert client.reply_timeout(argparse.Namespace(daemon_timeout=3.0)) == 3.0
    for bad in ("", "0", "-1", "nan", "inf", "soon"):
        monkeypatch.setenv(client.TIMEOUT_ENV, bad)
        assert client.reply_timeout(argparse.Namespace(daemon_timeout=None)) == client.DEFAULT_TIMEOUT
