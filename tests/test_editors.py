"""docs/editors.md's editor set-ups: the command each one names starts the server, which answers
initialize and publishes diagnostics, driven with that editor's own client capabilities.
(tests/test_neovim.py runs the Neovim set-up in a real Neovim.)"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import List, Optional

import pytest
import pytest_lsp
from helpers import REPO
from lsprotocol import types
from pytest_lsp import client_capabilities

from tvmlint.knowledge.tables import toml

tomllib = toml()

WAIT = 120
GUIDE = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
README = (REPO / "README.md").read_text(encoding="utf-8")


def block_under(heading: str) -> str:
    """The first fenced block after a `#### heading` (or `## heading`) line in docs/editors.md."""
    match = re.search(rf"^##(?:##)? {re.escape(heading)}\n(.*?)^```\w*\n(.*?)^```", GUIDE, re.M | re.S)
    assert match, f"docs/editors.md has no `{heading}` section with a code block"
    return match.group(2)


NEOVIM_RELEASES = ["Neovim 0.11 and newer", "Neovim 0.8 to 0.10", "Neovim 0.7"]


def neovim_command(heading: str = NEOVIM_RELEASES[0]) -> List[str]:
    cmd = re.search(r"cmd\s*=\s*\{([^}]*)\}", block_under(heading)).group(1)
    return re.findall(r'"([^"]*)"', cmd)


def test_every_neovim_block_runs_the_same_command():
    assert [neovim_command(heading) for heading in NEOVIM_RELEASES] == [["tvmlint", "lsp"]] * 3


def test_the_readme_links_the_editor_guide():
    assert "](docs/editors.md)" in README


def vscode_command() -> List[str]:
    settings = json.loads(block_under("VS Code"))
    assert settings["glspc.server.languageId"] == ["python"]
    return [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]]


def emacs_command() -> List[str]:
    entry = re.search(r"'\(\(([^)]*)\)\s+(.*?)\)\)", block_under("Emacs (eglot)"), re.S)
    assert "python-mode" in entry.group(1).split()
    return re.findall(r'"([^"]*)"', entry.group(2))


def helix_command() -> List[str]:
    config = tomllib.loads(block_under("Helix"))
    server = config["language-server"]["tvmlint"]
    [python] = [language for language in config["language"] if language["name"] == "python"]
    assert "tvmlint" in python["language-servers"]
    return [server["command"], *server.get("args", [])]


EDITORS = [
    pytest.param(neovim_command, "neovim", id="neovim"),
    pytest.param(vscode_command, "visual-studio-code", id="vscode"),
    pytest.param(emacs_command, "emacs", id="emacs-eglot"),
    pytest.param(helix_command, None, id="helix"),  # pytest-lsp has no Helix capability set
]


def installed(command: List[str]) -> List[str]:
    """The command as a shell would find it, with this environment's scripts first on PATH."""
    scripts = str(Path(sys.executable).parent)
    found = shutil.which(command[0], path=os.pathsep.join([scripts, os.environ.get("PATH", "")]))
    assert found, f"{command[0]} is not installed next to {sys.executable}"
    return [found, *command[1:]]


@pytest.mark.parametrize("extract, capabilities", EDITORS)
def test_editor_command_serves_diagnostics(extract, capabilities: Optional[str], tmp_path):
    command = extract()
    assert command == ["tvmlint", "lsp"]
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    uri = (tmp_path / "job.py").as_uri()

    async def session() -> List[str]:
        client = pytest_lsp.make_test_lsp_client()
        await client.start_io(*installed(command))
        try:
            caps = client_capabilities(capabilities) if capabilities else types.ClientCapabilities()
            result = await client.initialize_session(types.InitializeParams(capabilities=caps, root_uri=tmp_path.as_uri()))
            assert result.server_info.name == "tvmlint"
            assert result.capabilities.code_action_provider is not None
            waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1,
                text="from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n")))
            published = await waiter
            await client.shutdown_session()
            return [d.code for d in published.diagnostics]
        finally:
            await client.stop()

    assert asyncio.run(asyncio.wait_for(session(), WAIT)) == ["TVM101"]


def test_the_stdio_flag_clients_append_is_accepted(tmp_path):
    async def session() -> str:
        client = pytest_lsp.make_test_lsp_client()
        await client.start_io(*installed(["tvmlint", "lsp", "--stdio"]))
        try:
            result = await client.initialize_session(types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri()))
            await client.shutdown_session()
            return result.server_info.name
        finally:
            await client.stop()

    assert asyncio.run(asyncio.wait_for(session(), WAIT)) == "tvmlint"
