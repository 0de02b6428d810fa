"""`tvmlint registry`: the installed TVM's passes and config keys, or (--verify) rules/ against them."""

from __future__ import annotations

import argparse
import json
import sys

from tvmlint.companion.options import add_companion_options
from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, UsageError
from tvmlint.frontends.commands.settings_options import comma_list


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "registry", help="show the installed TVM's passes and levels, or check rules/ against them (--verify)"
    )
    parser.add_argument("--opt-level", type=int, metavar="N", help="mark what a Sequential skips at this opt_level")
    parser.add_argument("--required", type=comma_list, default=[], metavar="NAMES", help="required_pass for --opt-level (comma-separated)")
    parser.add_argument("--disabled", type=comma_list, default=[], metavar="NAMES", help="disabled_pass for --opt-level (comma-separated)")
    parser.add_argument("--pass", dest="pass_name", metavar="NAME",
                        help="show one pass: tvm.relax.transform.X, relax.transform.X, transform.X, X or its registered name")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--verify", action="store_true", help="compare rules/ with the installed TVM; exit 1 on any difference")
    parser.add_argument(
        "--pipeline", metavar="NAME",
        help="run a pipeline on tvmlint's own small module under a PassInstrument and show which passes ran and "
             "which were skipped: default (relax's default pipeline for --target), tvm.compile, relax:NAME, or a "
             "pass or Sequential (tvm.relax.transform.FuseTIR, relax.transform.FuseTIR, transform.FuseTIR, FuseTIR)",
    )
    parser.add_argument("--target", default="llvm", metavar="TARGET", help="target for --pipeline (default llvm)")
    parser.add_argument("--print-ir-after", metavar="PASS", help="with --pipeline: print the module after each run of PASS")
    add_companion_options(parser)


def run(args: argparse.Namespace) -> int:
    from tvmlint.companion import CompanionError
    from tvmlint.companion.listing import Setting, pass_json, render, select
    from tvmlint.companion.registry import load_snapshot

    if args.opt_level is not None and args.opt_level < 0:
        raise UsageError("--opt-level must be 0 or more")
    if args.pipeline is not None:
        return _pipeline(args)
    if args.print_ir_after or args.target != "llvm":
        raise UsageError("--print-ir-after and --target go with --pipeline")
    try:
        snapshot = load_snapshot(args.tvm_python, args.tvm_timeout, use_cache=not args.no_registry_cache)
    except CompanionError as error:
        print(f"tvmlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.verify:
        return _verify(snapshot, args.format)
    setting = None
    if args.opt_level is not None or args.required or args.disabled:
        level = args.opt_level if args.opt_level is not None else 2  # PassContext's default
        setting = Setting(level, frozenset(_registered(snapshot, args.required)), frozenset(_registered(snapshot, args.disabled)))
    passes = select(snapshot, args.pass_name)
    if args.pass_name and not passes:
        from tvmlint.companion.names import unknown

        raise UsageError(unknown(snapshot, args.pass_name))
    if args.format == "json":
        data = {
            "tvm": {"version": snapshot.version, "location": snapshot.location, "python": snapshot.python},
            "setting": None if setting is None else {
                "opt_level": setting.opt_level, "required": sorted(setting.required), "disabled": sorted(setting.disabled)
            },
            "passes": [pass_json(p, setting) for p in passes],
        }
        if not args.pass_name:
            data["configs"] = [{"key": key, "type": snapshot.configs[key]} for key in sorted(snapshot.configs)]
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        render(snapshot, passes, setting, not args.pass_name, sys.stdout)  # rich on a terminal, tab-separated on a pipe
    return EXIT_CLEAN


def _pipeline(args: argparse.Namespace) -> int:
    from tvmlint.companion import CompanionError
    from tvmlint.companion.pipeline import (
        Setting,
        UnknownPipeline,
        missing_ir,
        render_plain,
        render_rich,
        request,
        run_pipeline,
        to_json,
    )

    if args.verify or args.pass_name:
        raise UsageError("--pipeline cannot be combined with --verify or --pass")
    if not args.pipeline.strip():
        raise UsageError("--pipeline needs a name")
    level = args.opt_level if args.opt_level is not None else 2  # PassContext's default
    names = _Names(args)
    try:
        name, required, disabled, after = names.pipeline(args.pipeline.strip()), args.required, args.disabled, args.print_ir_after
        if required or disabled:  # PassContext compares registered names
            required, disabled = _registered(names.snapshot(), required), _registered(names.snapshot(), disabled)
        if after:  # the child matches it with the registered names of what ran
            after = names.registered_or_as_is(after)
        run = run_pipeline(args.tvm_python, args.tvm_timeout, request(name, Setting(level, required, disabled), args.target, after))
    except UnknownPipeline as error:
        print(f"tvmlint: error: {names.with_closest(str(error), args.pipeline.strip())}", file=sys.stderr)
        return EXIT_ERROR
    except CompanionError as error:
        print(f"tvmlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.format == "json":
        json.dump(to_json(run), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif sys.stdout.isatty():
        render_rich(run, sys.stdout)
    else:
        render_plain(run, sys.stdout)
    problems = []
    if run.failed:
        problems.append(f"the pipeline raised on tvmlint's module after the passes shown: {run.failed}")
    if args.print_ir_after:
        why = missing_ir(run, args.print_ir_after)
        if why:
            problems.append(why)
    for problem in problems:
        print(f"tvmlint: error: {problem}", file=sys.stderr)
    return EXIT_ERROR if problems else EXIT_CLEAN


def _registered(snapshot, names) -> list:
    """The registered names PassContext compares `names` (as users write them) with."""
    from tvmlint.companion.names import NameNotFound, registered_name

    try:
        return [registered_name(snapshot, name) for name in names]
    except NameNotFound as error:
        raise UsageError(str(error)) from None


class _Names:
    """--pipeline's names as users write them, read against the registry snapshot, which is
    loaded only when a name needs it (`default` and `tvm.compile` run without it)."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.loaded = None

    def snapshot(self):
        from tvmlint.companion.registry import load_snapshot

        if self.loaded is None:
            self.loaded = load_snapshot(self.args.tvm_python, self.args.tvm_timeout, use_cache=not self.args.no_registry_cache)
        return self.loaded

    def pipeline(self, name: str) -> str:
        """The API path the child runs for `name`; `name` itself when it is a pipeline's, or
        when no pass has it (the child then says what it knows)."""
        from tvmlint.companion.names import find, spellings
        from tvmlint.companion.pipeline import names_a_pipeline

        if names_a_pipeline(name):
            return name
        paths = sorted({live.api for live in find(self.snapshot(), name) if live.api and name in spellings(live)})
        if len(paths) > 1:
            raise UsageError(f"--pipeline {name!r} names several passes ({', '.join(paths)}): give one")
        return paths[0] if paths else name

    def registered_or_as_is(self, name: str) -> str:
        from tvmlint.companion.names import NameNotFound, registered_name

        try:
            return registered_name(self.snapshot(), name)
        except NameNotFound:
            return name  # a pass only the pipeline builds: what ran says whether it was there

    def with_closest(self, message: str, name: str) -> str:
        from tvmlint.companion.instrumented import DEFAULT_NAMES
        from tvmlint.companion.names import closest
        from tvmlint.companion.pipeline import compile_names

        try:
            near = closest(self.snapshot(), name, (*DEFAULT_NAMES, *compile_names()))
        except Exception:  # the suggestion is a courtesy: the error stands without it
            near = []
        return message + (f"; the closest: {', '.join(near)}" if near else "")


def _verify(snapshot, output: str) -> int:
    from tvmlint.companion.verify import verify

    release = snapshot.release
    if release is None:
        print(f"tvmlint: error: cannot tell which release {snapshot.describe} is, so there is nothing to verify", file=sys.stderr)
        return EXIT_ERROR
    differences = verify(snapshot, release)
    if output == "json":
        json.dump(
            {"tvm": {"version": snapshot.version, "location": snapshot.location},
             "differences": [d.to_json() for d in differences]},
            sys.stdout, indent=2,
        )
        sys.stdout.write("\n")
    else:
        for difference in differences:
            cited = f"  [rules/ cites: {difference.source}]" if difference.source else ""
            print(f"{difference.subject}: {difference.problem}{cited}")
        counted = f"{len(snapshot.passes)} passes and {len(snapshot.configs)} config keys"
        if differences:
            print(f"{len(differences)} difference{'s' if len(differences) != 1 else ''} between rules/ and {snapshot.describe} ({counted} checked).")
        else:
            print(f"rules/ agrees with {snapshot.describe}: {counted} checked.")
    return EXIT_FINDINGS if differences else EXIT_CLEAN
