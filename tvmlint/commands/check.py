"""`tvmlint check`: report findings."""

from __future__ import annotations

import argparse
import sys

from tvmlint.commands import EXIT_CLEAN, EXIT_FINDINGS
from tvmlint.commands.options import add_selection_options, existing_paths, overrides_from
from tvmlint.companion.options import add_companion_options


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("check", help="check files and report findings")
    add_selection_options(parser)
    parser.add_argument("--format", choices=("text", "concise", "json"), default="text")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    parser.add_argument("--confirm", action="store_true", help="confirm or refute each finding with the installed TVM (run in a child process)")
    add_companion_options(parser)


def run(args: argparse.Namespace) -> int:
    from tvmlint.config import SettingsResolver
    from tvmlint.output import renderer
    from tvmlint.runner import check_paths

    paths = existing_paths(args)
    resolver = SettingsResolver(overrides_from(args))
    report = check_paths(paths, resolver)
    for note in report.notes:
        print(f"tvmlint: {note}", file=sys.stderr)
    if args.confirm:
        from tvmlint.companion.options import confirm_findings, print_refuted, target_resolver

        report.findings, refuted = confirm_findings(args, report.findings, target_resolver(resolver))
        print_refuted(refuted)
    renderer(args.format)(report.findings, report.files_seen, sys.stdout)
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if report.findings else EXIT_CLEAN
