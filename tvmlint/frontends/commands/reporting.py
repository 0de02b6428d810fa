"""How `tvmlint check` reports, as ruff's `check` does: `--output-file`, `-q`/`-qq`,
`--statistics`, `--show-fixes`, `--exit-non-zero-on-fix`, `--watch`, and the progress
bar a long run shows on a terminal."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import stat
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, List, Optional

from tvmlint.frontends.commands import UsageError


def add_output_options(parser: argparse.ArgumentParser, watch: bool = True) -> None:
    parser.add_argument("-o", "--output-file", type=Path, metavar="PATH",
                        help="write the report to PATH (a file is replaced whole, never half-written; a device, FIFO or "
                        "symlink's target is written as it is); the terminal gets only errors")
    parser.add_argument("-q", "--quiet", action="count", default=0,
                        help="print the findings and nothing else (no closing line, no notes); -qq: print nothing")
    parser.add_argument("-s", "--silent", dest="quiet", action="store_const", const=2,
                        help="print nothing; the exit code still tells whether findings remain (same as -qq)")
    parser.add_argument("--statistics", action="store_true",
                        help="print how many findings each rule made, the most frequent first, instead of the findings")
    parser.add_argument("--show-fixes", action="store_true", help="with --fix: list the fixes made, per file and rule")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true",
                        help="with --fix: exit 1 when a file was changed, even if no finding remains")
    if watch:  # `fix` has none: `check --fix --watch` is refused too
        parser.add_argument("--watch", action="store_true",
                            help="check again whenever a Python file or pyproject.toml under PATHS changes (Ctrl-C to stop)")


def check_usage(args: argparse.Namespace, stdin: bool) -> None:
    """Refuse combinations that cannot work, before anything runs."""
    from tvmlint.output.statistics import FORMATS

    if args.statistics and args.format not in FORMATS:
        raise UsageError(f"--statistics prints as text or JSON: use it with --format {', '.join(FORMATS)}")
    if args.statistics and args.diff:  # ruff refuses it too: the diff owns stdout
        raise UsageError("--statistics cannot be combined with --diff")
    if args.watch:
        for flag, given in (("--fix", args.fix), ("--daemon", args.daemon), ("--output-file", args.output_file),
                            ("stdin", stdin), ("--confirm", args.confirm)):
            if given:
                raise UsageError(f"--watch cannot be combined with {flag}")
    if args.output_file is not None and args.fix and stdin and not args.diff:
        raise UsageError("--output-file cannot be combined with --fix on stdin: the fixed source goes to stdout")
    if args.output_file is not None and args.output_file.is_dir():
        raise UsageError(f"--output-file {args.output_file} is a directory")
    if args.output_file is not None and not stdin:
        given = _input_holding(args.output_file, args.paths or [Path(".")])
        if given is not None:
            raise UsageError(f"--output-file {args.output_file} is one of the files checked ({given}): "
                             "the report would overwrite it")


def _input_holding(output: Path, paths: List[Path]) -> Optional[Path]:
    """The input path that is, or holds, `output` as a file the run would check; None when none."""
    if not output.exists():
        return None
    for given in paths:
        if given.is_file():
            if os.path.samefile(given, output):
                return given
        elif given.is_dir() and output.suffix in (".py", ".pyi"):
            inside = os.path.realpath(output)
            if os.path.commonpath([os.path.realpath(given), inside]) == os.path.realpath(given):
                return given
    return None


def silent(args: argparse.Namespace) -> bool:
    return getattr(args, "quiet", 0) >= 2


def quiet(args: argparse.Namespace) -> bool:
    return getattr(args, "quiet", 0) >= 1


# -- where the report goes ---------------------------------------------------------------

@contextlib.contextmanager
def report_stream(args: argparse.Namespace) -> Iterator[None]:
    """sys.stdout for the run: the terminal, nothing (-qq), or a buffer that becomes
    --output-file once the run has finished (a failed run leaves the file as it was)."""
    if silent(args):
        saved = sys.stdout
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
        try:
            yield
        finally:
            sys.stdout.close()
            sys.stdout = saved
        return
    if args.output_file is None:
        yield
        return
    buffer = io.BytesIO()
    saved = sys.stdout
    sys.stdout = io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape", newline="", write_through=True)
    try:
        yield
        sys.stdout.flush()
        data = buffer.getvalue()
    finally:
        sys.stdout = saved
    try:
        write_atomically(args.output_file, data)
    except OSError as error:
        raise UsageError(f"cannot write {args.output_file}: {error.strerror or error}") from None


def write_atomically(path: Path, data: bytes) -> None:
    """Write the report to `path` as what it is. A regular file (or a new one) is replaced
    whole: a reader (a CI step picking up the report) sees the old file or the whole new one;
    a new file gets the permissions the umask gives, an existing one keeps its own. A symlink
    is followed, and its target is written, the link kept. Anything else (a device such as
    /dev/null, a FIFO, /dev/stdout) is written in place, as a shell's `>` would: renaming a
    file over it would replace the device itself."""
    from tvmlint.base.source import replace_file

    try:
        status = os.stat(path)
    except FileNotFoundError:
        status = None
    if status is not None and not stat.S_ISREG(status.st_mode):
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        return
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    replace_file(target, data, lambda temporary: os.chmod(temporary, mode))


# -- progress ------------------------------------------------------------------------------

# a run shorter than this shows no progress at all
PROGRESS_DELAY = 1.0


class Progress:
    """Files checked out of the run's total, on stderr, once the run has lasted PROGRESS_DELAY;
    gone from the screen when the run ends (rich's transient progress)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self.bar = None
        self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if time.monotonic() - self.started < PROGRESS_DELAY:
                return
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import Progress as Bar

            console = Console(file=self.stream, stderr=True)
            self.bar = Bar(TextColumn("Checking"), BarColumn(), MofNCompleteColumn(), TextColumn("files"),
                           TimeElapsedColumn(), console=console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task("check", total=total)
        self.bar.update(self.task, completed=done, total=total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def progress_for(args: argparse.Namespace) -> Optional[Progress]:
    """A progress display, or None: only on a terminal, never in CI, with -q, when the report
    goes to a file, or in the daemon (its stderr is a client's, relayed after the run)."""
    from tvmlint.frontends import daemon

    if quiet(args) or getattr(args, "output_file", None) is not None or daemon.SERVING or os.environ.get("CI"):
        return None
    try:
        if not sys.stderr.isatty():
            return None
    except (OSError, ValueError):
        return None
    return Progress(sys.stderr)


# -- --watch -------------------------------------------------------------------------------

CLEAR = "\x1b[2J\x1b[3J\x1b[H"


def watch(paths, once: Callable[[], int], projects=(), flat=()) -> int:
    """Run `once` (a check that prints its report), then again after each change to a Python
    file or a .toml under `paths`, until interrupted. On a terminal the screen is cleared first.
    `projects`: the folders of the named files' projects, whose other files are read as their
    callers (a caller edited elsewhere changes a named file's findings); `flat`: such folders
    whose own files count but not their subfolders' (a script outside any project), watched
    without their subfolders where nothing named needs a whole tree watched."""
    try:
        import watchfiles
    except ImportError:
        raise UsageError("--watch needs the watchfiles package: pip install 'tvmlint[watch]'") from None

    watched = [str(path) for path in paths] + [str(path) for path in projects]
    recursive = any(os.path.isdir(path) for path in watched)
    if not recursive:
        watched += [str(path) for path in flat]
    terminal = _isatty(sys.stdout)
    try:
        while True:
            if _missing(watched):
                # a watched folder removed (a branch switch, a rebuild): the watcher on it would
                # never see it come back, so wait for it and watch it anew
                print(f"tvmlint: waiting for {', '.join(_missing(watched))} to come back", file=sys.stderr, flush=True)
                while _missing(watched):
                    time.sleep(0.5)
                time.sleep(0.5)  # what comes back with it (a checkout writing its files) lands first
            # The check runs once the watcher is armed (its first yield, empty on a timeout), so a
            # change made after "watching for file changes" is never missed, however slow the start.
            armed = False
            try:
                for changes in watchfiles.watch(*watched, raise_interrupt=True, recursive=recursive,
                                                ignore_permission_denied=True,  # a project's unreadable folder
                                                watch_filter=watchfiles.PythonFilter(extra_extensions=(".toml",)),
                                                yield_on_timeout=True, rust_timeout=200):
                    if changes or not armed:
                        armed = True
                        _once(once, terminal)
                    if _missing(watched):
                        break
            except (OSError, RuntimeError):  # the watcher's own view of a path that went away
                if not _missing(watched):
                    raise
    except KeyboardInterrupt:
        pass
    return 0


def _missing(paths) -> list:
    return [path for path in paths if not os.path.exists(path)]


def _once(once: Callable[[], int], terminal: bool) -> None:
    from tvmlint.run.config import ConfigError

    if terminal:
        sys.stdout.write(CLEAR)
    try:
        once()
    except (ConfigError, UsageError) as error:  # a pyproject.toml half-edited, a path removed: wait for the next change
        print(f"tvmlint: error: {error}", file=sys.stderr)
    sys.stdout.flush()
    print("tvmlint: watching for file changes (Ctrl-C to stop)", file=sys.stderr, flush=True)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (OSError, ValueError):
        return False


def note_guessed_target(args: argparse.Namespace, resolver) -> None:
    """Say once per run, on stderr, when some file's target-version was neither set nor
    declared by its project but guessed (from the installed TVM, or the newest release
    tvmlint knows): the same code checked elsewhere could be judged against another release."""
    if quiet(args):
        return
    guessed = resolver.guessed_targets()
    if guessed:
        from tvmlint.run.config import GUESSED

        first = guessed[0]
        print(f"tvmlint: no target-version is set or declared: checked against TVM {first.target_text}, "
              f"{first.target_source[len(GUESSED):]}; set target-version in [tool.tvmlint], pass "
              "--target-version, or declare apache-tvm in the project's requirements", file=sys.stderr)


def report_over_time(findings) -> bool:
    """One `tvmlint: error:` line per file whose analysis ran past `max-analysis-time` (its TVM001 is
    in the report too); whether there was one. Such a file was not checked: the run exits 2."""
    from tvmlint.output.safe import printable_path
    from tvmlint.run.guards import over_time_line, timed_out

    stopped = timed_out(findings)
    for finding in stopped:
        print(f"tvmlint: error: {printable_path(over_time_line(finding))}", file=sys.stderr)
    return bool(stopped)
