"""The `tvmlint` command. Exit codes: 0 clean, 1 findings left, 2 usage or internal error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from tvmlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A mistake in how tvmlint was called; printed as one line, exit 2."""


def _codes(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    parser.add_argument("--target-version", metavar="X.Y", help="the TVM release to check against, e.g. 0.18")
    parser.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated rule codes or prefixes to check (replaces the defaults)")
    parser.add_argument("--extend-select", type=_codes, default=[], metavar="CODES", help="rules to add to the selection")
    parser.add_argument("--ignore", type=_codes, default=[], metavar="CODES", help="rules to leave out")
    parser.add_argument("--config", type=Path, metavar="PYPROJECT", help="use this pyproject.toml for every file")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tvmlint",
        description="Find Apache TVM pass configurations that silently do something else.",
    )
    parser.add_argument("--version", action="version", version=f"tvmlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="check files and report findings")
    add_selection_options(check)
    check.add_argument("--format", choices=("text", "concise", "json"), default="text")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")

    rule = commands.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", help="a rule code such as TVM101")

    commands.add_parser("rules", help="list every rule")
    return parser


def run_check(args: argparse.Namespace) -> int:
    from tvmlint.config import Overrides, SettingsResolver
    from tvmlint.output import renderer
    from tvmlint.runner import check_paths

    paths = args.paths or [Path(".")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    overrides = Overrides(
        target_version=args.target_version,
        select=tuple(args.select) if args.select is not None else None,
        ignore=tuple(args.ignore),
        extend_select=tuple(args.extend_select),
        config=args.config,
    )
    resolver = SettingsResolver(overrides)
    report = check_paths(paths, resolver)
    for note in report.notes:
        print(f"tvmlint: {note}", file=sys.stderr)
    renderer(args.format)(report.findings, report.files_seen, sys.stdout)
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if report.findings else EXIT_CLEAN


def run_rule(args: argparse.Namespace) -> int:
    from tvmlint.catalog import load_catalog

    catalog = load_catalog()
    code = args.code.upper()
    if code not in catalog:
        raise UsageError(f"unknown rule {args.code!r}; `tvmlint rules` lists them")
    sys.stdout.write(catalog[code].render_markdown())
    return EXIT_CLEAN


def run_rules(args: argparse.Namespace) -> int:
    from tvmlint.catalog import load_catalog

    rows = [("code", "name", "severity", "fix", "default", "summary")]
    for info in load_catalog().values():
        rows.append((info.code, info.name, info.severity, info.fix or "-", "yes" if info.default else "no", info.summary))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[5])
    return EXIT_CLEAN


HANDLERS = {"check": run_check, "rule": run_rule, "rules": run_rules}


def main(argv: Optional[Sequence[str]] = None) -> int:
    from tvmlint.config import ConfigError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: 0 for --help/--version, 2 for usage
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return HANDLERS[args.command](args)
    except (UsageError, ConfigError) as error:
        print(f"tvmlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("tvmlint: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # a bug of ours: one clear line, not a traceback
        print(f"tvmlint: internal error: {type(error).__name__}: {error} (please report it)", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
