"""`tvmlint rules`: every rule. A table on a terminal; on a pipe a header line, then one
rule per line, tab-separated (code, name, severity, fix_availability, fix_safety, default,
summary), so `cut`, `awk -F'\\t'` and csv.DictReader read it; `--format json` for programs."""

from __future__ import annotations

import argparse
import json
import sys

from tvmlint.frontends.commands import EXIT_CLEAN

FIELDS = ("code", "name", "severity", "fix_availability", "fix_safety", "default", "summary")
# the table's headers for the two fix axes, short enough for 80 columns
SHORT = {"fix_availability": "fix", "fix_safety": "safety"}
SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("rules", help="list every rule")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: a table on a terminal, tab-separated lines on a pipe (the default); json: a list of objects")


def run(args: argparse.Namespace) -> int:
    from tvmlint.knowledge.catalog import load_catalog

    rows = [
        {"code": info.code, "name": info.name, "severity": info.severity, "fix_availability": info.fix_availability,
         "fix_safety": info.fix_safety or "-", "default": "yes" if info.default else "no", "summary": info.summary}
        for info in load_catalog().values()
    ]
    if args.format == "json":
        data = [{**row, "fix_safety": None if row["fix_safety"] == "-" else row["fix_safety"], "default": row["default"] == "yes"}
                for row in rows]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    elif sys.stdout.isatty():
        _table(rows)
    else:
        # a header line, then one line per rule: csv.DictReader(delimiter="\t") reads it as it is
        sys.stdout.write("\t".join(FIELDS) + "\n")
        sys.stdout.write("".join("\t".join(row[field] for field in FIELDS) + "\n" for row in rows))
    return EXIT_CLEAN


def _table(rows) -> None:
    """The table at the terminal's width, read at 80 columns as well: the short columns first,
    then each rule's name above its summary, which wraps in the room left."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1))
    for field in FIELDS[:1] + FIELDS[2:6]:
        table.add_column(SHORT.get(field, field), no_wrap=True)
    table.add_column("name and summary", overflow="fold", ratio=1)
    for row in rows:
        table.add_row(
            Text(row["code"], style="bold"), Text(row["severity"], style=SEVERITY_STYLE.get(row["severity"], "")),
            Text(row["fix_availability"], style="dim" if row["fix_availability"] == "never" else "cyan"),
            Text(row["fix_safety"], style="dim" if row["fix_safety"] == "-" else "cyan"),
            Text(row["default"], style="" if row["default"] == "yes" else "dim"),
            Text.assemble((row["name"], "bold"), "\n", row["summary"]),
        )
    Console(highlight=False).print(table)
