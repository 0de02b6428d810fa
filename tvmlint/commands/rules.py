"""`tvmlint rules`: every rule, one line each."""

from __future__ import annotations

import argparse

from tvmlint.commands import EXIT_CLEAN


def add_parser(subparsers) -> None:
    subparsers.add_parser("rules", help="list every rule")


def run(args: argparse.Namespace) -> int:
    from tvmlint.catalog import load_catalog

    rows = [("code", "name", "severity", "fix", "default", "summary")]
    for info in load_catalog().values():
        rows.append((info.code, info.name, info.severity, info.fix or "-", "yes" if info.default else "no", info.summary))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[5])
    return EXIT_CLEAN
