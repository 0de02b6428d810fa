"""Hover and inlay hints of `tvmlint lsp`, through a real LSP client (pytest-lsp): the explanation
of a pass call (tvmlint.frontends.explain) in Markdown, a rule's documentation on a `# noqa` code."""

from __future__ import annotations

import asyncio
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "tvmlint", "lsp"]

BUFFER = (
    "import tvm\n"
    "from tvm import relay\n"
    "\n"
    "mod = relay.transform.FoldScaleAxis()(mod)\n"
    "with tvm.transform.PassContext(opt_level=3):\n"
    "    mod = relay.transform.FoldScaleAxis()(mod)  # noqa: TVM103, TVM101\n"
    "x = 1\n"
)


async def _session(client: LanguageClient, tmp_path, options=None):
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            initialization_options=options,
        )
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path):
    await _session(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def hinting(lsp_client: LanguageClient, tmp_path):
    await _session(lsp_client, tmp_path, {"inlay-hints": True})
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
    ))


async def _hover(client: LanguageClient, uri: str, line: int, character: int):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)
    ))


@pytest.mark.asyncio
async def test_hover_on_a_pass_call_and_a_noqa_code(client: LanguageClient, tmp_path):
    uri = (tmp_path / "job.py").as_uri()
    _open(client, uri, BUFFER)
    # on FoldScaleAxis at the default level: the members the gate skips, in Markdown
    hover = await _hover(client, uri, 3, 25)
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert "relay.transform.FoldScaleAxis()" in text
    assert "the default context: no PassContext is entered here" in text
    assert "`BackwardFoldScaleAxis` (function, opt_level 3): **skipped**, opt_level 3 > context 2" in text
    assert "`FoldConstant` (function, opt_level 2): runs" in text
    assert (hover.range.start.line, hover.range.start.character) == (3, 6)
    assert (hover.range.end.line, hover.range.end.character) == (3, 42)
    # under the `with`: everything runs
    hover = await _hover(client, uri, 5, 12)
    assert "PassContext(opt_level=3) on line 5" in hover.contents.value
    assert "every member runs" in hover.contents.value
    # a rule code in a noqa comment: the rule's documentation
    line = BUFFER.split("\n")[5]
    hover = await _hover(client, uri, 5, line.index("TVM101") + 2)
    assert hover is not None and hover.contents.value.startswith("# TVM101")
    assert (hover.range.start.character, hover.range.end.character) == (line.index("TVM101"), line.index("TVM101") + 6)
    hover = await _hover(client, uri, 5, line.index("TVM103"))
    assert hover.contents.value.startswith("# TVM103")
    # nothing to explain
    assert await _hover(client, uri, 6, 1) is None
    assert await _hover(client, uri, 0, 3) is None


async def _checked(client: LanguageClient, uri: str, text: str) -> types.PublishDiagnosticsParams:
    """Open the buffer and wait for its diagnostics: the hover reads the buffer's last check."""
    while True:
        waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if text is not None:
            _open(client, uri, text)
            text = None
        published = await asyncio.wait_for(waiter, 60)
        if published.uri == uri:
            return published


@pytest.mark.asyncio
async def test_hover_over_a_finding_gives_its_detail(client: LanguageClient, tmp_path):
    uri = (tmp_path / "job.py").as_uri()
    published = await _checked(client, uri, BUFFER.replace("with tvm.transform.PassContext(opt_level=3)",
                                                          "with tvm.transform.PassContext(opt_level=3, disabled_pass=['FuseOP'])"))
    by_code = {d.code: d for d in published.diagnostics}
    # the editor's list shows the one sentence; the hover adds why and what to do
    assert set(by_code) == {"TVM101", "TVM104"}, [d.message for d in published.diagnostics]
    unknown = by_code["TVM104"]
    assert unknown.message.startswith("'FuseOP' in disabled_pass names no pass of TVM 0.19")
    assert "TVM does not check" not in unknown.message
    # a finding where nothing is explained: its message and detail
    hover = await _hover(client, uri, 4, unknown.range.start.character + 2)
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith(f"**TVM104** {unknown.message}\n\nTVM does not check the names")
    assert (hover.range.start, hover.range.end) == (unknown.range.start, unknown.range.end)
    # a finding on a pass call: its detail, then the explanation of the call
    fold = by_code["TVM101"]
    hover = await _hover(client, uri, 3, 25)
    text = hover.contents.value
    assert text.startswith(f"**TVM101** {fold.message}\n\nIt runs its passes through a Sequential")
    assert "run it inside `with tvm.transform.PassContext(opt_level=3):`" in text
    assert "`BackwardFoldScaleAxis` (function, opt_level 3): **skipped**" in text.split("---")[1]


@pytest.mark.asyncio
async def test_inlay_hints_off_by_default(client: LanguageClient, tmp_path):
    uri = (tmp_path / "job.py").as_uri()
    _open(client, uri, BUFFER)
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=7, character=0)),
    ))
    assert not hints


@pytest.mark.asyncio
async def test_inlay_hint_marks_a_skipped_pass_call(hinting: LanguageClient, tmp_path):
    uri = (tmp_path / "job.py").as_uri()
    _open(hinting, uri, BUFFER)
    hints = await hinting.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=7, character=0)),
    ))
    assert [(h.position.line, h.position.character) for h in hints] == [(3, 42)]
    assert "skips BackwardFoldScaleAxis, ForwardFoldScaleAxis at opt_level 2" in hints[0].label
