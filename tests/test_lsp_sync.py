"""Incremental document sync in `tvmlint lsp`, through a real client (pytest-lsp) over stdio: a
buffer edited by ranges is checked as the same text sent whole."""

from __future__ import annotations

import os
import re
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp import SERVER, open_buffer, publish_after

START = (
    "import tvm\n"
    "from tvm import relay\n"
    "\x0c\n"  # a page break: one line for Python and LSP, two for str.splitlines
    "mod = relay.transform.FoldScaleAxis()(mod)\n"
    "s = \"\u2028\U0001F60B\"  # a line separator and a character of two UTF-16 units\r\n"
    "with relay.build_config(opt_level=3):\r\n"
    "    lib = relay.build(mod, target=\"llvm\")\r"
    "relay.build_config(opt_level=3)\n"
)

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def offset(text: str, position: types.Position) -> int:
    """LSP's (line, UTF-16 unit) as an index into `text`: lines end at \\n, \\r\\n or \\r only."""
    lines = _LINE.findall(text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line)


def at(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


# (start, end, new text) in the buffer as it is when each is applied, in order
EDITS = [
    (at(8, 0), at(8, 0), "mod = relay.transform.FoldScaleAxis()(mod)\n"),  # at the very end
    (at(3, 0), at(3, 0), "# a comment after the page break\n"),  # lines after it move down
    (at(5, 8), at(5, 8), "x\U0001F60By"),  # after the emoji: columns in UTF-16 units
    (at(6, 34), at(6, 35), "2"),  # opt_level=3 -> 2, on a \r\n line
    (at(7, 4), at(8, 0), "lib = relay.build(mod, target=\"c\")\n"),  # across the \r ending
    (at(1, 0), at(2, 0), ""),  # a line deleted before the page break
    (at(0, 7), at(1, 0), "tvm\nfrom tvm import relay\nimport tvm.relay as r\n"),  # over a line break
]


async def initialized(lsp_client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


# a change's check in a forked child (Linux), and in the server's own process (elsewhere)
forking = pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))(initialized)
in_process = pytest_lsp.fixture(config=ClientServerConfig(
    server_command=SERVER, server_env={**os.environ, "TVMLINT_LSP_FORK": "0"}))(initialized)


@pytest.fixture(params=["forking", "in_process"])
def client(request) -> LanguageClient:
    return request.getfixturevalue(request.param)


def change(uri: str, version: int, changes) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=changes)


def shown(diagnostics):
    return sorted((d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
                   d.code, d.message) for d in diagnostics)


@pytest.mark.asyncio
async def test_range_edits_give_the_diagnostics_of_the_whole_text(client: LanguageClient, tmp_path):
    edited, whole = (tmp_path / "edited.py").as_uri(), (tmp_path / "whole.py").as_uri()
    first = await publish_after(client, lambda: open_buffer(client, edited, START), edited)
    assert "TVM101" in {d.code for d in first.diagnostics}
    text = START
    for version, (start, end, new) in enumerate(EDITS, start=2):
        text = text[: offset(text, start)] + new + text[offset(text, end):]
        partial = types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new)
        # one at a time, each checked: a buffer edited as a user does
        published = await publish_after(client, lambda: client.text_document_did_change(
            change(edited, version, [partial])), edited)
        assert published.version == version
        await publish_after(client, lambda: open_buffer(client, whole, text, version), whole)
        reference = await publish_after(client, lambda: client.text_document_did_change(change(
            whole, version + 1, [types.TextDocumentContentChangeWholeDocument(text=text)])), whole)
        assert shown(published.diagnostics) == shown(reference.diagnostics), (version, text)
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=whole)))
    assert text.count("FoldScaleAxis") == 2 and "\x0c\n" in text and "\u2028\U0001F60Bx\U0001F60By\"" in text
    assert sorted(d.code for d in published.diagnostics).count("TVM101") == 2


@pytest.mark.asyncio
async def test_several_changes_in_one_notification_apply_in_order(client: LanguageClient, tmp_path):
    edited, whole = (tmp_path / "edited.py").as_uri(), (tmp_path / "whole.py").as_uri()
    await publish_after(client, lambda: open_buffer(client, edited, START), edited)
    text, changes = START, []
    for start, end, new in EDITS:
        text = text[: offset(text, start)] + new + text[offset(text, end):]
        changes.append(types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new))
    published = await publish_after(client, lambda: client.text_document_did_change(change(edited, 2, changes)), edited)
    reference = await publish_after(client, lambda: open_buffer(client, whole, text), whole)
    assert published.version == 2
    assert shown(published.diagnostics) == shown(reference.diagnostics)
    assert len(published.diagnostics) >= 3


@pytest.mark.asyncio
async def test_a_change_during_a_check_is_checked_right_after_it(client: LanguageClient, tmp_path):
    """The second change comes while the first one's check runs: the first's result is dropped
    (the buffer moved on) and the second is published without waiting for another keystroke."""
    uri = (tmp_path / "busy.py").as_uri()
    big = START.replace("\r\n", "\n").replace("\r", "\n") * 150  # a check long enough to edit during
    await publish_after(client, lambda: open_buffer(client, uri, big), uri)
    lines = big.count("\n")

    def two_changes() -> None:
        client.text_document_did_change(change(uri, 2, [types.TextDocumentContentChangePartial(
            range=types.Range(start=at(lines, 0), end=at(lines, 0)), text="x = 1\n")]))
        time.sleep(0.15)  # the first check has started (debounce 0.05 s)
        client.text_document_did_change(change(uri, 3, [types.TextDocumentContentChangePartial(
            range=types.Range(start=at(lines + 1, 0), end=at(lines + 1, 0)),
            text="mod = relay.transform.FoldScaleAxis()(mod)\n")]))

    published = await publish_after(client, two_changes, uri)
    assert published.version == 3
    assert any(d.range.start.line == lines + 1 and d.code == "TVM101" for d in published.diagnostics)
