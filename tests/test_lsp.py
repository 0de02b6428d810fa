"""`tvmlint lsp` started as a subprocess and driven over stdio by a real LSP client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest
import pytest_lsp
from helpers import REPO
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "tvmlint", "lsp"]
WAIT = 120  # seconds; the first check imports libcst and reads the rule tables

BUFFER = (
    "import tvm\n"
    "from tvm import relay\n"
    "\n"
    "mod = relay.transform.FoldScaleAxis()(mod)\n"
    "with relay.build_config(opt_level=3):\n"
    "    lib = relay.build(mod, target=\"llvm\")\n"
    "relay.build_config(opt_level=3)\n"
)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path):
    # The buffer's directory holds the settings that apply to it; the file itself never exists on disk.
    (tmp_path / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-version = "0.19"\n', encoding="utf-8")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


async def publish_after(client: LanguageClient, send, uri: str) -> types.PublishDiagnosticsParams:
    """Do `send`, then wait for the server to publish diagnostics for `uri`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    send()
    while True:
        params = await asyncio.wait_for(waiter, max(0.1, deadline - loop.time()))
        if params.uri == uri:
            return params
        waiter = client.protocol.wait_for_notification_async(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


def open_buffer(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
    ))


def apply(text: str, edits) -> str:
    """Apply LSP text edits (BMP text with \\n endings here, so UTF-16 units are characters)."""
    lines = text.split("\n")  # only \n ends a line: a form feed does not
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: types.Position) -> int:
        return starts[min(position.line, len(lines))] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def code_actions(client: LanguageClient, uri: str, range_: types.Range, only=None):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=range_,
        context=types.CodeActionContext(diagnostics=[], only=only),
    ))


def change_by(uri: str, version: int, edits) -> types.DidChangeTextDocumentParams:
    """The user takes a code action: the editor sends its edits as an incremental change."""
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[
            types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)
            for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
        ],
    )


@pytest.mark.asyncio
async def test_diagnostics_fix_change_close(client: LanguageClient, tmp_path):
    uri = (tmp_path / "job.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, BUFFER), uri)
    codes = sorted(d.code for d in published.diagnostics)
    # each build_config use is a TVM202 of its own, so the editor marks every line that must change
    assert codes == ["TVM101", "TVM103", "TVM202", "TVM202"], [d.message for d in published.diagnostics]
    assert published.version == 1
    fold = next(d for d in published.diagnostics if d.code == "TVM101")
    assert fold.source == "tvmlint"
    assert fold.severity == types.DiagnosticSeverity.Error
    assert fold.code_description.href.endswith("/TVM101.toml")
    assert "BackwardFoldScaleAxis and ForwardFoldScaleAxis (opt_level 3)" in fold.message
    # line 4, columns 7..43 in tvmlint's 1-based counting
    assert (fold.range.start.line, fold.range.start.character) == (3, 6)
    assert (fold.range.end.line, fold.range.end.character) == (3, 42)
    deprecated = [d for d in published.diagnostics if d.code == "TVM202"]
    assert all(d.severity == types.DiagnosticSeverity.Warning for d in deprecated)
    assert [(d.range.start.line, d.range.start.character) for d in deprecated] == [(4, 5), (6, 0)]

    # on the FoldScaleAxis line: its own (unsafe) fix, and the document-wide safe fixes
    actions = await code_actions(client, uri, fold.range)
    quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    # the fix first, then the line's noqa
    assert [a.title for a in quick][1:] == ["TVM101: add `# noqa: TVM101` on this line"], [a.title for a in actions]
    unsafe = quick[0]
    assert unsafe.title.startswith("TVM101: ") and "unsafe" in unsafe.title
    assert not unsafe.is_preferred and unsafe.diagnostics[0].code == "TVM101"
    fixed = apply(BUFFER, unsafe.edit.changes[uri])
    assert "with tvm.transform.PassContext(opt_level=3):\n    mod = relay.transform.FoldScaleAxis()(mod)\n" in fixed
    assert [a.kind for a in actions if a not in quick] == ["source.fixAll.tvmlint"]

    # on a build_config: a safe, preferred quick fix
    [safe, _] = [a for a in await code_actions(client, uri, deprecated[0].range) if a.kind == "quickfix"]
    assert safe.is_preferred and "unsafe" not in safe.title
    assert apply(BUFFER, safe.edit.changes[uri]).splitlines()[4] == "with tvm.transform.PassContext(opt_level=3):"

    # "fix all safe", asked for the way editors do on save (only: source.fixAll)
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=7, character=0))
    [fix_all] = await code_actions(client, uri, whole, only=[types.CodeActionKind.SourceFixAll])
    after_fix_all = apply(BUFFER, fix_all.edit.changes[uri])
    assert after_fix_all == BUFFER.replace("relay.build_config", "tvm.transform.PassContext")

    published = await publish_after(
        client, lambda: client.text_document_did_change(change_by(uri, 2, fix_all.edit.changes[uri])), uri)
    assert sorted(d.code for d in published.diagnostics) == ["TVM101", "TVM103"]
    assert published.version == 2

    # then the unsafe one, asked for again on the changed buffer
    fold = next(d for d in published.diagnostics if d.code == "TVM101")
    [unsafe, _] = [a for a in await code_actions(client, uri, fold.range) if a.kind == "quickfix"]
    published = await publish_after(
        client, lambda: client.text_document_did_change(change_by(uri, 3, unsafe.edit.changes[uri])), uri)
    assert [d.code for d in published.diagnostics] == ["TVM103"]
    assert published.version == 3
    assert published.diagnostics[0].range.start.line == 7  # one line further down now

    published = await publish_after(client, lambda: client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    ), uri)
    assert list(published.diagnostics) == []


@pytest.mark.asyncio
async def test_add_noqa_writes_what_check_add_noqa_writes(client: LanguageClient, tmp_path):
    text = (
        "from tvm import relay\n"
        "mod = relay.transform.FoldScaleAxis()(mod)  # type: ignore  # noqa: TVM103\n"
        "mod = relay.transform.FoldScaleAxis()(mod)\n"
    )
    # the command line's answer, on the same text in a file beside the buffer
    (tmp_path / "on_disk.py").write_text(text, encoding="utf-8")
    done = subprocess.run([*SERVER[:-1], "check", "--add-noqa", "on_disk.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    expected = (tmp_path / "on_disk.py").read_text(encoding="utf-8")
    assert expected != text

    uri = (tmp_path / "job.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, text), uri)
    for version in (2, 3):  # the user silences each line's finding in turn
        [first, *_] = [d for d in published.diagnostics if d.code == "TVM101"]
        actions = await code_actions(client, uri, first.range)
        [noqa] = [a for a in actions if "noqa" in a.title]
        assert noqa.kind == types.CodeActionKind.QuickFix and not noqa.is_preferred
        assert noqa.diagnostics[0].code == "TVM101"
        edits = noqa.edit.changes[uri]
        assert len(edits) == 1 and edits[0].range.start.line == first.range.start.line  # one line, nothing else
        text = apply(text, edits)
        published = await publish_after(client, lambda: client.text_document_did_change(change_by(uri, version, edits)), uri)
    # merged into the comment already there, as the command line merges it
    assert text == expected
    assert "# type: ignore  # noqa: TVM103, TVM101\n" in text
    assert [d.code for d in published.diagnostics] == []


@pytest.mark.asyncio
async def test_noqa_for_a_line_inside_a_string_goes_where_it_ends(client: LanguageClient, tmp_path):
    # the call ends inside a string that runs on: a comment there would be text of the string
    text = 'from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod); doc = """\nnot code\n"""\n'
    uri = (tmp_path / "job.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, text), uri)
    [fold] = [d for d in published.diagnostics if d.code == "TVM101"]
    actions = await code_actions(client, uri, fold.range)
    [noqa] = [a for a in actions if "noqa" in a.title]
    [edit] = noqa.edit.changes[uri]
    # the directive goes where the string ends, as `check --add-noqa` puts it
    assert apply(text, [edit]).endswith('not code\n"""  # noqa: TVM101\n')


@pytest.mark.long
@pytest.mark.asyncio
async def test_code_actions_over_a_buffer_of_many_findings_come_back(client: LanguageClient, tmp_path):
    # select all, then ask for quick fixes: each finding's noqa must not read the buffer anew
    # (10,000 tokenizer runs over 10,000 lines took minutes). A bound against that blow-up, not
    # a speed target.
    count = 10_000
    text = "from tvm import relay\n" + "mod = relay.transform.FoldScaleAxis()(mod)\n" * count
    uri = (tmp_path / "many.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, text), uri)
    assert len(published.diagnostics) == count
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=count + 1, character=0))
    started = time.monotonic()
    actions = await asyncio.wait_for(code_actions(client, uri, whole, only=[types.CodeActionKind.QuickFix]), WAIT)
    took = time.monotonic() - started
    noqas = [a for a in actions if "noqa" in a.title]
    assert [a.edit.changes[uri][0].range.start.line for a in noqas] == list(range(1, count + 1))
    assert {a.edit.changes[uri][0].new_text for a in noqas} == {"  # noqa: TVM101"}
    assert took < 60, f"{count} findings' code actions took {took:.0f} s"


@pytest.mark.asyncio
async def test_fix_all_after_a_form_feed_line(client: LanguageClient, tmp_path):
    # an old-style page break: Python and LSP see one line here, str.splitlines two
    text = BUFFER.replace("\nmod = ", "\n\x0c\nmod = ")
    uri = (tmp_path / "paged.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, text), uri)
    fold = next(d for d in published.diagnostics if d.code == "TVM101")
    assert fold.range.start.line == 4
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=8, character=0))
    [fix_all] = await code_actions(client, uri, whole, only=[types.CodeActionKind.SourceFixAll])
    assert apply(text, fix_all.edit.changes[uri]) == text.replace("relay.build_config", "tvm.transform.PassContext")


@pytest.mark.asyncio
async def test_typing_burst_is_checked_once_at_the_end(client: LanguageClient, tmp_path):
    uri = (tmp_path / "burst.py").as_uri()
    await publish_after(client, lambda: open_buffer(client, uri, "import tvm\n"), uri)
    text = "import tvm\n"
    addition = "from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\n"

    def type_quickly() -> None:
        for version, char in enumerate(addition, start=2):
            end = types.Position(line=text.count("\n") + addition[: version - 2].count("\n"),
                                 character=len(addition[: version - 2].rsplit("\n", 1)[-1]))
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=end, end=end), text=char)],
            ))

    published = await publish_after(client, type_quickly, uri)
    # debounced: the first diagnostics after the burst are for the last version, not an early one
    assert published.version == len(addition) + 1
    assert [d.code for d in published.diagnostics] == ["TVM101"]


@pytest.mark.asyncio
async def test_columns_are_utf16_code_units(client: LanguageClient, tmp_path):
    uri = (tmp_path / "emoji.py").as_uri()
    text = 'from tvm import relay\nx = "\U0001F60B"; mod = relay.transform.FoldScaleAxis()(mod)\n'
    published = await publish_after(client, lambda: open_buffer(client, uri, text), uri)
    [fold] = published.diagnostics
    line = text.splitlines()[1]
    start = line.index("relay")
    # the emoji is one character to tvmlint and two UTF-16 code units to the client
    assert fold.range.start.character == start + 1
    assert fold.range.end.character == len(line) + 1


@pytest.mark.asyncio
async def test_configuration_error_is_shown_in_the_buffer(client: LanguageClient, tmp_path):
    project = tmp_path / "broken"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.tvmlint]\ntarget-versoin = "0.19"\n', encoding="utf-8")
    uri = (project / "job.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, BUFFER), uri)
    [problem] = published.diagnostics
    assert "target-versoin" in problem.message and "pyproject.toml" in problem.message
    assert problem.severity == types.DiagnosticSeverity.Error


@pytest.mark.asyncio
async def test_other_languages_are_left_alone(client: LanguageClient, tmp_path):
    toml_uri = (tmp_path / "notes.md").as_uri()
    py_uri = (tmp_path / "after.py").as_uri()

    def send() -> None:
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=toml_uri, language_id="markdown", version=1,
                                                 text="relay.transform.FoldScaleAxis()(mod)\n")))
        open_buffer(client, py_uri, "import tvm\n")

    # the markdown file gets nothing; the next thing published is the Python buffer's
    published = await publish_after(client, send, py_uri)
    assert list(published.diagnostics) == []
    assert toml_uri not in client.diagnostics


@pytest.mark.asyncio
async def test_save_checks_and_a_saved_pyproject_rechecks_open_buffers(client: LanguageClient, tmp_path):
    uri = (tmp_path / "job.py").as_uri()
    published = await publish_after(client, lambda: open_buffer(client, uri, BUFFER), uri)
    assert "TVM101" in [d.code for d in published.diagnostics]

    def save(target: str) -> None:
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=target)))

    published = await publish_after(client, lambda: save(uri), uri)
    assert "TVM101" in [d.code for d in published.diagnostics]

    # the user narrows the selection in pyproject.toml and saves it: the open buffer follows
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.tvmlint]\ntarget-version = "0.19"\nselect = ["TVM103"]\n', encoding="utf-8")
    published = await publish_after(client, lambda: save(pyproject.as_uri()), uri)
    assert [d.code for d in published.diagnostics] == ["TVM103"]


@pytest.mark.asyncio
async def test_excluded_and_installed_files_get_no_diagnostics(client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tvmlint]\ntarget-version = "0.19"\nexclude = ["generated"]\n', encoding="utf-8")
    generated = (tmp_path / "generated" / "job.py").as_uri()
    # a file of an installed package, opened by go-to-definition: not the user's code to fix
    installed = (tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "tvm" / "job.py").as_uri()
    checked = (tmp_path / "src" / "job.py").as_uri()

    def send() -> None:
        open_buffer(client, generated, BUFFER)
        open_buffer(client, installed, BUFFER)
        open_buffer(client, checked, BUFFER)

    published = await publish_after(client, send, checked)
    assert "TVM101" in [d.code for d in published.diagnostics]
    assert not client.diagnostics.get(generated) and not client.diagnostics.get(installed)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def configured_client(lsp_client: LanguageClient, tmp_path):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("neovim"),
        root_uri=tmp_path.as_uri(),
        initialization_options={"target-version": "0.19", "select": ["TVM1"], "ignore": ["TVM103"]},
    ))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_initialization_options_set_the_target(configured_client: LanguageClient, tmp_path):
    # no pyproject.toml here: without the options the installed apache-tvm (0.27, no Relay) would apply
    uri = (tmp_path / "job.py").as_uri()
    published = await publish_after(configured_client, lambda: open_buffer(configured_client, uri, BUFFER), uri)
    assert [d.code for d in published.diagnostics] == ["TVM101"]


def test_shutdown_and_exit_end_the_process(tmp_path):
    async def session() -> int:
        client = pytest_lsp.make_test_lsp_client()
        await client.start_io(*SERVER)
        result = await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("emacs"), root_uri=tmp_path.as_uri()))
        assert result.server_info.name == "tvmlint"
        await client.shutdown_session()  # shutdown, exit, then waits for the process
        code = client._server.returncode
        await client.stop()
        return code

    assert asyncio.run(asyncio.wait_for(session(), WAIT)) == 0


def test_without_pygls_one_clear_line_and_exit_2(tmp_path):
    # a pygls that cannot be imported, ahead of the real one on the path
    (tmp_path / "pygls").mkdir()
    (tmp_path / "pygls" / "__init__.py").write_text("raise ImportError(\"No module named 'pygls'\")\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    done = subprocess.run(SERVER, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=WAIT,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'tvmlint[lsp]'" in lines[0], done.stderr
    assert done.stdout == ""


def test_check_does_not_import_pygls(tmp_path):
    probe = (
        "import sys\nfrom tvmlint.frontends.cli import main\n"
        "code = main(['check', sys.argv[1]])\n"
        "print('pygls' in sys.modules, 'lsprotocol' in sys.modules)\n"
    )
    (tmp_path / "job.py").write_text(BUFFER, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "job.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=WAIT)
    assert done.stdout.strip().splitlines()[-1] == "False False", done.stdout + done.stderr
