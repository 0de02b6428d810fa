"""`tvmlint check`: report findings."""

from __future__ import annotations

import argparse
import sys

from tvmlint.companion.options import add_companion_options
from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from tvmlint.frontends.commands.fix import add_fix_options
from tvmlint.frontends.commands.options import (
    add_run_options,
    add_selection_options,
    configured_format,
    existing_paths,
    overrides_from,
)
from tvmlint.frontends.commands.reporting import (
    add_output_options,
    note_guessed_target,
    progress_for,
    quiet,
    report_over_time,
)
from tvmlint.frontends.commands.stdin import add_stdin_option, check_stdin, reads_stdin
from tvmlint.output import FORMATS, format_named
from tvmlint.output.safe import printable_path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("check", help="check files and report findings")
    add_selection_options(parser)
    parser.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default=None,
                        help="how findings are written (default: output-format in [tool.tvmlint], else text)")
    add_stdin_option(parser)
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    add_run_options(parser)
    parser.add_argument("--confirm", action="store_true", help="confirm or refute each finding with the installed TVM (run in a child process)")
    add_companion_options(parser)
    parser.add_argument("--trace", metavar="TRACE.json",
                        help="mark each TVM101/TVM102/TVM108 finding confirmed, refuted or not reached by what a run "
                             "traced with `tvmlint trace --format json -o TRACE.json` did at its line")
    parser.add_argument("--fix", action="store_true", help="apply fixes, as `tvmlint fix` does")
    parser.add_argument("--daemon", action="store_true",
                        help="hand the run to `tvmlint daemon` (started in the background when none runs; "
                             "this run then checks in its own process)")
    parser.add_argument("--daemon-timeout", type=_seconds, metavar="SECONDS",
                        help="with --daemon: how long to wait for the daemon's reply before checking in this "
                             "process instead (default: $TVMLINT_DAEMON_TIMEOUT, else 60)")
    add_fix_options(parser)
    from tvmlint.frontends.commands.settings_options import add_show_options

    add_show_options(parser)
    add_output_options(parser)


def _seconds(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from tvmlint.frontends.commands.settings_actions import run_show

    shown = run_show(args)  # --show-settings, --show-files, --add-noqa
    if shown is not None:
        return shown
    if args.format is None:
        args.format = configured_format(args)
    args.format = format_named(args.format)
    from tvmlint.frontends.commands.reporting import check_usage, report_stream, watch

    check_usage(args, reads_stdin(args))
    if args.watch:
        return watch(existing_paths(args), lambda: _run(args), *_projects_of(args))
    with report_stream(args):
        return _run(args)


def _projects_of(args: argparse.Namespace):
    """The folders of the named paths' projects beyond what they name (their files are read as
    callers), those walked whole and those walked without subfolders."""
    from tvmlint.run.config import SettingsResolver
    from tvmlint.run.project_scope import roots_beyond

    roots = roots_beyond(existing_paths(args), SettingsResolver(overrides_from(args)))
    return [root.path for root in roots if root.recursive], [root.path for root in roots if not root.recursive]


def _run(args: argparse.Namespace) -> int:
    if args.fix or getattr(args, "diff", False):  # --diff implies --fix, as in ruff
        from tvmlint.frontends.commands import UsageError, fix

        if args.confirm:
            raise UsageError("--confirm cannot be combined with --fix")
        if args.trace is not None:
            raise UsageError("--trace cannot be combined with --fix: it marks the findings a check reports")
        if args.daemon:
            raise UsageError("--daemon cannot be combined with --fix: the daemon only reports")
        # what serves only --confirm or --daemon would do nothing here: `fix` does not take it either
        for flag, value in (("--tvm-python", args.tvm_python), ("--tvm-timeout", args.tvm_timeout),
                            ("--no-registry-cache", args.no_registry_cache), ("--daemon-timeout", args.daemon_timeout)):
            if value not in (None, False):
                raise UsageError(f"{flag} goes with --confirm or --daemon, which cannot be combined with --fix")

        return fix.apply(args)
    from tvmlint.output import renderer
    from tvmlint.run.config import SettingsResolver
    from tvmlint.run.runner import check_paths

    if reads_stdin(args):
        resolver = SettingsResolver(overrides_from(args))
        findings, source = check_stdin(args, resolver)
        files, sources = 1, ({source.shown: source.text} if source.text is not None else {})
    else:
        paths = existing_paths(args)
        resolver = SettingsResolver(overrides_from(args))
        progress = progress_for(args)
        try:
            report = check_paths(paths, resolver, jobs=args.jobs, use_cache=not args.no_cache, progress=progress, project=True)
        finally:
            if progress is not None:
                progress.close()
        for note in report.notes if not quiet(args) else ():  # they name directories of the tree
            print(f"tvmlint: {printable_path(note)}", file=sys.stderr)
        note_guessed_target(args, resolver)
        findings, files, sources = report.findings, report.files_seen, {}
    if args.confirm:
        from tvmlint.companion.options import (
            confirm_findings,
            print_refuted,
            target_resolver,
        )

        findings, refuted = confirm_findings(args, findings, target_resolver(resolver))
        print_refuted(refuted)
    trace_failed = False
    if args.trace is not None:
        findings, trace_failed = _traced(args.trace, findings)
    if args.statistics:
        from tvmlint.output import statistics

        statistics.render(findings, files, sys.stdout, args.format, args.unsafe_fixes, summary=not quiet(args))
    else:
        renderer(args.format)(findings, files, sys.stdout, sources=sources, summary=not quiet(args))
    if report_over_time(findings) or trace_failed:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _traced(path: str, findings):
    """(findings marked by the trace, whether the trace could not be read: one line, and the static findings)."""
    from tvmlint.companion import CompanionError
    from tvmlint.companion.trace_verdicts import load, mark

    try:
        return mark(findings, load(path)), False
    except CompanionError as error:
        print(f"tvmlint: error: {error}; the findings below are static only", file=sys.stderr)
        return findings, True
