"""How long the language server takes, as an editor sees it: prints figures, asserts nothing.

    python benchmarks/lsp_latency.py [FILE.py] [--rounds N] [--bursts N]

Starts `python -m tvmlint lsp`, initializes, opens FILE (default: the examples
concatenated into one buffer of about 2,000 lines), then measures, through a real
client and incremental (range) changes: time to the first diagnostics after open;
from the last keystroke to the diagnostics of that version, for a one-line change
made after a pause and for the end of a burst of typing (one character every
TYPING_INTERVAL seconds, and a hesitation of HESITATION seconds before the last
one: long enough for a check of the unfinished line to start, too short for it to
end); the CPU time of the server and
the children it forks per check (its own figure, whatever else the machine runs); a code-action request on a finding; and "fix all safe". Target version 0.19
through initializationOptions, so Relay-era code has findings. The goal (issue 24):
diagnostics within 0.5 s of the last keystroke on a 2,000-line file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

GOAL_SECONDS = 0.5
TYPING_INTERVAL = 0.12  # seconds between keystrokes in a burst: about 100 words a minute
HESITATION = 0.25  # before the last keystroke of a burst
BURST = "x = tvm.relay"  # typed one character at a time on a new line at the end


def default_buffer(copies: int = 8) -> str:
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


def cpu_seconds(pid: int) -> float:
    """User and system time of a process and of its children it has waited for, so far
    (Linux's /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


async def main(text: str, rounds: int, bursts: int) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="tvmlint-lsp-bench-"))
    uri = (workdir / "buffer.py").as_uri()
    client = make_test_lsp_client()
    load_before = os.getloadavg()
    start = time.perf_counter()
    await client.start_io(sys.executable, "-m", "tvmlint", "lsp")
    server_pid = client._server.pid
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workdir.as_uri(),
        initialization_options={"target-version": "0.19"}))
    started = time.perf_counter() - start

    opened, params = await publish(client, lambda: client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))), uri)
    findings = len(params.diagnostics)
    lines = len(text.splitlines())
    version = 1

    def change_at(line: int, character: int, new: str) -> types.DidChangeTextDocumentParams:
        where = types.Position(line=line, character=character)
        return types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=where, end=where), text=new)])

    changes, cpu, actions, fix_alls = [], [], [], []
    for index in range(rounds):
        version += 1
        await asyncio.sleep(0.5)  # a pause: no check is running when the change comes
        # a line added at the end: a real change that keeps the buffer parseable
        change = change_at(lines, 0, f"edit_{index} = {index}\n")
        lines += 1
        before = cpu_seconds(server_pid)
        seconds, params = await publish(client, lambda: client.text_document_did_change(change), uri)
        cpu.append(cpu_seconds(server_pid) - before)
        assert params.version == version, (params.version, version)
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

    typed = []
    for index in range(bursts):
        await asyncio.sleep(0.5)
        version += 1
        client.text_document_did_change(change_at(lines, 0, "\n"))
        lines += 1
        for column, char in enumerate(BURST):
            await asyncio.sleep(TYPING_INTERVAL if column < len(BURST) - 1 else HESITATION)
            version += 1
            change = change_at(lines - 1, column, char)
            if column < len(BURST) - 1:
                client.text_document_did_change(change)
        final = version
        waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        begin = time.perf_counter()
        client.text_document_did_change(change)  # the last keystroke
        while True:
            params = await waiter
            if params.uri == uri and params.version == final:
                break
            waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        typed.append(time.perf_counter() - begin)
    await client.shutdown_session()
    await client.stop()
    load_after = os.getloadavg()

    def ms(values) -> str:
        if not values:
            return "n/a"
        ordered = sorted(value * 1000 for value in values)
        quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else ordered * 3
        return (f"median {statistics.median(ordered):.0f} ms (min {ordered[0]:.0f}, "
                f"quartiles {quartiles[0]:.0f}-{quartiles[2]:.0f}, max {ordered[-1]:.0f}; n={len(ordered)})")

    def verdict(values) -> str:
        if not values:
            return ""
        return "  [goal met]" if statistics.median(values) <= GOAL_SECONDS else "  [goal NOT met]"

    print(f"buffer: {len(text.splitlines())} lines, {findings} diagnostics; load average {load_before[0]:.2f} at start, "
          f"{load_after[0]:.2f} at end ({os.cpu_count()} CPUs)")
    print(f"start + initialize: {started * 1000:.0f} ms")
    print(f"open -> diagnostics: {opened * 1000:.0f} ms (first check, cold)")
    print(f"goal: diagnostics within {GOAL_SECONDS * 1000:.0f} ms of the last keystroke")
    print(f"one-line change after a pause -> diagnostics: {ms(changes)}{verdict(changes)}")
    print(f"last keystroke of a burst ({len(BURST)} keys, {TYPING_INTERVAL * 1000:.0f} ms apart, a "
          f"{HESITATION * 1000:.0f} ms hesitation before the last) -> diagnostics: "
          f"{ms(typed)}{verdict(typed)}")
    print(f"CPU per one-line change (server and its children, load aside): {ms(cpu)}")
    print(f"quick-fix code actions: {ms(actions)}")
    print(f"fix all safe: {ms(fix_alls)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--rounds", type=int, default=10, help="one-line changes after a pause (default 10)")
    parser.add_argument("--bursts", type=int, default=5, help="bursts of typing (default 5)")
    args = parser.parse_args()
    buffer = args.file.read_text(encoding="utf-8") if args.file else default_buffer()
    asyncio.run(main(buffer, args.rounds, args.bursts))
