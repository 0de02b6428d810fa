"""What a traced run did, beside the static answer: `explain --trace` / the kept .tvmlint/trace.json,
and the editor's hover over a real LSP client (#30)."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest
import pytest_lsp
from helpers import run_cli
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tvm") is None, reason="apache-tvm is not installed")

SCRIPT = (
    "import tvm\n"
    "from tvm import relax\n"
    "mod = tvm.IRModule()\n"
    "with tvm.transform.PassContext(opt_level=0):\n"
    "    mod = relax.transform.CanonicalizeBindings()(mod)\n"
)


def _traced(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.27"\n', encoding="utf-8")
    (tmp_path / "script.py").write_text(SCRIPT, encoding="utf-8")
    done = run_cli("trace", "-o", "tree.txt", "--", sys.executable, "script.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".tvmlint" / "trace.json").is_file()  # kept, whatever -o said


def test_explain_shows_the_kept_trace_beside_the_static_answer(tmp_path):
    _traced(tmp_path)
    done = run_cli("explain", "script.py:5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    static, traced = done.stdout.split("\nTraced (")
    assert "SKIPPED" in static
    assert traced.startswith(".tvmlint/trace.json): 1 run from this line")
    assert "skipped    ├─ CanonicalizeTIRVariables (function, opt_level 1): opt_level 1 > 0" in traced
    data = json.loads(run_cli("explain", "script.py:5", "--format", "json", cwd=tmp_path).stdout)
    (run,) = data["traced"]["runs"]
    assert run["context"]["opt_level"] == 0


def test_explain_with_a_trace_that_is_not_one(tmp_path):
    _traced(tmp_path)
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    done = run_cli("explain", "script.py:5", "--trace", "bad.json", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not JSON" in done.stderr


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tvmlint", "lsp"]))
async def client(lsp_client: LanguageClient, tmp_path):
    _traced(tmp_path)
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_hover_shows_what_the_traced_run_did(client: LanguageClient, tmp_path):
    uri = (tmp_path / "script.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=SCRIPT)))
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=4, character=30)))
    assert hover is not None
    text = hover.contents.value
    assert "**Traced (.tvmlint/trace.json): 1 run from this line**" in text
    assert "CanonicalizeRelaxBindings (function, opt_level 1): opt_level 1 > 0" in text
