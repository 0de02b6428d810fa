"""What `check --show-settings`, `--show-files` and `--add-noqa` do instead of a check."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional, Tuple


def run_show(args: argparse.Namespace) -> Optional[int]:
    """`--show-settings`, `--show-files` or `--add-noqa` when given: their exit code; else None."""
    if getattr(args, "show_settings", False):
        return show_settings(args)
    if getattr(args, "show_files", False):
        return show_files(args)
    if getattr(args, "add_noqa", False):
        return add_noqa(args)
    return None


def _refuse_with(args: argparse.Namespace, flag: str) -> None:
    from tvmlint.frontends.commands import UsageError

    for other, given in (("--fix", getattr(args, "fix", False)), ("--watch", getattr(args, "watch", False)),
                         ("--daemon", getattr(args, "daemon", False)), ("--confirm", getattr(args, "confirm", False))):
        if given:
            raise UsageError(f"{flag} cannot be combined with {other}")
    if getattr(args, "stdin_filename", None) is not None or [str(p) for p in args.paths] == ["-"]:
        raise UsageError(f"{flag} reads files, not stdin")


def show_settings(args: argparse.Namespace) -> int:
    from tvmlint.frontends.commands import EXIT_CLEAN
    from tvmlint.frontends.commands.options import existing_paths, overrides_from
    from tvmlint.run.config import SettingsResolver, describe_settings

    _refuse_with(args, "--show-settings")
    path = existing_paths(args)[0] if args.paths else Path(".")
    from tvmlint.run.project_scope import project_root

    resolver = SettingsResolver(overrides_from(args))
    settings = resolver.for_path(path)
    sys.stdout.write(describe_settings(settings, path, project_root(path, settings).describe()))
    return EXIT_CLEAN


def show_files(args: argparse.Namespace) -> int:
    from tvmlint.frontends.commands import EXIT_CLEAN
    from tvmlint.frontends.commands.options import existing_paths, overrides_from
    from tvmlint.output.safe import printable_path
    from tvmlint.run.config import SettingsResolver
    from tvmlint.run.runner import discover_files
    from tvmlint.run.tasks import display_path

    _refuse_with(args, "--show-files")
    resolver = SettingsResolver(overrides_from(args))
    found = discover_files(existing_paths(args), resolver)
    for note in found.problems:
        print(f"tvmlint: {printable_path(note)}", file=sys.stderr)
    # a path as walked from a relative PATH is shown as it is (resolving each costs more than the walk)
    shown_paths = (os.path.normpath(path) if not os.path.isabs(path) else display_path(path, resolver.cwd) for path in found.files)
    for shown in sorted(shown_paths):
        print(printable_path(shown))
    return EXIT_CLEAN


def add_noqa(args: argparse.Namespace) -> int:
    from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
    from tvmlint.frontends.commands.fix import diff_lines
    from tvmlint.frontends.commands.options import existing_paths, overrides_from
    from tvmlint.output.safe import printable_path
    from tvmlint.run.config import SettingsResolver
    from tvmlint.run.fixer import add_noqa_to_file, by_path
    from tvmlint.run.runner import check_paths

    _refuse_with(args, "--add-noqa")
    resolver = SettingsResolver(overrides_from(args))
    report = check_paths(existing_paths(args), resolver, jobs=args.jobs, use_cache=not args.no_cache, project=True)
    for note in report.notes:
        print(f"tvmlint: {printable_path(note)}", file=sys.stderr)
    from tvmlint.frontends.commands.reporting import report_over_time
    from tvmlint.run.guards import timed_out

    diff = getattr(args, "diff", False)
    # a file whose analysis was stopped gets no noqa: it would hide the stop for good
    failed = report_over_time(report.findings)
    stopped = timed_out(report.findings)
    added = 0
    for shown, findings in sorted(by_path([f for f in report.findings if f not in stopped]).items()):
        path = Path(shown) if Path(shown).is_absolute() else resolver.cwd / shown
        changed: List[Tuple[str, str]] = []
        count, problem = add_noqa_to_file(path, findings, write=not diff, changed=changed,
                                          limit=resolver.for_path(path).max_file_bytes)
        if problem:
            failed = True
            print(f"tvmlint: error: {printable_path(shown)}: {problem}", file=sys.stderr)
        for before, after in changed:  # --diff: shown, not written (as fix --diff)
            sys.stdout.writelines(diff_lines(shown, before, after))
        added += count
    verb = "Would add" if diff else "Added"
    print(f"{verb} {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    if failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if diff and added else EXIT_CLEAN
