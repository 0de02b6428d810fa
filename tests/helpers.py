"""Shared test helpers: run tvmlint on files written to a temporary directory."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from tvmlint.base.diagnostics import Finding
from tvmlint.run.config import Overrides, SettingsResolver
from tvmlint.run.runner import check_paths

REPO = Path(__file__).resolve().parent.parent
CASE_TARGET = "0.19"  # the default target of a rule's cases (Case.target overrides it)


def grouped_by_rule(sources) -> list:
    """pytest params of rule cases and examples (ids `TVM101-...`, or a path), one per rule and
    one for the rest: a check over every case costs less as one item per rule than one per case."""
    import pytest

    groups: Dict[str, list] = {}
    for source in sources:
        key = source.id.split("-", 1)[0] if source.id.startswith("TVM") else "examples"
        groups.setdefault(key, []).append((source.id, *source.values))
    return [pytest.param(members, id=key) for key, members in groups.items()]


@functools.lru_cache(maxsize=None)
def tvm_importable() -> bool:
    """Whether the installed apache-tvm imports (in a child: the tests' own process never
    imports it). Asked once per test process, by every module whose tests need it."""
    done = subprocess.run([sys.executable, "-c", "import tvm, tvm.relax"], capture_output=True, timeout=300)
    return done.returncode == 0


def write_tree(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def prefiltered(resolver: SettingsResolver, on: bool) -> SettingsResolver:
    """The same settings, with the pre-filter wing on or off (`--no-prefilter`)."""
    from dataclasses import replace

    return SettingsResolver(replace(resolver.overrides, prefilter=on), cwd=resolver.cwd)


def check_tree(
    root: Path,
    files: Dict[str, str],
    select: Optional[Sequence[str]] = None,
    target: str = CASE_TARGET,
    extend_select: Sequence[str] = (),
) -> List[Finding]:
    write_tree(root, files)
    overrides = Overrides(
        target_version=target,
        select=tuple(select) if select is not None else None,
        extend_select=tuple(extend_select),
    )
    resolver = SettingsResolver(overrides, cwd=root)
    # one process: a pool for a few files costs more than it saves, and the suite's own
    # workers have the cores (worker processes: tests/test_speed.py)
    return check_paths([root], resolver, jobs=1).findings


def run_cli(*args: str, cwd: Path, stdin: Optional[str] = None, env: Optional[dict] = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """The real command, as a user runs it."""
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "tvmlint", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, env=full_env, timeout=timeout,
    )


def run_main(*args: str, cwd: Path, stdin: Optional[str] = None, env: Optional[dict] = None) -> subprocess.CompletedProcess:
    """`run_cli` without the process: tvmlint's `main(argv)` here, with the command's working
    directory, environment and standard streams (bytes in the locale's encoding, read back as
    subprocess's text mode reads them), and the SIGTERM disposition the run changes put back.
    The daemon runs a client's command the same way (tests/test_daemon.py holds the two to
    the same bytes and exit codes, tests/test_check_cli.py holds this helper to run_cli). A
    test about the process itself (signals, pipes, a closed stream, the installed entry
    point) uses run_cli."""
    import io
    import locale
    import warnings

    from tvmlint.frontends.cli import main

    encoding = locale.getpreferredencoding(False)
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(io.BytesIO((stdin or "").encode(encoding)), encoding=encoding),
        io.TextIOWrapper(out, encoding=encoding),
        io.TextIOWrapper(err, encoding=encoding, errors="backslashreplace"),
    )
    # sys.__stdout__ too: argparse's help takes its width from it (shutil.get_terminal_size), as
    # a process whose stdout is a pipe gets the 80 columns of no terminal
    saved_streams = sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_sigterm = signal.getsignal(signal.SIGTERM)
    try:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(full_env)
        sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
        # a warning goes to stderr, as in a process of its own (not to pytest's record)
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.simplefilter("ignore", category)
            warnings.showwarning = _show_warning
            code = main(list(args))
        for stream in streams[1:]:
            stream.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__ = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        signal.signal(signal.SIGTERM, saved_sigterm)

    def text(data: bytes) -> str:
        return io.TextIOWrapper(io.BytesIO(data), encoding=encoding).read()

    return subprocess.CompletedProcess(["tvmlint", *args], code, text(out.getvalue()), text(err.getvalue()))


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    import warnings

    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def drain_pty(controller: int) -> bytes:
    """Everything written to a pseudo-terminal until its last writer closes it; closes it too."""
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # Linux: EIO once the last writer has gone
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return b"".join(chunks)


def signals_as_from_a_terminal() -> None:
    """In a child before it starts: a test run started in the background (`pytest &`) ignores
    SIGINT, and Python keeps an ignored SIGINT ignored; a runner may also block signals, and a
    blocked signal stays pending. Either way a Ctrl-C a test sends would never reach the run."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
