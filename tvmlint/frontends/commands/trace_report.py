"""Where `tvmlint trace` puts the trace: stdout, --output-file (rewritten whole while the script runs),
and .tvmlint/trace.json, kept for `explain` and the editor's hover."""

from __future__ import annotations

import argparse
import json
import sys

from tvmlint.frontends.commands import UsageError


def rewritable(path) -> bool:
    """A regular file (or a new one) can be replaced while the script runs; a FIFO or device is written once."""
    import os
    import stat

    if path is None:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def as_json(doc: dict) -> str:
    from tvmlint.output.safe import json_text

    return json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def _text(args: argparse.Namespace, doc: dict, out) -> None:
    if args.format == "json":
        out.write(as_json(doc))
    else:
        from tvmlint.output.trace_tree import render

        render(doc, out, timing=args.timing, color=False if out is not sys.stdout else None)


def _bytes(args: argparse.Namespace, doc: dict) -> bytes:
    import io

    buffer = io.StringIO()
    _text(args, doc, buffer)
    return buffer.getvalue().encode("utf-8", "surrogateescape")


def writer(args: argparse.Namespace):
    from tvmlint.frontends.commands.reporting import write_atomically

    def update(doc: dict) -> None:
        try:
            write_atomically(args.output_file, _bytes(args, doc))
        except OSError:
            pass  # said once, at the end, when the last write fails too

    return update


def write(args: argparse.Namespace, doc: dict) -> None:
    if args.output_file is None:
        _text(args, doc, sys.stdout)
        return
    from tvmlint.frontends.commands.reporting import write_atomically

    try:
        write_atomically(args.output_file, _bytes(args, doc))
    except OSError as error:
        raise UsageError(f"cannot write {args.output_file}: {error.strerror or error}") from None


def keep(doc: dict) -> None:
    """The last trace, as JSON, in .tvmlint/trace.json: where `explain` and the editor's hover find it."""
    from tvmlint.companion.trace_verdicts import FOUND
    from tvmlint.frontends.commands.reporting import write_atomically

    try:
        write_atomically(FOUND, as_json(doc).encode("utf-8", "surrogateescape"))
    except OSError as error:
        print(f"tvmlint: note: the trace could not be kept in {FOUND} ({error.strerror or error}); "
              "explain and hover will not show it", file=sys.stderr)
