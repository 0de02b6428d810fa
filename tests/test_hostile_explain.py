"""explain, LSP hover and inlay hints go through check's guards (issue #29): a deeply nested,
huge or not-Python file gets one line and exit 2 from explain, and no reply content (the
server staying up) from the LSP, never a crash."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.helpers import run_cli

DEEP_UNARY = "x = " + "-" * 100000 + "1\n"  # past the parser's, under no limit of its own
LONG_SUM = "x = " + "+".join(["1"] * 200000) + "\n"  # 200k-term sum: deep left-nested BinOp
# parses, but 600 levels deep: past MAX_NESTING, where libcst and the recursive analysis would go
NESTED_LISTS = "import tvm\nx = " + "[" * 600 + "]" * 600 + "\n"


# 10,000 parentheses: tests/test_hostile_surfaces.py, with every other surface
@pytest.mark.parametrize("text", [DEEP_UNARY, LONG_SUM, NESTED_LISTS], ids=["unary", "sum", "lists"])
def test_explain_refuses_deep_files_in_one_line(tmp_path: Path, text: str):
    (tmp_path / "deep.py").write_text(text, encoding="utf-8")
    done = run_cli("explain", "deep.py:1", cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tvmlint: error: deep.py: "), lines
    assert "nested" in lines[0] or "too large" in lines[0]


def test_explain_refuses_a_file_over_max_file_size(tmp_path: Path):
    (tmp_path / "big.py").write_text("import tvm\n" + "# padding\n" * 300_000, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.tvmlint]\nmax-file-size = 1\n", encoding="utf-8")
    done = run_cli("explain", "big.py:1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "tvmlint: error: big.py: larger than 1 MB (max-file-size)"


SERVER = [sys.executable, "-m", "tvmlint", "lsp"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri(),
        initialization_options={"inlay-hints": True},
    ))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_hover_and_hints_on_a_deep_document_leave_the_server_up(client: LanguageClient, tmp_path):
    deep = (tmp_path / "deep.py").as_uri()
    for text in (NESTED_LISTS,):  # 10,000 parentheses: tests/test_hostile_surfaces.py
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=deep, language_id="python", version=1, text=text)))
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=deep), position=types.Position(line=0, character=10)))
        assert hover is None
        hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=deep),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1, character=0))))
        assert not hints
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=deep)))
    # still answering: a real explanation on a small document
    job = (tmp_path / "job.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=job, language_id="python", version=1,
        text="import tvm\nfrom tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n")))
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=job), position=types.Position(line=2, character=25)))
    assert hover is not None and "BackwardFoldScaleAxis" in hover.contents.value
