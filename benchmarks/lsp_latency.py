"""How long the language server takes, as an editor sees it: prints figures, asserts nothing.

    python benchmarks/lsp_latency.py [FILE.py] [--rounds N]

Starts `python -m tvmlint lsp`, initializes, opens FILE (default: the examples
concatenated into one buffer, several times over), then measures: time to the
first diagnostics after open; after a one-character change (this includes the
debounce, printed separately); a code-action request on a finding; and "fix all
safe". Target version 0.19 through initializationOptions, so Relay-era code has
findings.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tvmlint.lsp.server import DEBOUNCE_SECONDS  # noqa: E402


def default_buffer(copies: int = 5) -> str:
    parts = [path.read_text(encoding="utf-8") for path in sorted((REPO / "examples").rglob("*.py"))]
    text = "\n".join(parts * copies)
    return text if text.endswith("\n") else text + "\n"


async def publish(client, send, uri):
    waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    start = time.perf_counter()
    send()
    while True:
        params = await waiter
        if params.uri == uri:
            return time.perf_counter() - start, params
        waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def main(text: str, rounds: int) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="tvmlint-lsp-bench-"))
    uri = (workdir / "buffer.py").as_uri()
    client = make_test_lsp_client()
    start = time.perf_counter()
    await client.start_io(sys.executable, "-m", "tvmlint", "lsp")
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workdir.as_uri(),
        initialization_options={"target-version": "0.19"}))
    started = time.perf_counter() - start

    opened, params = await publish(client, lambda: client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))), uri)
    findings = len(params.diagnostics)

    changes, actions, fix_alls = [], [], []
    version = 1
    for index in range(rounds):
        version += 1
        # a comment line added at the end: a real change that keeps the buffer parseable
        end = types.Position(line=len(text.splitlines()) + index, character=0)
        change = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=end, end=end),
                                                                    text=f"# edit {index}\n")])
        seconds, params = await publish(client, lambda: client.text_document_did_change(change), uri)
        changes.append(seconds)
        with_fix = params.diagnostics[0] if params.diagnostics else None
        if with_fix is not None:
            begin = time.perf_counter()
            await client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=with_fix.range,
                context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
            actions.append(time.perf_counter() - begin)
            begin = time.perf_counter()
            await client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=with_fix.range,
                context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll])))
            fix_alls.append(time.perf_counter() - begin)
    await client.shutdown_session()
    await client.stop()

    def ms(values) -> str:
        return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms" if values else "n/a"

    print(f"buffer: {len(text.splitlines())} lines, {findings} diagnostics")
    print(f"start + initialize: {started * 1000:.0f} ms")
    print(f"open -> diagnostics: {opened * 1000:.0f} ms (first check, cold)")
    print(f"change -> diagnostics ({rounds} rounds): {ms(changes)} (of which debounce {DEBOUNCE_SECONDS * 1000:.0f} ms)")
    print(f"quick-fix code actions: {ms(actions)}")
    print(f"fix all safe: {ms(fix_alls)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    buffer = args.file.read_text(encoding="utf-8") if args.file else default_buffer()
    asyncio.run(main(buffer, args.rounds))
