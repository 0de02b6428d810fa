"""Options several commands share."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import List

from tvmlint.frontends.commands.settings_options import comma_list


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {value}")
    return value


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    parser.add_argument("--target-version", metavar="X.Y", help="the TVM release to check against, e.g. 0.18")
    parser.add_argument("--select", type=comma_list, metavar="CODES", help="comma-separated rule codes or prefixes to check: replaces the configured selection, "
                        "its ignore and extend-select too, as ruff's --select")
    parser.add_argument("--extend-select", type=comma_list, default=[], metavar="CODES", help="rules to add to the selection")
    parser.add_argument("--ignore", type=comma_list, default=[], metavar="CODES", help="rules to leave out")
    parser.add_argument("--config", type=Path, metavar="PYPROJECT", help="use this file's [tool.tvmlint] for every file (an error when it has none)")
    # pre-commit can call a hook with no file names; checking `.` then would check the whole repository
    parser.add_argument("--no-default-path", action="store_true", help="with no PATHS, check nothing instead of `.` (for pre-commit hooks)")
    from tvmlint.frontends.commands.settings_options import add_settings_options

    add_settings_options(parser)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """How a run over files goes (`check`, `fix`): worker processes and the result cache."""
    parser.add_argument("--jobs", "-j", type=positive_int, metavar="N", help="worker processes (default: the number of cores)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache (.tvmlint_cache)")
    parser.add_argument("--no-prefilter", action="store_true",
                        help="analyse every file with every selected rule: slower, with the same findings")


def overrides_from(args: argparse.Namespace):
    from tvmlint.frontends.commands.settings_options import override_fields
    from tvmlint.run.config import Overrides

    return Overrides(
        target_version=args.target_version,
        select=tuple(args.select) if args.select is not None else None,
        ignore=tuple(args.ignore),
        extend_select=tuple(args.extend_select),
        config=args.config,
        prefilter=not getattr(args, "no_prefilter", False),
        **override_fields(args),
    )


def configured_format(args: argparse.Namespace) -> str:
    """`output-format` of the settings for the working directory (or of --config), as ruff
    reads its own: one format for the run, whatever the files' own settings say."""
    from tvmlint.run.config import SettingsResolver

    resolver = SettingsResolver(overrides_from(args))
    return resolver.for_directory(resolver.cwd).output_format or "text"


def existing_paths(args: argparse.Namespace) -> List[Path]:
    from tvmlint.frontends.commands import UsageError

    if not args.paths and getattr(args, "no_default_path", False):
        return []
    paths = args.paths or [Path(".")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    return paths
