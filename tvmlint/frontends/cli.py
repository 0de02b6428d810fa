"""The `tvmlint` command. Exit codes: 0 clean, 1 findings left, 2 usage or internal error."""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import sys
from typing import Optional, Sequence

from tvmlint import __version__
from tvmlint.frontends.commands import COMMANDS, EXIT_ERROR, EXIT_FINDINGS, UsageError


class OneLineParser(argparse.ArgumentParser):
    """argparse, whose usage errors are one line (`tvmlint: error: ...`, exit 2) like every other
    error of tvmlint's, ending with the short usage of the command that refused the flag, as
    ruff's (`Usage: ruff check [OPTIONS] [FILES]...`): argparse's usage block of `check` runs
    to 30 lines, and the top level's says nothing of the command's options."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_ERROR, f"tvmlint: error: {message} (usage: {self.short_usage()}; `{self.prog} --help` lists the options)\n")

    def short_usage(self) -> str:
        words = [self.prog]
        if any(action.option_strings for action in self._actions):
            words.append("[OPTIONS]")
        for action in self._get_positional_actions():
            name = action.metavar or action.dest.upper()
            words.append({"*": f"[{name} ...]", "?": f"[{name}]", "+": f"{name} [{name} ...]"}.get(action.nargs, name))
        return " ".join(words)


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser; given the `command` argv names, only that command's options are built
    (the others' modules, which a run does not use, are not imported)."""
    parser = OneLineParser(
        prog="tvmlint",
        description="Find Apache TVM pass configurations that silently do something else.",
    )
    parser.add_argument("--version", action="version", version=f"tvmlint {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    parser.set_defaults(commands=subparsers.choices)
    for name in COMMANDS:
        if command is None or name == command:
            importlib.import_module(f"tvmlint.frontends.commands.{name}").add_parser(subparsers)
        else:
            subparsers.add_parser(name)
    return parser


class _ClosedStream(io.TextIOBase):
    """Stands for a standard stream the shell closed (`>&-`, `2>&-`): Python leaves None there.
    Writing to it fails as a closed descriptor does, so a report meant for it ends the run with
    one line and exit 2 instead of an AttributeError."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "the stream is closed")

    def isatty(self) -> bool:
        return False


class _DiscardingStream(_ClosedStream):
    """Stands for a closed stderr: the messages are lost, and nothing else changes (the report
    and the exit code are the run's)."""

    def write(self, text: str) -> int:
        return len(text)


# what a write of the output can fail with that is the output's, not tvmlint's: a full disk,
# a closed or broken descriptor, a file grown past its limit
_OUTPUT_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EBADF, errno.EIO, errno.EFBIG})


def _cannot_write(error: OSError) -> bool:
    return error.errno in _OUTPUT_ERRORS and getattr(error, "filename", None) is None


def main(argv: Optional[Sequence[str]] = None) -> int:
    # a closed stderr swallows the messages, and a closed stdout fails the report it is meant for
    if sys.stderr is None:
        sys.stderr = _DiscardingStream()
    if sys.stdout is None:
        sys.stdout = _ClosedStream()
    try:
        return _main(argv)
    except OSError as error:
        if not _cannot_write(error):
            raise
        _report_unwritable(error)
        return EXIT_ERROR


def _report_unwritable(error: OSError) -> None:
    try:
        print(f"tvmlint: error: could not write the output: {error.strerror}", file=sys.stderr)
    except OSError:
        pass  # stderr is closed or full as well: the exit code says it


def _main(argv: Optional[Sequence[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # the command comes first: the top level takes no option but --help and --version
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            # argparse leaves a flag the command does not know to the top level, whose usage
            # is not the one that helps: the command's own parser says it
            refuser = args.commands.get(args.command, parser) if args.command else parser
            refuser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exit_:  # argparse: 0 for --help/--version, 2 for usage
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    from tvmlint.frontends import daemon

    if not daemon.SERVING:  # the daemon has its own SIGTERM handler, set once for all its runs
        _terminate_like_interrupt()
    import os

    try:  # every path is shown and looked up from it: a shell left in a deleted directory has none
        os.getcwd()
    except FileNotFoundError:
        print("tvmlint: error: the working directory no longer exists", file=sys.stderr)
        return EXIT_ERROR
    from tvmlint.output.safe import encode_anything

    encode_anything(sys.stdout, sys.stderr)
    try:
        if getattr(args, "daemon", False) and not daemon.SERVING:
            from tvmlint.frontends.daemon.client import forward

            code = forward(argv, args)
            if code is not None:
                return code
        return importlib.import_module(f"tvmlint.frontends.commands.{args.command}").run(args)
    except UsageError as error:
        print(f"tvmlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # the reader went away (`tvmlint check | head`): stop quietly, as the text format's
        # rich always has (exit 1: there was more to print, so there were findings)
        _stdout_to_devnull()
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        print("tvmlint: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        if not _cannot_write(error):
            return _internal(error)
        _report_unwritable(error)
        return EXIT_ERROR
    except Exception as error:
        # imported here: a run handed to the daemon does not load the configuration
        from tvmlint.run.config import ConfigError

        if isinstance(error, ConfigError):
            print(f"tvmlint: error: {error}", file=sys.stderr)
            return EXIT_ERROR
        return _internal(error)


def _internal(error: Exception) -> int:
    # a bug of ours: one clear line, not a traceback
    print(f"tvmlint: internal error: {type(error).__name__}: {error} (please report it)", file=sys.stderr)
    return EXIT_ERROR


def entry() -> None:
    """The `tvmlint` command: `main`, then out of the process without tearing it down.

    Freeing, one object at a time, everything a run built (libcst and its trees, the rules,
    the knowledge tables) takes about 30 ms at exit: a tenth of a one-file run, the pre-commit
    case. Nothing is left to do by then (workers joined, cache and fixed files written), so
    the output is flushed and the process leaves, as mypy's does.
    """
    import os

    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError as error:
            # what was still buffered could not be written (a full disk): the run failed to report
            if stream is sys.stdout and _cannot_write(error):
                _report_unwritable(error)
                code = EXIT_ERROR
        except ValueError:  # the reader went away (a broken pipe), or the stream was closed
            pass
    os._exit(code)


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of what is still buffered
    does not fail again ("Exception ignored ... BrokenPipeError")."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _terminate_like_interrupt() -> None:
    """SIGTERM unwinds like Ctrl-C, so `fix` removes its temporary file and never leaves half a write."""
    import os
    import signal

    def handler(signum, frame):
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (main() called from a thread): leave it as it is
        return
    # forked workers die on SIGTERM as usual (the pool stops them with it)
    os.register_at_fork(after_in_child=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))


if __name__ == "__main__":
    entry()
