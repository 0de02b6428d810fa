"""The settings flags ruff users reach for (what they do when given instead of a check is in
`tvmlint.frontends.commands.settings_actions`)."""

from __future__ import annotations

import argparse
from typing import List


def comma_list(text: str) -> List[str]:
    """A comma-separated flag value (`--select TVM101,TVM2`), blanks dropped."""
    return [part.strip() for part in text.split(",") if part.strip()]


def _megabytes(text: str) -> float:
    return _limit(text, "a size in megabytes")


def _seconds(text: str) -> float:
    return _limit(text, "a time in seconds")


def _limit(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected {what} (0: no limit), got {text!r}")
    return value


def add_settings_options(parser: argparse.ArgumentParser) -> None:
    """Flags that override `[tool.tvmlint]` settings (`check` and `fix`)."""
    parser.add_argument("--extend-ignore", type=comma_list, default=[], metavar="CODES", help="more rules to leave out (as --ignore)")
    parser.add_argument("--fixable", type=comma_list, metavar="CODES", help="only these rules' fixes are offered and applied (default: ALL)")
    parser.add_argument("--extend-fixable", type=comma_list, default=[], metavar="CODES", help="rules to add to --fixable")
    parser.add_argument("--unfixable", type=comma_list, default=[], metavar="CODES", help="rules whose fixes are never offered or applied")
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
    parser.add_argument("--exclude", type=comma_list, metavar="PATTERNS",
                        help="comma-separated file patterns to leave out; replaces `exclude` and its default list")
    parser.add_argument("--extend-exclude", type=comma_list, action="extend", default=[], metavar="PATTERNS",
                        help="comma-separated file patterns to leave out, added to `exclude`")
    parser.add_argument("--max-file-size", type=_megabytes, metavar="MB",
                        help="files larger than this are not parsed: TVM001 says so (default 5; 0: no limit)")
    parser.add_argument("--max-analysis-time", type=_seconds, metavar="SECONDS",
                        help="a file whose analysis takes longer is stopped: TVM001 says so, and the run exits 2 (default 60; 0: no limit)")


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
        "max_analysis_time": getattr(args, "max_analysis_time", None),
        "exclude": tuple(args.exclude) if getattr(args, "exclude", None) is not None else None,
        "extend_exclude": tuple(getattr(args, "extend_exclude", ())),
    }
