"""`tvmlint rule CODE`: one rule's documentation."""

from __future__ import annotations

import argparse
import sys

from tvmlint.frontends.commands import EXIT_CLEAN, UsageError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("rule", help="print a rule's documentation")
    parser.add_argument("code", help="a rule code such as TVM101")


def run(args: argparse.Namespace) -> int:
    from tvmlint.knowledge.catalog import load_catalog

    catalog = load_catalog()
    code = args.code.upper()
    if code not in catalog:
        raise UsageError(f"unknown rule {args.code!r}; `tvmlint rules` lists them")
    sys.stdout.write(catalog[code].render_markdown())
    return EXIT_CLEAN
