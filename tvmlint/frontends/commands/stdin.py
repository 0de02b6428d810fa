"""Source from standard input (`--stdin-filename PATH -`), for editor and formatter integrations.

The text comes from stdin; PATH decides which pyproject.toml applies and names
the file in messages. The buffer stands for PATH in its project: the other files
of the project are read for the contexts they call it under (as in the language
server, and as `tvmlint check PATH` does). Without PATH it is judged alone.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

from tvmlint.frontends.commands import UsageError

STDIN = "-"


def add_stdin_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdin-filename", type=Path, metavar="PATH",
        help="read the source from stdin (path `-`); PATH picks the settings and names the file in messages",
    )


def reads_stdin(args: argparse.Namespace) -> bool:
    given = [str(path) for path in args.paths]
    if STDIN in given and given != [STDIN]:
        raise UsageError("`-` (read stdin) cannot be combined with other paths")
    return given == [STDIN] or (args.stdin_filename is not None and not given)


# (a NamedTuple, not a dataclass: `check --daemon`'s client imports this module, and has no
# other use for the dataclasses module, a tenth of what it imports)
class StdinSource(NamedTuple):
    path: Path  # where the buffer would live: settings are looked up from here
    shown: str  # how messages name it
    text: Optional[str]  # None when the bytes are not Python source text
    problem: Optional[str] = None
    where: Tuple[int, int] = (1, 1)  # of the problem


def read_stdin(args: argparse.Namespace, cwd: Path, limit: Optional[int] = None) -> StdinSource:
    from tvmlint.base.notebook import decode_file
    from tvmlint.base.source import TooLarge, read_stream, undecodable_at
    from tvmlint.run.tasks import display_path

    if args.stdin_filename is not None:
        path = args.stdin_filename
        shown = display_path(path, cwd)
    else:
        path, shown = cwd / "stdin.py", STDIN
    try:
        data = read_stream(sys.stdin.buffer, limit)  # bounded as a file is, by max-file-size
    except TooLarge:
        from tvmlint.run.guards import too_large_stream

        return StdinSource(path, shown, None, too_large_stream(limit), (1, 1))
    source, why = decode_file(path, data)
    if source is None:
        return StdinSource(path, shown, None, f"The input could not be decoded: {why}", undecodable_at(data))
    return StdinSource(path, shown, source.text)


def check_stdin(args: argparse.Namespace, resolver) -> Tuple[List, StdinSource]:
    """The findings for the buffer on stdin, and the source (for formats that quote lines)."""
    from tvmlint.run.engine import parse_error
    from tvmlint.run.runner import check_text, check_text_in_project

    named = args.stdin_filename if args.stdin_filename is not None else resolver.cwd / "stdin.py"
    source = read_stdin(args, resolver.cwd, resolver.for_path(named).max_file_bytes)
    settings = resolver.for_path(source.path)
    if settings.skips_named(source.path):  # force-exclude: an excluded file is never reported
        return [], source
    if source.text is None:
        return parse_error(source.shown, settings.codes_for(source.path), *source.where, source.problem), source
    if args.stdin_filename is None:  # no file it stands for: no project either
        return check_text(source.text, source.path, settings, shown=source.shown), source
    return check_text_in_project(source.text, source.path, resolver, shown=source.shown), source
