"""`tvmlint fix`: apply the fixes of the findings, then report what it fixed and what remains.

Safe fixes by default, unsafe ones too with `--unsafe-fixes`; `--diff` prints a
unified diff and writes nothing; `--stdin-filename PATH -` prints the fixed
source. Exit 0 when no finding remains, 1 when some do (with --diff: 1 when a
fix is pending, 0 when none, as ruff), 2 on a usage or internal error.
`tvmlint check --fix` runs this.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import List, Sequence

from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from tvmlint.frontends.commands.options import (
    add_run_options,
    add_selection_options,
    existing_paths,
    overrides_from,
)
from tvmlint.frontends.commands.stdin import add_stdin_option, reads_stdin
from tvmlint.output.safe import printable, printable_path


def add_fix_options(parser: argparse.ArgumentParser) -> None:
    """The options `fix` and `check --fix` share."""
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that may change behaviour (such as TVM101's PassContext wrapping)")
    parser.add_argument("--diff", action="store_true", help="print a unified diff of the fixes and write nothing")


def add_parser(subparsers) -> None:
    # the README calls `fix` the same as `check --fix`: the same flags, and the same refusals
    from tvmlint.frontends.commands.reporting import add_output_options
    from tvmlint.output import FORMATS

    parser = subparsers.add_parser("fix", help="apply fixes (safe ones; --unsafe-fixes for all) and report what remains")
    add_selection_options(parser)
    add_fix_options(parser)
    add_run_options(parser)
    parser.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default=None,
                        help="how the remaining findings are written (default: output-format in [tool.tvmlint], else text)")
    add_stdin_option(parser)
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    add_output_options(parser, watch=False)
    # what check's own flags would have said: `fix` is always a fix, never a watch, daemon or confirm run
    parser.set_defaults(fix=True, watch=False, daemon=False, confirm=False)


def run(args: argparse.Namespace) -> int:
    """`tvmlint fix`: what `check --fix` runs, with check's format, usage checks and report stream."""
    from tvmlint.frontends.commands.options import configured_format
    from tvmlint.frontends.commands.reporting import check_usage, report_stream
    from tvmlint.output import format_named

    if args.format is None:
        args.format = configured_format(args)
    args.format = format_named(args.format)
    check_usage(args, reads_stdin(args))
    with report_stream(args):
        return apply(args)


def apply(args: argparse.Namespace) -> int:
    """Fix and report, once the flags are known to go together (`fix` and `check --fix`)."""
    from tvmlint.run.config import SettingsResolver

    resolver = SettingsResolver(overrides_from(args))
    if reads_stdin(args):
        return _run_stdin(args, resolver)
    return _run_paths(args, existing_paths(args), resolver)


def _checker(resolver, path: Path, shown: str):
    from tvmlint.run.runner import check_text

    settings = resolver.for_path(path)
    return lambda text: check_text(text, path, settings, shown=shown)


def _run_paths(args: argparse.Namespace, paths: Sequence[Path], resolver) -> int:
    from tvmlint.frontends.commands.reporting import progress_for
    from tvmlint.run.fixer import by_path, fix_file, wanted
    from tvmlint.run.runner import check_paths

    unsafe, write = args.unsafe_fixes, not args.diff
    run = {"jobs": args.jobs, "use_cache": not args.no_cache, "project": True}
    before = _signed(paths)  # one file named: its state before the run read it
    progress = progress_for(args)  # a long run on a terminal: files checked / total
    try:
        report = check_paths(paths, resolver, **run, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    for note in report.notes:
        print(f"tvmlint: {printable_path(note)}", file=sys.stderr)
    from tvmlint.frontends.commands.reporting import note_guessed_target

    note_guessed_target(args, resolver)
    grouped = by_path(report.findings)
    # A run of one file, in a project of one file, followed nothing across modules: its findings
    # are what checking that file's text alone gives, so the fixer starts from them instead of
    # checking it again, and what remains after the fix is what its last re-check found (a fix
    # costs the run plus one check per round). With more files, an edit may change what another
    # file reports.
    alone = report.files_seen == 1 and not report.context_files and before is not None
    outcomes = []
    for shown, findings in grouped.items():
        if not any(wanted(f, unsafe) for f in findings):
            continue
        path = Path(shown) if Path(shown).is_absolute() else resolver.cwd / shown
        # the run's findings only if the file fix reads is the one the run read (the same signature)
        known = (findings, before) if alone else None
        outcome = fix_file(path, shown, _checker(resolver, path, shown), unsafe, write, known)
        outcomes.append(outcome)
        if args.diff and outcome.fix is not None and outcome.fix.changed:
            sys.stdout.writelines(diff_lines(shown, outcome.fix.original, outcome.fix.fixed))
    written = [o for o in outcomes if o.written]
    if written and alone and written[0].known_used:
        remaining = list(written[0].fix.remaining)
    elif written:
        remaining = check_paths(paths, resolver, **run).findings  # across modules again, from the files as written
    else:
        # nothing written (--diff, or nothing fixed): the fixed texts' own findings stand for those files
        changed = {o.shown: o.fix.remaining for o in outcomes if args.diff and o.fix is not None and o.fix.changed}
        remaining = [f for shown, fs in grouped.items() if shown not in changed for f in fs]
        remaining += [f for fs in changed.values() for f in fs]
        remaining.sort(key=lambda f: f.sort_key)
    fixed = _report(args, outcomes, remaining, report.files_seen)
    return _exit(args, remaining, fixed)


def _signed(paths: Sequence[Path]):
    """(signature, when taken) of the one regular file named, if its signature vouches for its
    content (tvmlint.base.filestate.trusted); else None."""
    import os

    from tvmlint.base.filestate import now_ns, signature, trusted

    if len(paths) != 1:
        return None
    seen = now_ns()
    try:
        status = os.stat(paths[0])
    except OSError:
        return None
    import stat

    sig = signature(status)
    return sig if stat.S_ISREG(status.st_mode) and trusted(sig, seen) else None


def _run_stdin(args: argparse.Namespace, resolver) -> int:
    from tvmlint.base.notebook import decode_file
    from tvmlint.base.source import NotByteExact, TooLarge, edited_bytes, read_stream
    from tvmlint.frontends.commands import UsageError
    from tvmlint.frontends.commands.stdin import STDIN
    from tvmlint.run.fixer import fix_text
    from tvmlint.run.tasks import display_path

    if args.stdin_filename is not None:
        path, shown = args.stdin_filename, display_path(args.stdin_filename, resolver.cwd)
    else:
        path, shown = resolver.cwd / "stdin.py", STDIN
    try:
        data = read_stream(sys.stdin.buffer, resolver.for_path(path).max_file_bytes)
    except TooLarge as error:  # `< /dev/zero` would fill memory: nothing is written
        raise UsageError(f"the input is {error.strerror} (max-file-size)") from None
    if resolver.for_path(path).skips_named(path):  # force-exclude: an excluded file is left as it is
        sys.stdout.buffer.write(data)
        return EXIT_CLEAN
    source, why = decode_file(path, data)
    if source is None:
        sys.stdout.buffer.write(data)  # a formatter pipe gets its input back unchanged
        print(f"tvmlint: {shown}: left untouched: could not be decoded: {why}", file=sys.stderr)
        return EXIT_FINDINGS
    result = fix_text(source.text, _checker(resolver, path, shown), args.unsafe_fixes)
    if args.diff:
        sys.stdout.writelines(diff_lines(shown, result.original, result.fixed))
    else:
        try:
            # as a file is written: only the edited stretch's bytes change, or none at all
            sys.stdout.buffer.write(edited_bytes(source, data, result.fixed))
        except (NotByteExact, UnicodeEncodeError) as error:
            sys.stdout.buffer.write(data)  # a formatter pipe gets its input back unchanged
            print(f"tvmlint: {shown}: left untouched: {error}", file=sys.stderr)
            return EXIT_FINDINGS
    sys.stdout.flush()
    from tvmlint.run.fixer import FileOutcome

    outcome = FileOutcome(path, shown, result, source)
    # the fixed source owns stdout: the report goes to stderr
    fixed = _report(args, [outcome], result.remaining, 1, stdin=True)
    return _exit(args, result.remaining, fixed)


def _exit(args: argparse.Namespace, remaining, fixed: int = 0) -> int:
    from tvmlint.frontends.commands.reporting import report_over_time

    if report_over_time(remaining):
        return EXIT_ERROR
    if getattr(args, "exit_zero", False):  # `check --fix --exit-zero`
        return EXIT_CLEAN
    if args.diff:
        # as ruff's: --diff is a CI gate on pending fixes, so they alone decide (a finding with no
        # fix is check's to report, and would fail the gate for ever)
        return EXIT_FINDINGS if fixed else EXIT_CLEAN
    if fixed and getattr(args, "exit_non_zero_on_fix", False):  # `check --fix --exit-non-zero-on-fix`
        return EXIT_FINDINGS
    return EXIT_FINDINGS if remaining else EXIT_CLEAN


def diff_lines(shown: str, before: str, after: str) -> List[str]:
    from tvmlint.output.unified_diff import unified_diff

    lines = unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=f"a/{shown}", tofile=f"b/{shown}"
    )
    return [line if line.endswith(("\n", "\r")) else line + "\n" for line in lines]


def _counted(findings) -> str:
    counts = Counter(f.code for f in findings)
    return ", ".join(f"{code} x{n}" if n > 1 else code for code, n in sorted(counts.items()))


def _report(args: argparse.Namespace, outcomes, remaining, files: int, stdin: bool = False) -> int:
    """What was fixed (stderr when stdout carries a diff or the fixed source), then what remains;
    the number of findings fixed. `check --fix -q` prints the remaining findings only, and
    `check --fix --show-fixes` lists the fixes per file and rule."""
    from tvmlint.output import renderer

    fmt = getattr(args, "format", "text")
    readable = fmt in ("text", "concise")
    # stdout carries the diff, the fixed source, or a machine-readable format: notes go to stderr
    notes = sys.stdout if (readable and not args.diff and not stdin) else sys.stderr
    verb = "Would fix" if args.diff else "Fixed"
    quiet, show_fixes = getattr(args, "quiet", 0) >= 1, getattr(args, "show_fixes", False)
    statistics = getattr(args, "statistics", False)  # counts per rule, not a line per file
    fixed_total, fixed_files, sources, applied = 0, 0, {}, {}
    for outcome in outcomes:
        shown = printable_path(outcome.shown)
        if outcome.problem:
            print(f"tvmlint: {shown}: {outcome.problem}", file=sys.stderr)
        result = outcome.fix
        if result is None:
            continue
        for finding, why in result.discarded:
            print(
                f"tvmlint: {shown}:{finding.start.line}:{finding.start.column}: {finding.code} fix not applied: {printable(why)}",
                file=sys.stderr,
            )
        if result.applied and (outcome.written or args.diff or stdin):
            fixed_total += len(result.applied)
            fixed_files += 1
            sources[outcome.shown] = result.fixed
            applied[shown] = result.applied
            if not quiet and not show_fixes and not statistics:
                print(f"{shown}: {verb.lower()} {len(result.applied)} ({_counted(result.applied)})", file=notes)
    if statistics:
        from tvmlint.output.statistics import render

        # as ruff's `--fix --statistics`: the rules of what remains, then the closing line
        render(remaining, files, sys.stderr if stdin else sys.stdout, fmt, args.unsafe_fixes, summary=False)
    elif stdin and remaining:
        renderer("concise")(remaining, files, sys.stderr, summary=not quiet)
    elif not args.diff and not stdin and (remaining or not readable):
        renderer(fmt)(remaining, files, sys.stdout, sources=sources, summary=not quiet)
    if quiet:
        return fixed_total
    if show_fixes and applied:
        _show_fixes(applied, verb, fixed_total, notes)
    print(
        f"{verb} {fixed_total} finding{'s' if fixed_total != 1 else ''} in {fixed_files} file{'s' if fixed_files != 1 else ''}; "
        f"{len(remaining)} remaining.",
        file=notes,
    )
    return fixed_total


def _show_fixes(applied, verb: str, total: int, stream) -> None:
    """As ruff's --show-fixes: each file, and in it how many findings of each rule were fixed."""
    from tvmlint.knowledge.catalog import load_catalog

    catalog = load_catalog()
    width = max(len(str(n)) for findings in applied.values() for n in Counter(f.code for f in findings).values())
    print(f"{verb} {total} finding{'s' if total != 1 else ''}:", file=stream)
    for shown in sorted(applied):
        print(f"- {shown}:", file=stream)
        counts = sorted(Counter(f.code for f in applied[shown]).items(), key=lambda item: (-item[1], item[0]))
        for code, count in counts:
            name = catalog[code].name if code in catalog else code
            print(f"    {str(count).rjust(width)} \u00d7 {code} ({name})", file=stream)
