"""The settings flags ruff users reach for, and the commands of `check` that only show or write
settings' effects: `--show-settings`, `--show-files`, `--add-noqa`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional


def _codes(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size in megabytes, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a size in megabytes (0: no limit), got {text!r}")
    return value


def add_settings_options(parser: argparse.ArgumentParser) -> None:
    """Flags that override `[tool.tvmlint]` settings (`check` and `fix`)."""
    parser.add_argument("--extend-ignore", type=_codes, default=[], metavar="CODES", help="more rules to leave out (as --ignore)")
    parser.add_argument("--fixable", type=_codes, metavar="CODES", help="only these rules' fixes are offered and applied (default: ALL)")
    parser.add_argument("--extend-fixable", type=_codes, default=[], metavar="CODES", help="rules to add to --fixable")
    parser.add_argument("--unfixable", type=_codes, default=[], metavar="CODES", help="rules whose fixes are never offered or applied")
    parser.add_argument("--per-file-ignores", action="append", metavar="PATTERN:CODES",
                        help='rules to leave out in matching files, e.g. "tests/*:TVM401" (repeatable; replaces the pyproject tables)')
    parser.add_argument("--extend-per-file-ignores", action="append", default=[], metavar="PATTERN:CODES",
                        help="as --per-file-ignores, added to the pyproject tables")
    # each pair shares its destination: the last one given wins (a hook's `args` can undo its entry's flag)
    parser.add_argument("--force-exclude", dest="force_exclude", action="store_true", default=None,
                           help="leave out excluded files even when named on the command line or with --stdin-filename (pre-commit, editors)")
    parser.add_argument("--no-force-exclude", dest="force_exclude", action="store_false", default=None)
    parser.add_argument("--respect-gitignore", dest="respect_gitignore", action="store_true", default=None,
                           help="leave out what .gitignore, .ignore, .git/info/exclude and git's global excludes ignore (the default)")
    parser.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false", default=None)
    parser.add_argument("--exclude", type=_codes, metavar="PATTERNS",
                        help="comma-separated file patterns to leave out; replaces `exclude` and its default list")
    parser.add_argument("--extend-exclude", type=_codes, action="extend", default=[], metavar="PATTERNS",
                        help="comma-separated file patterns to leave out, added to `exclude`")
    parser.add_argument("--max-file-size", type=_megabytes, metavar="MB",
                        help="files larger than this are not parsed: TVM001 says so (default 5; 0: no limit)")


def add_show_options(parser: argparse.ArgumentParser) -> None:
    """`check`'s flags that report on settings instead of checking."""
    parser.add_argument("--show-settings", action="store_true",
                        help="print the settings used for the first PATH (a file) and where each comes from, then exit")
    parser.add_argument("--show-files", action="store_true", help="print the files a check of PATHS would read, then exit")
    parser.add_argument("--add-noqa", action="store_true",
                        help="add `# noqa: CODE` to every line with a finding (merged with an existing noqa comment), then exit")


def override_fields(args: argparse.Namespace) -> dict:
    """The `Overrides` fields these flags set."""
    per_file = getattr(args, "per_file_ignores", None)
    fixable = getattr(args, "fixable", None)
    return {
        "extend_ignore": tuple(getattr(args, "extend_ignore", ())),
        "fixable": tuple(fixable) if fixable is not None else None,
        "extend_fixable": tuple(getattr(args, "extend_fixable", ())),
        "unfixable": tuple(getattr(args, "unfixable", ())),
        "per_file_ignores": tuple(per_file) if per_file is not None else None,
        "extend_per_file_ignores": tuple(getattr(args, "extend_per_file_ignores", ())),
        "force_exclude": getattr(args, "force_exclude", None),
        "respect_gitignore": getattr(args, "respect_gitignore", None),
        "max_file_size": getattr(args, "max_file_size", None),
        "exclude": tuple(args.exclude) if getattr(args, "exclude", None) is not None else None,
        "extend_exclude": tuple(getattr(args, "extend_exclude", ())),
    }


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
    from tvmlint.commands import UsageError

    for other, given in (("--fix", getattr(args, "fix", False)), ("--watch", getattr(args, "watch", False)),
                         ("--daemon", getattr(args, "daemon", False)), ("--confirm", getattr(args, "confirm", False))):
        if given:
            raise UsageError(f"{flag} cannot be combined with {other}")
    if getattr(args, "stdin_filename", None) is not None or [str(p) for p in args.paths] == ["-"]:
        raise UsageError(f"{flag} reads files, not stdin")


def show_settings(args: argparse.Namespace) -> int:
    from tvmlint.commands import EXIT_CLEAN
    from tvmlint.commands.options import existing_paths, overrides_from
    from tvmlint.config import SettingsResolver, describe_settings

    _refuse_with(args, "--show-settings")
    path = existing_paths(args)[0] if args.paths else Path(".")
    resolver = SettingsResolver(overrides_from(args))
    sys.stdout.write(describe_settings(resolver.for_path(path), path))
    return EXIT_CLEAN


def show_files(args: argparse.Namespace) -> int:
    from tvmlint.commands import EXIT_CLEAN
    from tvmlint.commands.options import existing_paths, overrides_from
    from tvmlint.config import SettingsResolver
    from tvmlint.output.safe import printable_path
    from tvmlint.runner import discover_files
    from tvmlint.tasks import display_path

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
    from tvmlint.commands import EXIT_CLEAN, EXIT_ERROR
    from tvmlint.commands.options import existing_paths, overrides_from
    from tvmlint.config import SettingsResolver
    from tvmlint.fixer import by_path
    from tvmlint.noqa import add_noqa_to_file
    from tvmlint.output.safe import printable_path
    from tvmlint.runner import check_paths

    _refuse_with(args, "--add-noqa")
    resolver = SettingsResolver(overrides_from(args))
    report = check_paths(existing_paths(args), resolver, jobs=args.jobs, use_cache=not args.no_cache)
    for note in report.notes:
        print(f"tvmlint: {printable_path(note)}", file=sys.stderr)
    added, failed = 0, False
    for shown, findings in sorted(by_path(report.findings).items()):
        path = Path(shown) if Path(shown).is_absolute() else resolver.cwd / shown
        count, problem = add_noqa_to_file(path, findings)
        if problem:
            failed = True
            print(f"tvmlint: {printable_path(shown)}: {problem}", file=sys.stderr)
        added += count
    print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    return EXIT_ERROR if failed else EXIT_CLEAN
