"""`tvmlint explain FILE:LINE[:COL]`: the PassContext at a pass call, Sequential run or build, and what runs under it."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR, UsageError

_PLACE = re.compile(r"^(?P<path>.+?):(?:cell (?P<cell>\d+):)?(?P<line>\d+)(?::(?P<column>\d+))?$")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "explain", help="show the PassContext at a pass call, Sequential run or build, and which passes run there"
    )
    parser.add_argument("place", metavar="FILE:LINE[:COL]", help="where the call is (line and column from 1)")
    parser.add_argument("--target-version", metavar="X.Y", help="the TVM release to explain against, e.g. 0.18")
    parser.add_argument("--config", type=Path, metavar="PYPROJECT", help="use this pyproject.toml")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--trace", type=Path, metavar="TRACE.json",
                        help="also show what this run (`tvmlint trace --format json -o TRACE.json`) did at the line "
                             "(default: .tvmlint/trace.json, which `tvmlint trace` keeps, when it is there)")
    parser.add_argument(
        "--project", type=Path, metavar="DIR",
        help="where callers are looked for (default: the file's project, as `check FILE` reads it: the "
             "directory of its [tool.tvmlint] pyproject.toml, else its git work tree, else its own directory)",
    )


def parse_place(text: str):
    found = _PLACE.match(text)
    if found is None:
        raise UsageError(f"expected FILE:LINE[:COL] (FILE.ipynb:cell N:LINE[:COL] in a notebook), got {text!r}")
    column, cell = found.group("column"), found.group("cell")
    return (Path(found.group("path")), int(found.group("line")), int(column) if column else None,
            int(cell) if cell else None)


def _in_module(path: Path, cell: int, line: int, resolver) -> int:
    """The line of the notebook's module text (tvmlint.base.notebook) that a cell's line is."""
    from tvmlint.base.notebook import NotANotebook, file_bound, read_notebook
    from tvmlint.base.source import read_file

    try:
        notebook = read_notebook(read_file(str(path), file_bound(resolver.for_path(path).max_file_bytes)))
    except (OSError, NotANotebook) as error:
        raise UsageError(f"{path}: {getattr(error, 'strerror', None) or error}") from None
    for known in notebook.cells:
        if known.number == cell:
            if not 1 <= line <= max(known.lines, 1):
                raise UsageError(f"{path}: cell {cell} has {known.lines} lines, not {line}")
            return known.start + line - 1
    raise UsageError(f"{path}: no code cell {cell}")


def run(args: argparse.Namespace) -> int:
    from tvmlint.frontends.explain import NotASite, explain_at, render_rich, render_text
    from tvmlint.run.config import Overrides, SettingsResolver

    path, line, column, cell = parse_place(args.place)
    if not path.exists():
        raise UsageError(f"no such file: {path}")
    if not path.is_file():  # said by the reader: a FIFO or a device is named as what it is
        from tvmlint.base.source import read_file

        try:
            read_file(str(path), 0)
        except OSError as error:
            raise UsageError(f"{path}: {error.strerror or error}") from None
    from tvmlint.base.notebook import is_notebook

    if (cell is not None) != is_notebook(path):
        raise UsageError(f"a notebook's place is FILE.ipynb:cell N:LINE[:COL] (as check prints it), got {args.place!r}")
    if args.project is not None and not args.project.is_dir():
        raise UsageError(f"--project {args.project}: not a directory")
    resolver = SettingsResolver(Overrides(target_version=args.target_version, config=args.config))
    asked = line
    if cell is not None:
        line = _in_module(path, cell, line, resolver)
    try:
        explanation = explain_at(path, (line, column), resolver, root=args.project)
    except NotASite as error:
        findings = _findings_at(path, line, resolver)
        if findings:  # no pass call here, but findings: each one's message and detail
            return _show_findings_only(findings, args)
        print(f"tvmlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except SyntaxError as error:
        print(f"tvmlint: error: {path}: cannot be parsed ({error})", file=sys.stderr)
        return EXIT_ERROR
    findings = _findings_at(path, line, resolver)
    traced = _traced(args.trace, path, explanation)
    if cell is not None:  # shown as it was asked for
        from dataclasses import replace

        explanation = replace(explanation, cell=cell, line=asked, end_line=asked + explanation.end_line - line)
    if args.format == "json":
        data = explanation.to_json()
        data["findings"] = [finding.to_json() for finding in findings]
        if traced is not None:
            data["traced"] = {"trace": str(traced[0]), "runs": traced[1]}
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_CLEAN
    if sys.stdout.isatty():
        from rich.console import Console

        render_rich(explanation, Console(highlight=False))
    else:
        sys.stdout.write(render_text(explanation))
    if findings:
        sys.stdout.write("\n" + _findings_text(findings))
    if traced is not None:
        from tvmlint.output.trace_tree import traced_lines

        sys.stdout.write("\n" + "\n".join(traced_lines(traced[1], str(traced[0]))) + "\n")
    return EXIT_CLEAN


def _findings_at(path: Path, line: int, resolver) -> list:
    """What `check FILE` reports on the line (its project read as check reads it), in the
    output's terms (a notebook's cell and line): the findings explain shows in full."""
    from tvmlint.output.cells import in_cells
    from tvmlint.run.runner import check_paths

    report = check_paths([path], resolver, jobs=1, use_cache=False, project=True)  # explain writes nothing
    # a file that could not be analysed (TVM001) has no site: explain's own error says why
    here = [finding for finding in report.findings
            if finding.start.line <= line <= finding.end.line and finding.code != "TVM001"]
    return in_cells(here, {})[0]


def _findings_text(findings) -> str:
    from tvmlint.output.safe import printable
    from tvmlint.output.text import detail_lines

    lines = ["Findings here:"]
    for finding in findings:
        lines.append(f"  {finding.code} {finding.severity} {printable(finding.message)}")
        lines.extend(detail_lines(printable(finding.detail)))
    return "\n".join(lines) + "\n"


def _show_findings_only(findings, args: argparse.Namespace) -> int:
    if args.format == "json":
        json.dump({"findings": [finding.to_json() for finding in findings]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(_findings_text(findings))
    return EXIT_CLEAN


def _traced(given, path: Path, explanation):
    """(the trace file, its runs at the explained call), or None when there is no trace to ask;
    a trace given with --trace that is not one is a usage error."""
    from tvmlint.companion import CompanionError
    from tvmlint.companion.trace_verdicts import FOUND, Runs, found, load

    if given is not None:
        try:
            doc, source = load(str(given)), given
        except CompanionError as error:
            raise UsageError(str(error)) from None
    else:
        doc, source = found(Path.cwd()), FOUND
        if doc is None:
            return None
    return source, Runs(doc).at(str(path), explanation.line, explanation.end_line)
