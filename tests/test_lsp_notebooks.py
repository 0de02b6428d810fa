"""An open Jupyter notebook in the editor (LSP 3.17 notebook documents), driven over stdio by
a real LSP client (pytest-lsp): its code cells are checked as one module, as `tvmlint check`
reads the .ipynb file, and each finding and its quick fix land on their own cell."""

from __future__ import annotations

import asyncio
from typing import Dict

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp import SERVER, WAIT

IMPORTS = "import tvm\nfrom tvm import relay\n%matplotlib inline\n"
FOLD = "import os\n!nvidia-smi\nmod = relay.transform.FoldScaleAxis()(mod)\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    capabilities = client_capabilities("visual-studio-code")
    # as VS Code says it when its Jupyter extension is on (pytest-lsp's recording predates it)
    capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities())
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=tmp_path.as_uri()))
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


def cell_uri(notebook: str, index: int) -> str:
    return f"vscode-notebook-cell:{notebook[len('file:'):]}#cell{index}"


async def diagnostics_for(client: LanguageClient, send, uris) -> Dict[str, list]:
    """Do `send`, then wait until diagnostics are published for each of `uris` (the client
    keeps the last ones per URI: a burst of them, one per cell, is never missed)."""
    for uri in uris:
        client.diagnostics.pop(uri, None)
    send()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while set(uris) - set(client.diagnostics):
        assert loop.time() < deadline, f"no diagnostics for {sorted(set(uris) - set(client.diagnostics))}"
        await asyncio.sleep(0.05)
    return {uri: list(client.diagnostics[uri]) for uri in uris}


def open_notebook(client: LanguageClient, uri: str) -> None:
    cells = [
        types.NotebookCell(kind=types.NotebookCellKind.Markup, document=cell_uri(uri, 1)),
        types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_uri(uri, 2)),
        types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_uri(uri, 3)),
    ]
    texts = [("markdown", "# Folding scales\n"), ("python", IMPORTS), ("python", FOLD)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=uri, notebook_type="jupyter-notebook", version=1, cells=cells),
        cell_text_documents=[
            types.TextDocumentItem(uri=cell_uri(uri, index), language_id=language, version=1, text=text)
            for index, (language, text) in enumerate(texts, 1)
        ],
    ))


@pytest.mark.asyncio
async def test_the_server_asks_for_jupyter_notebooks(client: LanguageClient):
    sync = client.server_capabilities.notebook_document_sync
    assert sync is not None and sync.notebook_selector[0].notebook == "jupyter-notebook"
    assert [cell.language for cell in sync.notebook_selector[0].cells] == ["python"]


@pytest.mark.asyncio
async def test_a_finding_lands_on_its_cell_with_its_quick_fix(client: LanguageClient, tmp_path):
    uri = (tmp_path / "fold.ipynb").as_uri()  # never written: the editor's notebook is what counts
    got = await diagnostics_for(client, lambda: open_notebook(client, uri), [cell_uri(uri, 2), cell_uri(uri, 3)])
    assert got[cell_uri(uri, 2)] == []
    [found] = got[cell_uri(uri, 3)]
    assert found.code == "TVM101"
    assert (found.range.start.line, found.range.start.character) == (2, 6)  # cell 3, line 3, column 7
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(uri, 3)), range=found.range,
        context=types.CodeActionContext(diagnostics=[found], only=[types.CodeActionKind.QuickFix]),
    ))
    [action, noqa] = actions
    [(edited, edits)] = action.edit.changes.items()
    assert edited == cell_uri(uri, 3)
    assert edits[0].range.start.line == 2 and edits[0].new_text.startswith("with tvm.transform.PassContext(opt_level=3):")
    # the noqa goes on the cell's own line
    [(edited, [edit])] = noqa.edit.changes.items()
    assert edited == cell_uri(uri, 3) and edit.range.start.line == 2 and edit.new_text == "  # noqa: TVM101"


@pytest.mark.asyncio
async def test_changing_a_cell_checks_the_notebook_again_and_closing_clears_it(client: LanguageClient, tmp_path):
    uri = (tmp_path / "fold.ipynb").as_uri()
    await diagnostics_for(client, lambda: open_notebook(client, uri), [cell_uri(uri, 3)])

    def fix_cell() -> None:
        cell = cell_uri(uri, 3)
        client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=2),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=cell, version=2),
                    changes=[types.TextDocumentContentChangeWholeDocument(
                        text="with tvm.transform.PassContext(opt_level=3):\n    mod = relay.transform.FoldScaleAxis()(mod)\n")],
                ),
            ])),
        ))

    got = await diagnostics_for(client, fix_cell, [cell_uri(uri, 3)])
    assert got[cell_uri(uri, 3)] == []

    def close() -> None:
        client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=cell_uri(uri, i)) for i in (1, 2, 3)],
        ))

    got = await diagnostics_for(client, close, [cell_uri(uri, 2), cell_uri(uri, 3)])
    assert all(diagnostics == [] for diagnostics in got.values())


@pytest.mark.asyncio
async def test_a_deeply_nested_cell_is_guarded_as_a_file_is(client: LanguageClient, tmp_path):
    # the same depth guard as `check`: one TVM001 on the cell, and the server goes on
    uri = (tmp_path / "deep.ipynb").as_uri()
    deep = "x = " + "(" * 10000 + "1" + ")" * 10000 + "\n"

    def send() -> None:
        client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(uri=uri, notebook_type="jupyter-notebook", version=1, cells=[
                types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_uri(uri, 1))]),
            cell_text_documents=[types.TextDocumentItem(uri=cell_uri(uri, 1), language_id="python", version=1, text=deep)],
        ))

    got = await diagnostics_for(client, send, [cell_uri(uri, 1)])
    assert [d.code for d in got[cell_uri(uri, 1)]] == ["TVM001"]
    other = (tmp_path / "fold.ipynb").as_uri()
    got = await diagnostics_for(client, lambda: open_notebook(client, other), [cell_uri(other, 3)])
    assert [d.code for d in got[cell_uri(other, 3)]] == ["TVM101"]


@pytest.mark.asyncio
async def test_a_burst_of_cell_edits_is_checked_once_for_its_last_text(client: LanguageClient, tmp_path):
    uri = (tmp_path / "fold.ipynb").as_uri()
    cell = cell_uri(uri, 3)
    await diagnostics_for(client, lambda: open_notebook(client, uri), [cell])
    published = []
    # count what the server publishes for the cell from here on
    original = client.protocol._handle_notification

    def counting(method_name, params):
        if method_name == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS and params.uri == cell:
            published.append(params)
        return original(method_name, params)

    client.protocol._handle_notification = counting
    texts = [FOLD.replace("mod)", "mod" + ")" * 1) + "#" * n + "\n" for n in range(8)]
    texts.append("x = 1\n")  # the last: nothing to report
    for version, text in enumerate(texts, 2):
        client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=uri, version=version),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=cell, version=version),
                    changes=[types.TextDocumentContentChangeWholeDocument(text=text)]),
            ])),
        ))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not published and loop.time() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # anything a second check would publish
    assert published and list(published[-1].diagnostics) == []
    assert len(published) == 1, [len(p.diagnostics) for p in published]
