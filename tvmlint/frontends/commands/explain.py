"""`tvmlint explain FILE:LINE[:COL]`: the PassContext at a pass call, Sequential run or build, and what runs under it."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, UsageError

_PLACE = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?::(?P<column>\d+))?$")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "explain", help="show the PassContext at a pass call, Sequential run or build, and which passes run there"
    )
    parser.add_argument("place", metavar="FILE:LINE[:COL]", help="where the call is (line and column from 1)")
    parser.add_argument("--target-version", metavar="X.Y", help="the TVM release to explain against, e.g. 0.18")
    parser.add_argument("--config", type=Path, metavar="PYPROJECT", help="use this pyproject.toml")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--project", type=Path, metavar="DIR",
        help="where callers are looked for (default: the directory of the file's pyproject.toml, "
             "else the working directory when the file is under it, else the file's directory)",
    )


def parse_place(text: str):
    found = _PLACE.match(text)
    if found is None:
        raise UsageError(f"expected FILE:LINE[:COL], got {text!r}")
    column = found.group("column")
    return Path(found.group("path")), int(found.group("line")), int(column) if column else None


def run(args: argparse.Namespace) -> int:
    from tvmlint.run.config import Overrides, SettingsResolver
    from tvmlint.frontends.explain import NotASite, explain_at, render_rich, render_text

    path, line, column = parse_place(args.place)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    if args.project is not None and not args.project.is_dir():
        raise UsageError(f"--project {args.project}: not a directory")
    resolver = SettingsResolver(Overrides(target_version=args.target_version, config=args.config))
    try:
        explanation = explain_at(path, line, column, resolver, root=args.project)
    except NotASite as error:
        print(f"tvmlint: {error}", file=sys.stderr)
        return EXIT_ERROR
    except SyntaxError as error:
        print(f"tvmlint: {path}: cannot be parsed ({error})", file=sys.stderr)
        return EXIT_ERROR
    if args.format == "json":
        json.dump(explanation.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif sys.stdout.isatty():
        from rich.console import Console

        render_rich(explanation, Console(highlight=False))
    else:
        sys.stdout.write(render_text(explanation))
    return EXIT_CLEAN
