"""`tvmlint lsp`: the language server, over stdin/stdout."""

from __future__ import annotations

import argparse
import sys

from tvmlint.frontends.commands import EXIT_CLEAN, EXIT_ERROR


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "lsp", help="run the language server over stdio (needs the `lsp` extra: pip install 'tvmlint[lsp]')"
    )
    # vscode-languageclient and others append --stdio; stdio is the only transport
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only transport)")


def run(args: argparse.Namespace) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as error:
        print(
            f"tvmlint: error: `tvmlint lsp` needs pygls and lsprotocol ({error}); "
            "install them with: pip install 'tvmlint[lsp]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    from tvmlint.frontends.lsp.server import serve

    serve()
    return EXIT_CLEAN
