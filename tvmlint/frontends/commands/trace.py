"""`tvmlint trace -- python SCRIPT [ARGS...]`: run the user's script under a PassInstrument, and say
which passes ran and which a Sequential's gate skipped at each line of it that ran a pipeline.

The one command of tvmlint that runs the user's code (every other one only reads it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tvmlint.frontends.commands import EXIT_ERROR, UsageError

DESCRIPTION = """\
Runs your Python command (this is the one tvmlint command that executes your code),
with a PassInstrument added to every PassContext it creates and to the default one,
without changing your code. For every pipeline that runs it records the line of your
code that started it, the context (opt_level, required_pass, disabled_pass, config),
each pass that ran and its time, and each pass a Sequential's gate skipped, and why.
The trace is written however the script ends (an exception, sys.exit, --timeout,
Ctrl-C), and tvmlint exits with the script's exit code (128+N when signal N ended it;
2 when tvmlint could not run it or --timeout stopped it).

examples:
  tvmlint trace -- python model.py --batch 4
  tvmlint trace --format json -o trace.json -- python -m mypkg.build
  tvmlint trace -m mypkg.build -- --epochs 1
  tvmlint trace --print-ir-after FuseTIR --timing -- python model.py
  tvmlint check --trace trace.json model.py
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "trace", help="run YOUR script (the one command that executes your code) and record which passes ran "
                      "and which were skipped, at which line",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="tvmlint trace [options] -- python SCRIPT [ARGS...] | python -m MODULE [ARGS...]\n"
              "       tvmlint trace [options] -m MODULE [ARGS...]",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: a tree per line of your code; json: the trace document (docs/trace-format.md)")
    parser.add_argument("-o", "--output-file", type=Path, metavar="PATH",
                        help="write the trace to PATH (kept complete while the script runs: a file is replaced whole, "
                             "a device, FIFO or symlink's target written as it is); the script's output stays on the terminal")
    parser.add_argument("--print-ir-after", action="append", default=[], metavar="PASS",
                        help="write the module after each run of PASS to --ir-dir, one numbered file per run "
                             "(FuseTIR, relax.transform.FuseTIR or the registered name; repeatable)")
    parser.add_argument("--print-ir-after-all", action="store_true", help="write the module after every pass")
    parser.add_argument("--ir-dir", type=Path, default=Path(".tvmlint/ir"), metavar="DIR",
                        help="where --print-ir-after writes (default .tvmlint/ir)")
    parser.add_argument("--timing", action="store_true", help="add the time spent in each pass, summed over the run")
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                        help="stop the script (and what it forked) after this long; the trace holds what ran until then")
    parser.add_argument("-m", dest="module", metavar="MODULE",
                        help="run MODULE as `python -m MODULE` with tvmlint's interpreter; its ARGS follow (after `--` when the first starts with -)")
    parser.add_argument("script_command", nargs=argparse.REMAINDER, metavar="COMMAND", help="the command to run, after `--`")


def _seconds(text: str) -> float:
    from tvmlint.companion.process import seconds

    value = seconds(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from tvmlint.companion import CompanionError, trace_run
    from tvmlint.companion.process import default_timeout
    from tvmlint.companion.trace_command import parse
    from tvmlint.frontends.commands.trace_report import keep, rewritable, write, writer
    from tvmlint.knowledge.target import instruments_since

    command = args.script_command[1:] if args.script_command[:1] == ["--"] else args.script_command
    if args.module is not None:
        command = ["-m", args.module, *command]
    _check_output(args)
    try:
        parsed = parse(command, sys.executable)
        _not_the_script(args.output_file, parsed.script)
        where = trace_run.check_tvm(parsed.python, default_timeout())
    except CompanionError as error:
        raise UsageError(str(error)) from None
    options = {"ir_after": _names(args.print_ir_after, where), "ir_after_all": args.print_ir_after_all}
    if args.print_ir_after or args.print_ir_after_all:
        try:
            args.ir_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--ir-dir {args.ir_dir}: {error.strerror or error}") from None
        options["ir_dir"] = str(args.ir_dir.resolve())
        options["ir_first"] = _next_number(args.ir_dir)
    to_stdout = args.output_file is None
    update = writer(args) if rewritable(args.output_file) else None
    try:
        # the report goes to stdout: the script's own output goes to stderr, so the two never mix
        outcome = trace_run.run(parsed, options, args.timeout, stdout=_stderr_fd() if to_stdout else None,
                                on_update=update)
    except CompanionError as error:
        raise UsageError(str(error)) from None
    doc = outcome.document
    if doc.get("unsupported"):
        version = (doc.get("tvm") or {}).get("version")
        print(f"tvmlint: error: the installed TVM{' ' + version if version else ''} cannot be traced: "
              f"{doc['unsupported']} (TVM {instruments_since()} added instruments)", file=sys.stderr)
        return EXIT_ERROR
    write(args, doc)
    keep(doc)
    _say_how_it_ended(args, outcome)
    _say_missing_ir(args, doc, where)
    if outcome.timed_out:
        return EXIT_ERROR
    return trace_run.exit_status(outcome)


def _next_number(folder: Path) -> int:
    """The number this run's first IR file takes: after those an earlier trace left there (never overwritten)."""
    import re

    numbers = [int(found.group(1)) for entry in folder.iterdir() if (found := re.match(r"(\d+)_", entry.name))]
    return max(numbers, default=0) + 1


def _stderr_fd():
    """Where the script's stdout goes when the trace takes stdout: stderr, or nowhere when stderr is closed."""
    import subprocess

    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return subprocess.DEVNULL


def _not_the_script(output, script) -> None:
    import os

    if output is not None and script is not None and output.exists() and os.path.samefile(output, script):
        raise UsageError(f"--output-file {output} is the script itself: the trace would overwrite it")


def _check_output(args: argparse.Namespace) -> None:
    if args.output_file is not None and args.output_file.is_dir():
        raise UsageError(f"--output-file {args.output_file} is a directory")


def _names(wanted, where: dict):
    if not wanted:
        return []
    from tvmlint.base.versions import release_of_package
    from tvmlint.companion.trace_names import registered_names

    return registered_names(wanted, release_of_package(where.get("version") or ""))


def _say_missing_ir(args: argparse.Namespace, doc: dict, where: dict) -> None:
    from tvmlint.base.versions import release_of_package
    from tvmlint.companion.trace_names import missing_ir

    release = release_of_package(where.get("version") or "")
    for wanted in args.print_ir_after:
        why = missing_ir(doc, wanted, release)
        if why:
            print(f"tvmlint: {why}", file=sys.stderr)


def _say_how_it_ended(args: argparse.Namespace, outcome) -> None:
    doc = outcome.document
    if outcome.timed_out:
        print(f"tvmlint: the script ran past --timeout {args.timeout:g}s and was stopped; the trace holds what ran until then",
              file=sys.stderr)
    elif outcome.interrupted:
        print("tvmlint: interrupted; the trace holds what ran until then", file=sys.stderr)
    if doc.get("tvm") is None:
        print("tvmlint: the script never imported tvm: no pass ran, there is nothing to trace", file=sys.stderr)
    for problem in doc.get("problems", ()):
        print(f"tvmlint: {problem}", file=sys.stderr)
