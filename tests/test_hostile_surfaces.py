"""One hostile-input suite across surfaces (#29): the same pathological inputs through `check`
(text and JSON), `fix`, `check --add-noqa`, `explain FILE:LINE` and the language server (hover,
inlay hints, code actions, over stdio), each in a child with a wall-time and a memory bound.

Whatever the input, every surface ends on its own, within the bounds, without a signal, a
traceback or an internal error; an error is one `tvmlint: error:` line and exit 2; a path is
left as what it is; and the language server answers every request and the next one."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

from tests.lsp_stdio import StdioServer

# A child that goes past these is a hang or a blow-up, not a slow machine: the largest input
# takes a few seconds and under 400 MB (benchmarks/large_files.py prints the figures).
WALL_SECONDS = 90
PEAK_RSS_MB = 600
# the address space a child may map: a run that would go past the RSS bound by far dies of
# MemoryError here instead of taking the machine (four sessions share it)
ADDRESS_SPACE = 4 << 30
TARGET = ("--target-version", "0.19")

FOLD = "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"
# messages that quote a lone surrogate from a literal (TVM104's pass name, TVM107's config key)
SURROGATE = (
    "import tvm\n"
    'with tvm.transform.PassContext(opt_level=3, required_pass=["Fold\\ud800"], config={"relay.\\udcff": 1}):\n'
    "    mod = tvm.relay.transform.FoldScaleAxis()(mod)\n"
)


@dataclass
class Input:
    """A pathological input: what it puts in the directory, the path each surface is given, and how the
    streams are set up."""

    name: str
    make: Callable[[Path], str]  # writes into the directory; returns the path to name
    line: int = 1  # the line explain and the LSP ask about
    stdout: str = "pipe"  # "pipe", "closed", "full"
    close_stderr: bool = False
    whole: bool = False  # run on the directory (an ignore file is read only on a walk)
    kept: Dict[str, str] = field(default_factory=dict)  # path -> what it must still be ("fifo", "device", "link")


def _text(name: str, text: str) -> Callable[[Path], str]:
    def make(root: Path) -> str:
        (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        return name
    return make


def _fifo(root: Path) -> str:
    os.mkfifo(root / "fifo.py")  # nobody writes to it: a reader would wait for ever
    return "fifo.py"


def _device(root: Path) -> str:
    os.mknod(root / "null.py", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    return "null.py"


def _zero_link(root: Path) -> str:
    (root / "zero.py").symlink_to("/dev/zero")
    return "zero.py"


def _fifo_ignore(root: Path) -> str:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    os.mkfifo(root / ".gitignore")
    (root / "a.py").write_text(FOLD, encoding="utf-8")
    return "a.py"


# Generated once per session and copied: the large ones take a second or two to build.
BIG_TEXTS: Dict[str, str] = {}


def _big(name: str, build: Callable[[], str]) -> Callable[[Path], str]:
    def make(root: Path) -> str:
        if name not in BIG_TEXTS:
            BIG_TEXTS[name] = build()
        (root / name).write_text(BIG_TEXTS[name], encoding="utf-8")
        return name
    return make


def _five_megabytes() -> str:
    # code as a generated module holds it, naming TVM so that every stage looks at it, just
    # under the 5 MB default of max-file-size
    lines, size, i = [FOLD], len(FOLD), 0
    while size < 5_000_000:
        line = f"value_{i} = compute(value_{i - 1}, 'text {i}', option={i % 7})\n"
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines)


def _short_statements() -> str:
    # the worst shape per byte for the parser: 800,000 statements in 4.8 MB, after a finding
    return FOLD + "x = 1\n" * 800_000


def _long_line() -> str:
    # a finding on a line of 1 MB: quoted, suppressed and explained where it is
    return "from tvm import relay; mod = relay.transform.FoldScaleAxis()(mod); s = '" + "a" * (1 << 20) + "'\n"


def _deep_parens() -> str:
    return "x = " + "(" * 10_000 + "1" + ")" * 10_000 + "\n"


INPUTS = [
    Input("deep_nesting", _big("deep.py", _deep_parens)),
    Input("five_mb", _big("five.py", _five_megabytes), line=2),
    Input("short_statements", _big("short.py", _short_statements), line=2),
    Input("long_line", _big("line.py", _long_line)),
    Input("fifo", _fifo, kept={"fifo.py": "fifo"}),
    Input("device", _device, kept={"null.py": "device"}),
    Input("link_to_dev_zero", _zero_link, kept={"zero.py": "link"}),
    Input("ignore_file_fifo", _fifo_ignore, line=2, whole=True, kept={".gitignore": "fifo"}),
    Input("stdout_closed", _text("a.py", FOLD), line=2, stdout="closed"),
    Input("stderr_closed", _text("a.py", FOLD), line=2, close_stderr=True),
    Input("stdout_dev_full", _text("a.py", FOLD), line=2, stdout="full"),
    Input("lone_surrogate", _text("s.py", SURROGATE), line=3),
]

SURFACES = ["check", "check_json", "fix", "add_noqa", "explain"]
# the inputs of megabytes take seconds on every surface: started first (tests/conftest.py)
LARGE = {"five_mb", "short_statements", "long_line"}


def _params(cases: List[Input]) -> list:
    return [pytest.param(case, id=case.name, marks=[pytest.mark.long] if case.name in LARGE else []) for case in cases]


def _argv(surface: str, case: Input, target: str) -> List[str]:
    named = "." if case.whole else target
    return {
        "check": ["check", "--no-cache", *TARGET, named],
        "check_json": ["check", "--no-cache", "--output-format", "json", *TARGET, named],
        "fix": ["fix", "--no-cache", *TARGET, named],
        "add_noqa": ["check", "--no-cache", "--add-noqa", *TARGET, named],
        "explain": ["explain", *TARGET, f"{target}:{case.line}"],
    }[surface]


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float


def _bounded(close_stderr: bool = False, address_space: int = ADDRESS_SPACE) -> Callable[[], None]:
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        if close_stderr:
            os.close(2)
    return limits


def _ended(process: subprocess.Popen, what: str) -> Tuple[int, float]:
    """(exit code, peak RSS in MB) of a child once it ends, killed at WALL_SECONDS. The peak is as
    the kernel accounts it to wait4: the child, or a worker it waited for, whichever peaked higher."""
    deadline = time.monotonic() + WALL_SECONDS
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage.ru_maxrss / 1024
        if time.monotonic() > deadline:
            process.kill()
            os.wait4(process.pid, 0)
            pytest.fail(f"{what} still running after {WALL_SECONDS} s")
        time.sleep(0.02)


def run_bounded(argv: List[str], cwd: Path, stdout: str = "pipe", close_stderr: bool = False) -> Ran:
    """The command in a child under the address-space bound (`_ended`)."""
    out_path, err_path = cwd.parent / f"{cwd.name}.out", cwd.parent / f"{cwd.name}.err"
    opened = []
    if stdout == "full":
        out = open("/dev/full", "wb")
    elif stdout == "closed":
        out = None
    else:
        out = open(out_path, "wb")
    err = open(err_path, "wb")
    opened += [f for f in (out, err) if f is not None]
    env = dict(os.environ, NO_COLOR="1")

    def preexec() -> None:
        _bounded(close_stderr)()
        if stdout == "closed":
            os.close(1)

    start = time.monotonic()
    child = subprocess.Popen([sys.executable, "-m", "tvmlint", *argv], cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=out if out is not None else subprocess.DEVNULL, stderr=err,
                             env=env, preexec_fn=preexec)
    try:
        code, peak = _ended(child, " ".join(argv))
    finally:
        for f in opened:
            f.close()
    return Ran(code, out_path.read_text(errors="replace") if out_path.exists() else "",
               err_path.read_text(errors="replace"), time.monotonic() - start, peak)


def _kinds(root: Path) -> Dict[str, str]:
    kinds = {}
    for path in root.iterdir():
        mode = os.lstat(path).st_mode
        kinds[path.name] = ("link" if stat.S_ISLNK(mode) else "fifo" if stat.S_ISFIFO(mode)
                            else "device" if stat.S_ISCHR(mode) else "dir" if stat.S_ISDIR(mode) else "file")
    return kinds


def _assert_well_behaved(ran: Ran, case: Input, what: str) -> None:
    assert ran.returncode in (0, 1, 2), (what, ran.returncode, ran.stderr[-2000:])
    assert "Traceback" not in ran.stderr and "internal error" not in ran.stderr, (what, ran.stderr[-2000:])
    assert ran.peak_mb < PEAK_RSS_MB, (what, f"peak RSS {ran.peak_mb:.0f} MB")
    if ran.returncode == 2 and not case.close_stderr:
        lines = ran.stderr.strip().splitlines()
        errors = [line for line in lines if line.startswith("tvmlint: error: ")]
        assert len(errors) == 1, (what, ran.stderr[-2000:])


# What each (input, surface) ends with: the exit code, and texts the output or the error holds.
NOT_PARSED = {"check": (1, "too many nested parentheses"), "check_json": (1, "too many nested parentheses"),
              "fix": (1, "too many nested parentheses"), "add_noqa": (0, "Added 1 noqa directive."),
              "explain": (2, "too many nested parentheses")}
TOO_LARGE = {"check": (1, "syntax nodes; tvmlint analyses up to"), "check_json": (1, "syntax nodes"),
             "fix": (1, "syntax nodes"), "add_noqa": (0, "Added 1 noqa directive."), "explain": (2, "syntax nodes")}
NOT_A_FILE = {"check": (1, "TVM001 error The file could not be read: not a regular file"),
              "check_json": (1, "not a regular file"), "fix": (1, "not a regular file"),
              "add_noqa": (2, "could not be read: not a regular file"), "explain": (2, "not a regular file")}
FOUND = {"check": (1, "TVM101"), "check_json": (1, '"code": "TVM101"'), "fix": (1, "1 remaining"),
         "add_noqa": (0, "Added 1 noqa directive."), "explain": (0, "FoldScaleAxis is a Sequential")}


def _unwritable(why: str) -> Dict[str, Tuple[object, ...]]:
    expect: Dict[str, Tuple[object, ...]] = {
        surface: (2, f"tvmlint: error: could not write the output: {why}") for surface in SURFACES}
    expect["add_noqa"] = (0, "Added 1 noqa directive.")  # it writes the files, and its count to stderr
    return expect


IGNORED = ".gitignore: ignore file not read (not a regular file (a FIFO))"
EXPECT: Dict[str, Dict[str, Tuple[object, ...]]] = {
    "deep_nesting": NOT_PARSED,
    "five_mb": TOO_LARGE,
    "short_statements": TOO_LARGE,
    "long_line": FOUND,
    "fifo": NOT_A_FILE,
    "device": NOT_A_FILE,
    "link_to_dev_zero": NOT_A_FILE,
    "ignore_file_fifo": {**{surface: (*FOUND[surface], IGNORED) for surface in SURFACES if surface != "explain"},
                         "explain": FOUND["explain"]},
    "stdout_closed": _unwritable("the stream is closed"),
    "stderr_closed": {**FOUND, "add_noqa": (0, ""), "fix": (1, "")},
    "stdout_dev_full": _unwritable("No space left on device"),
    "lone_surrogate": {"check": (1, "'Fold\\ud800' in required_pass"), "check_json": (1, "Fold\\ud800"),
                       "fix": (1, "TVM104"), "add_noqa": (0, "Added 1 noqa directive."),
                       "explain": (0, "Fold\\ud800")},
}


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("case", _params(INPUTS))
def test_every_surface_survives_every_hostile_input(tmp_path: Path, case: Input, surface: str):
    root = tmp_path / "w"
    root.mkdir()
    target = case.make(root)
    before = _kinds(root)
    ran = run_bounded(_argv(surface, case, target), root, stdout=case.stdout, close_stderr=case.close_stderr)
    print(f"{case.name} {surface}: rc {ran.returncode}, {ran.seconds:.1f} s, {ran.peak_mb:.0f} MB\n"
          f"stdout: {ran.stdout[:300]!r}\nstderr: {ran.stderr[-600:]!r}")
    _assert_well_behaved(ran, case, f"{case.name} {surface}")
    after = _kinds(root)
    for name, kind in case.kept.items():
        assert after[name] == kind, (name, after[name])
    assert set(after) == set(before), "no file is left behind"
    code, *texts = EXPECT[case.name][surface]
    assert ran.returncode == code, (ran.returncode, ran.stderr[-600:])
    for text in texts:
        assert text in ran.stdout + ran.stderr, (text, ran.stdout[-600:], ran.stderr[-600:])


# -- the language server: the same inputs, as documents it is sent or files it is asked about ----

LSP_INPUTS = INPUTS + [Input("huge_content_length", _text("a.py", FOLD), line=2)]


WHY = {"closed": "the stream is closed", "full": "No space left on device"}


def _positions(line: int) -> Tuple[dict, dict]:
    start = {"line": line - 1, "character": 0}
    return start, {"line": line, "character": 0}


# the inputs whose line holds FoldScaleAxis, analysed: hover explains it
EXPLAINED = {"long_line", "ignore_file_fifo", "stderr_closed", "lone_surrogate", "huge_content_length"}


def _ask_everything(server: StdioServer, uri: str, line: int, first_id: int, unopened: bool, explained: bool) -> None:
    """Hover, inlay hints and code actions at `line` of `uri`: each gets an answer in time (empty
    for a file that is not open: it is not read)."""
    start, end = _positions(line)
    hover_at = {"line": line - 1, "character": 30}
    asks = [
        ("textDocument/hover", {"textDocument": {"uri": uri}, "position": hover_at}),
        ("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {"start": start, "end": end}}),
        ("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": start, "end": end},
                                     "context": {"diagnostics": []}}),
    ]
    for offset, (method, params) in enumerate(asks):
        answer = server.request(first_id + offset, method, params, timeout=WALL_SECONDS)
        assert answer is not None, f"no answer to {method} within {WALL_SECONDS} s"
        assert "result" in answer or answer["error"]["code"] in (-32602, -32600), answer
        if unopened:
            assert "error" not in answer and not answer["result"], answer
        if explained and method == "textDocument/hover":
            assert "BackwardFoldScaleAxis" in answer["result"]["contents"]["value"], answer


@pytest.mark.parametrize("case", _params(LSP_INPUTS))
def test_the_language_server_survives_every_hostile_input(tmp_path: Path, case: Input):
    root = tmp_path / "w"
    root.mkdir()
    target = case.make(root)
    uri = (root / target).as_uri()
    before = _kinds(root)
    if case.stdout in ("closed", "full"):
        # nothing it says can reach the client: it must end, on its own and without a traceback
        out = open("/dev/full", "wb") if case.stdout == "full" else subprocess.DEVNULL
        closing = case.stdout == "closed"

        def preexec() -> None:
            _bounded()()
            if closing:
                os.close(1)

        child = subprocess.Popen([sys.executable, "-m", "tvmlint", "lsp"], cwd=root, stdin=subprocess.PIPE,
                                 stdout=out, stderr=subprocess.PIPE, preexec_fn=preexec)
        from tests.lsp_stdio import frame

        try:
            child.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "processId": None, "rootUri": root.as_uri(), "capabilities": {}}}))
            child.stdin.close()
        except BrokenPipeError:
            pass  # it stopped before reading all of it: what it said is on stderr
        finally:
            if out is not subprocess.DEVNULL:
                out.close()
        code, peak = _ended(child, "the server with its output failing")
        err = child.stderr.read()
        assert code == 2, (code, err[-2000:])
        assert err.decode().splitlines() == [f"tvmlint: error: could not write the output: {WHY[case.stdout]}"]
        assert peak < PEAK_RSS_MB, f"peak RSS {peak:.0f} MB"
        return
    server = StdioServer(root, options={"inlay-hints": True, "target-version": "0.19"}, preexec_fn=_bounded(case.close_stderr),
                         stderr=subprocess.DEVNULL if case.close_stderr else subprocess.PIPE)
    try:
        # a FIFO, a device, a link to /dev/zero: asked about unopened (pygls would read them from disk)
        unopened = case.name in ("fifo", "device", "link_to_dev_zero")
        if case.name == "huge_content_length":
            server.raw(b"Content-Length: 99999999999999\r\n\r\n{}\r\n")
            got = server.messages(lambda got: any("id" in m and m["id"] is None for m in got))
            [refused] = [m for m in got if "id" in m and m["id"] is None]
            assert refused["error"]["code"] == -32600 and "was not read" in refused["error"]["message"]
        elif not unopened and target != "a.py":
            server.open(uri, (root / target).read_text(encoding="utf-8", errors="surrogatepass"))
        _ask_everything(server, uri, case.line, 10, unopened, case.name in EXPLAINED)
        assert "result" in server.hover_answered(20), "the server answers the next request"
        assert server.process.poll() is None
    finally:
        server.process.kill()
        _code, peak = _ended(server.process, "the server, killed")
    err = server.process.stderr.read().decode(errors="replace") if server.process.stderr else ""
    print(f"{case.name} lsp: {peak:.0f} MB\nstderr: {err[-600:]!r}")
    assert "Traceback" not in err, err[-2000:]
    assert peak < PEAK_RSS_MB, f"peak RSS {peak:.0f} MB"
    after = _kinds(root)
    for name, kind in case.kept.items():
        assert after[name] == kind, (name, after[name])
    assert set(after) == set(before), "the server writes nothing"


@pytest.mark.long
def test_a_lone_surrogate_from_a_literal_is_written_in_every_format(tmp_path: Path):
    # TVM104 and TVM107 quote the literal's text; no UTF-8 holds it (gitlab's fingerprint failed on it)
    from tvmlint.output import FORMATS

    (tmp_path / "s.py").write_text(SURROGATE, encoding="utf-8")
    for output_format in FORMATS:
        ran = run_bounded(["check", "--no-cache", "--output-format", output_format, *TARGET, "s.py"], tmp_path)
        assert ran.returncode == 1 and "Traceback" not in ran.stderr, (output_format, ran.stderr)
        assert "TVM104" in ran.stdout and "TVM107" in ran.stdout, output_format
