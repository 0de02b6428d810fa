"""`tvmlint lsp` follows pyproject.toml: a change reported by the client's file watcher
(workspace/didChangeWatchedFiles, registered by the server) or a save of the file in the editor
re-checks the open buffers it applies to, and only those. Driven over stdio by a real client."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Dict, List

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER = [sys.executable, "-m", "tvmlint", "lsp"]
WAIT = 60  # seconds for each publish: the first check imports libcst and reads the rules

BUFFER = (
    "import tvm\n"
    "from tvm import relay\n"
    "\n"
    "mod = relay.transform.FoldScaleAxis()(mod)\n"
    "relay.build_config(opt_level=3)\n"
)
TARGET = '[tool.tvmlint]\ntarget-version = "0.19"\n'


class Recorder:
    """A client that keeps every publish, in order, and every registration the server asks for."""

    def __init__(self) -> None:
        self.published: List[types.PublishDiagnosticsParams] = []
        self.registrations: List[types.Registration] = []
        self.arrived = asyncio.Event()
        self.client = LanguageClient(converter_factory=default_converter)

        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.append(params)
            self.arrived.set()

        def register(params: types.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

        register_lsp_features(self.client, {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.CLIENT_REGISTER_CAPABILITY: register,
        })

    def codes(self, uri: str) -> List[str]:
        return [d.code for d in [p for p in self.published if p.uri == uri][-1].diagnostics]

    def count(self, uri: str) -> int:
        return sum(1 for p in self.published if p.uri == uri)

    async def until(self, counts: Dict[str, int]) -> None:
        """Wait until each uri has been published `counts[uri]` times in all."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while any(self.count(uri) < n for uri, n in counts.items()):
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.1, deadline - loop.time()))


async def drained(client: LanguageClient, uri: str) -> None:
    """Return once every check the server had queued so far has been published: a hover asks the
    server's one worker thread too, behind them, and its answer comes after their diagnostics."""
    await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))), WAIT)


def open_buffer(client: LanguageClient, path: Path) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="python", version=1, text=BUFFER)))


def session(tmp_path: Path, capabilities: types.ClientCapabilities, body) -> None:
    """Open a.py and b.py of `project` in a client with `capabilities`, then `body(recorder, files)`."""
    files = project(tmp_path)

    async def run() -> None:
        recorder = Recorder()
        await recorder.client.start_io(*SERVER)
        try:
            await recorder.client.initialize_session(
                types.InitializeParams(capabilities=capabilities, root_uri=tmp_path.as_uri()))
            await open_both(recorder, files)
            await body(recorder, files)
            await recorder.client.shutdown_session()
        finally:
            server = recorder.client._server
            if server is not None and server.returncode is None:
                server.kill()  # a failed step left it running: stop() waits for it to end
            await recorder.client.stop()

    asyncio.run(asyncio.wait_for(run(), 3 * WAIT))


def project(tmp_path: Path) -> Dict[str, Path]:
    """A workspace whose sub-project `a` has its own pyproject.toml; `b` uses the top one."""
    (tmp_path / "pyproject.toml").write_text(TARGET, encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pyproject.toml").write_text(TARGET, encoding="utf-8")
    (tmp_path / "b").mkdir()
    return {"a": tmp_path / "a" / "job.py", "b": tmp_path / "b" / "job.py",
            "a settings": tmp_path / "a" / "pyproject.toml", "top settings": tmp_path / "pyproject.toml"}


async def open_both(recorder: Recorder, files: Dict[str, Path]) -> None:
    open_buffer(recorder.client, files["a"])
    open_buffer(recorder.client, files["b"])
    a, b = files["a"].as_uri(), files["b"].as_uri()
    await recorder.until({a: 1, b: 1})
    assert recorder.codes(a) == recorder.codes(b) == ["TVM101", "TVM103", "TVM202"]


def test_a_watched_pyproject_change_rechecks_the_buffers_under_it(tmp_path):
    async def body(recorder: Recorder, files: Dict[str, Path]) -> None:
        client, a, b = recorder.client, files["a"].as_uri(), files["b"].as_uri()
        # the server asked the client to watch every pyproject.toml
        [registration] = recorder.registrations
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        assert [w["globPattern"] for w in registration.register_options["watchers"]] == ["**/pyproject.toml"]

        # edited outside the editor: the client's watcher reports it, and a's buffer follows
        files["a settings"].write_text(TARGET + 'select = ["TVM202"]\n', encoding="utf-8")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=files["a settings"].as_uri(), type=types.FileChangeType.Changed)]))
        await recorder.until({a: 2})
        assert recorder.codes(a) == ["TVM202"]
        await drained(client, b)
        assert recorder.count(b) == 1  # a's settings do not apply to b: not checked again

        # the top one applies to both (a's own keeps a as it was), and is deleted
        files["top settings"].unlink()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=files["top settings"].as_uri(), type=types.FileChangeType.Deleted)]))
        await recorder.until({a: 3, b: 2})
        assert recorder.codes(a) == ["TVM202"]
        # no target now: the installed apache-tvm (0.27, where Relay is gone) decides for b
        assert recorder.codes(b) != ["TVM101", "TVM103", "TVM202"]
        await drained(client, b)
        assert recorder.count(b) == 2

    session(tmp_path, client_capabilities("visual-studio-code"), body)


def test_saving_a_pyproject_open_in_the_editor_rechecks_only_its_buffers(tmp_path):
    async def body(recorder: Recorder, files: Dict[str, Path]) -> None:
        client, a, b = recorder.client, files["a"].as_uri(), files["b"].as_uri()
        # a client that cannot register watchers is not asked to
        assert recorder.registrations == []
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=files["a settings"].as_uri(), language_id="toml", version=1, text=TARGET)))
        files["a settings"].write_text(TARGET + 'select = ["TVM101"]\n', encoding="utf-8")
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=files["a settings"].as_uri())))
        await recorder.until({a: 2})
        assert recorder.codes(a) == ["TVM101"]
        await drained(client, b)
        assert recorder.count(b) == 1  # b is not under a's settings
        assert files["a settings"].as_uri() not in {p.uri for p in recorder.published}

    session(tmp_path, types.ClientCapabilities(), body)
