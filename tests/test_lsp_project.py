"""The language server judges a buffer with the other files of its project, as `tvmlint check FILE`
does: `tvmlint lsp` over stdio with a real client (pytest-lsp), on a copy of examples/relay_era."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
import pytest_lsp
from helpers import REPO, run_cli
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp import open_buffer, publish_after

SERVER = [sys.executable, "-m", "tvmlint", "lsp"]
QUICK = "def quick(mod):\n    return fold_scales(mod)"
QUICK_UNDER_LEVEL_3 = "def quick(mod):\n    with tvm.transform.PassContext(opt_level=3):\n        return fold_scales(mod)"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path):
    shutil.copytree(REPO / "examples" / "relay_era", tmp_path / "relay_era")
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def whole_tree(tmp_path, name: str):
    """What `tvmlint check relay_era` reports on one file: (code, 0-based line and column, message)."""
    done = run_cli("check", "--format", "json", "relay_era", cwd=tmp_path)
    return sorted((f["code"], f["line"] - 1, f["column"] - 1, f["message"])
                  for f in json.loads(done.stdout) if f["path"] == f"relay_era/{name}")


def seen(published: types.PublishDiagnosticsParams):
    return sorted((d.code, d.range.start.line, d.range.start.character, d.message) for d in published.diagnostics)


@pytest.mark.asyncio
async def test_a_helper_buffer_gets_its_callers_findings(client: LanguageClient, tmp_path):
    helper = tmp_path / "relay_era" / "passes.py"
    uri = helper.as_uri()
    text = helper.read_text(encoding="utf-8")
    published = await publish_after(client, lambda: open_buffer(client, uri, text), uri)
    expected = whole_tree(tmp_path, "passes.py")
    assert [code for code, *_ in expected] == ["TVM101"]
    assert "compile_model.py:18" in expected[0][3]
    assert seen(published) == expected

    # a caller changed on disk (saved from another buffer): the next check of the helper sees it
    caller = tmp_path / "relay_era" / "compile_model.py"
    caller.write_text(caller.read_text(encoding="utf-8").replace(QUICK, QUICK_UNDER_LEVEL_3), encoding="utf-8")
    again = await publish_after(client, lambda: client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text + "\n")],
    )), uri)
    assert seen(again) == whole_tree(tmp_path, "passes.py") == []


@pytest.mark.asyncio
async def test_a_caller_buffer_reports_only_its_own_findings(client: LanguageClient, tmp_path):
    caller = tmp_path / "relay_era" / "compile_model.py"
    uri = caller.as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, caller.read_text(encoding="utf-8")), uri)
    assert seen(published) == whole_tree(tmp_path, "compile_model.py")
    assert {d.code for d in published.diagnostics} == {"TVM103", "TVM108"}
