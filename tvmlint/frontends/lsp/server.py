"""The language server: diagnostics for open buffers, each finding's fix as a code action.

The server is a thin layer over `runner.check_text`: it keeps, per open
document, the text it last checked and the findings, and turns them into LSP
messages. Checks run on one worker thread so typing never waits on the event
loop, and a newer version of a buffer always wins over an older check.

Edits arrive as ranges (incremental sync) and are applied to the stored text with
LSP's own lines: ended by \n, \r\n or \r only (`Document`). A change is checked
DEBOUNCE_SECONDS after it, in a forked child (`run_check_apart`) that a newer change
kills: the last keystroke's check never waits behind an older one. Where there is
no fork, a check of an older version cannot be stopped: there the wait follows the
rhythm of typing (1.5 times the last gap between changes, at most
TYPING_DEBOUNCE_LIMIT), so that a check does not start between two keystrokes only
to hold up the last one's, and the next check starts as soon as the running one ends.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument, Workspace

from tvmlint import __version__
from tvmlint.base.diagnostics import Finding
from tvmlint.base.noqa import NoqaWriter
from tvmlint.base.source import split_lines
from tvmlint.frontends.lsp import notebooks
from tvmlint.frontends.lsp.convert import (
    SOURCE,
    diagnostic,
    explanation_hover,
    findings_hover,
    findings_markdown,
    noqa_action,
    noqa_code_at,
    quick_fix,
    rule_hover,
    skipped_hint,
    whole_change,
)
from tvmlint.frontends.lsp.traced import TraceCache
from tvmlint.frontends.lsp.transport import (
    REFUSED,
    BoundedInput,
    GuardedOutput,
    GuardedProtocol,
    refused_error,
)
from tvmlint.run.config import ConfigError, Overrides, Settings, SettingsResolver
from tvmlint.run.runner import check_text, check_text_in_project

log = logging.getLogger(__name__)

# after a change that follows a pause: enough to take a burst of changes (a paste, an
# editor's several edits for one action) as one; open and save check at once
DEBOUNCE_SECONDS = 0.05
# without fork: changes less than TYPING_GAP apart are typing, and the wait is 1.5 times the
# gap, up to TYPING_DEBOUNCE_LIMIT
TYPING_GAP = 0.5
TYPING_DEBOUNCE_LIMIT = 0.3
# a change's check runs in a child this server forks (with what it has loaded) and kills when
# the buffer changes again; macOS's system libraries do not survive fork in a threaded process.
# TVMLINT_LSP_FORK=0 checks in this process instead.
FORK_CHECKS = hasattr(os, "fork") and sys.platform != "darwin" and os.environ.get("TVMLINT_LSP_FORK") != "0"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.tvmlint"
PYTHON_SUFFIXES = (".py", ".pyi")
SETTINGS_FILE = "pyproject.toml"
# a file under these was installed, not written here (go-to-definition opens TVM's own source)
INSTALLED_DIRS = frozenset({"site-packages", "dist-packages"})


class Document(TextDocument):
    """pygls's document with LSP's lines: str.splitlines (pygls's) also ends a line at a form
    feed, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029, so a range edit after one (or
    inside a string holding one) landed on the wrong line and garbled the buffer. pygls applies
    a range edit, and converts its UTF-16 columns, over `lines`."""

    @property
    def lines(self) -> List[str]:
        return split_lines(self.source)


def use_lsp_lines(workspace: Workspace) -> None:
    """Make `workspace` keep its documents as `Document`s (pygls has no public hook for it)."""

    def create(doc_uri: str, source: Optional[str] = None, version: Optional[int] = None,
               language_id: Optional[str] = None) -> TextDocument:
        return Document(doc_uri, source=source, version=version, language_id=language_id,
                        sync_kind=workspace._sync_kind, position_codec=workspace.position_codec)

    workspace._create_text_document = create  # type: ignore[method-assign]


@dataclass
class Checked:
    """One check of one buffer: the text as it was and what was found in it."""

    version: Optional[int]
    text: str
    lines: List[str]
    findings: List[Finding] = field(default_factory=list)
    problem: Optional[str] = None  # a configuration (or internal) error instead of findings


def options_to_overrides(options: object) -> Overrides:
    """initializationOptions use the keys of [tool.tvmlint]: target-version, select, extend-select, ignore, config."""
    if not isinstance(options, dict):
        return Overrides()

    def codes(key: str) -> Tuple[str, ...]:
        value = options.get(key) or ()
        if isinstance(value, str):
            value = value.split(",")
        return tuple(str(item).strip() for item in value if str(item).strip())

    select = codes("select") if "select" in options else None
    config = options.get("config")
    return Overrides(
        target_version=options.get("target-version"),
        select=select,
        ignore=codes("ignore"),
        extend_select=codes("extend-select"),
        config=Path(config) if config else None,
    )


def apply_safe_fixes(text: str, path: Path, settings: Settings) -> str:
    """The text with every safe fix applied, as `tvmlint fix` would (rounds, each re-checked)."""
    from tvmlint.run.fixer import fix_text

    return fix_text(text, lambda candidate: check_text(candidate, path, settings), unsafe=False).fixed


class TvmlintLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tvmlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=GuardedProtocol, notebook_document_sync=notebooks.SYNC)
        self.overrides = Overrides()
        self.checked: Dict[str, Checked] = {}
        self.open: Set[str] = set()
        self.pending: Dict[str, asyncio.Task] = {}
        self.running: Set[str] = set()  # buffers with a check under way on the worker
        self.children: Dict[str, int] = {}  # uri -> pid of the child checking it
        self.last_change: Dict[str, float] = {}  # uri -> time.monotonic() of its last change
        self.debounce: Dict[str, float] = {}  # uri -> the wait after its last change
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tvmlint-check")
        self.inlay_hints = False  # initializationOptions {"inlay-hints": true} turns them on
        self.explained: Dict[str, Tuple[Optional[int], str, list]] = {}  # uri -> (version, text, explanations)
        # open notebooks: notebook uri -> each code cell's uri and its last check
        self.notebook_cells: Dict[str, Dict[str, Checked]] = {}
        self.traces = TraceCache()  # .tvmlint/trace.json, for hover

    # -- what a check needs -------------------------------------------------------------

    def root(self) -> Path:
        root = self.workspace.root_path
        return Path(root) if root else Path.cwd()

    def path_of(self, uri: str) -> Path:
        path = uris.to_fs_path(uri)
        if path:
            return Path(path)
        # an unsaved, untitled buffer: the workspace's settings apply
        return self.root() / "untitled.py"

    def settings_for(self, path: Path) -> Settings:
        # a fresh resolver each time, so an edited pyproject.toml applies to the next check
        return SettingsResolver(self.overrides, cwd=self.root()).for_path(path)

    def is_python(self, uri: str) -> bool:
        document = self.workspace.get_text_document(uri)
        return document.language_id == "python" or uri.endswith(PYTHON_SUFFIXES)

    def run_check(self, uri: str, text: str, version: Optional[int]) -> Checked:
        checked = Checked(version, text, split_lines(text))
        path = self.path_of(uri)
        try:
            resolver = SettingsResolver(self.overrides, cwd=self.root())
            settings = resolver.for_path(path)
            if not settings.is_excluded(path) and INSTALLED_DIRS.isdisjoint(path.parts):
                # judged with the project's other files, as `tvmlint check FILE` judges it (in this
                # process: it may be a child forked from a threaded server, no place for a pool)
                checked.findings = check_text_in_project(text, path, resolver, jobs=1)
        except ConfigError as error:
            checked.problem = str(error)
        except Exception as error:  # a bug of ours: say so in the buffer instead of going silent
            log.exception("checking %s failed", uri)
            checked.problem = f"internal error: {type(error).__name__}: {error} (please report it)"
        return checked

    def run_check_apart(self, uri: str, text: str, version: Optional[int]) -> Optional[Checked]:
        """run_check in a child forked for it, which `cancel_check` may kill: None then. A child
        that fails any other way (a finding that does not pickle) leaves it to this process."""
        if not FORK_CHECKS:
            return self.run_check(uri, text, version)
        import pickle

        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return self.run_check(uri, text, version)
        if pid == 0:  # the child: never back into the server, never onto its stdout
            code = 1
            try:
                os.close(read_end)
                quiet = os.open(os.devnull, os.O_RDWR)
                os.dup2(quiet, 0)
                os.dup2(quiet, 1)
                checked = self.run_check(uri, text, version)
                data = memoryview(pickle.dumps((checked.findings, checked.problem), pickle.HIGHEST_PROTOCOL))
                while data:
                    data = data[os.write(write_end, data):]
                code = 0
            except BaseException:
                pass
            finally:
                os._exit(code)
        os.close(write_end)
        self.children[uri] = pid
        chunks = []
        try:
            while True:
                chunk = os.read(read_end, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(read_end)
            if self.children.get(uri) == pid:
                del self.children[uri]  # before the wait: until then the pid is not reused
            _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            return None
        if status != 0:
            return self.run_check(uri, text, version)
        checked = Checked(version, text, split_lines(text))
        checked.findings, checked.problem = pickle.loads(b"".join(chunks))
        return checked

    def cancel_check(self, uri: str) -> None:
        """Kill the child checking `uri`, if one does: its version is not the buffer's any more."""
        pid = self.children.pop(uri, None)
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    # -- checking and publishing --------------------------------------------------------

    async def refresh(self, uri: str, apart: bool = False) -> None:
        """Check the buffer as it is and publish, unless it changed meanwhile. `apart`: in a
        child that a newer change kills (a change's check; open and save check here, which
        also loads what the children then start with)."""
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        loop = asyncio.get_running_loop()
        self.running.add(uri)
        try:
            checked = await loop.run_in_executor(
                self.worker, self.run_check_apart if apart else self.run_check, uri, text, version)
        finally:
            self.running.discard(uri)
        if uri not in self.open:
            return  # closed meanwhile
        if checked is None or self.workspace.get_text_document(uri).version != version:
            # changed during the check: the newer version is checked now, its debounce permitting
            if uri not in self.pending:
                self.check_soon(uri, self.debounce_left(uri), apart=True)
            return
        self.checked[uri] = checked
        self.publish(uri, checked)

    def changed(self, uri: str) -> None:
        """A change to an open buffer: checked after the debounce, or once the check under way
        (of an older version) ends, whichever is later."""
        now = time.monotonic()
        last = self.last_change.get(uri)
        gap = now - last if last is not None else TYPING_GAP
        typing = not FORK_CHECKS and gap < TYPING_GAP  # with fork, a check started too soon is killed
        self.debounce[uri] = min(TYPING_DEBOUNCE_LIMIT, max(DEBOUNCE_SECONDS, 1.5 * gap)) if typing else DEBOUNCE_SECONDS
        self.last_change[uri] = now
        self.cancel_check(uri)
        if uri in self.running and uri not in self.pending:
            return  # refresh() schedules the next check when the running one ends
        self.check_soon(uri, self.debounce[uri], apart=True)

    def debounce_left(self, uri: str) -> float:
        last = self.last_change.get(uri)
        if last is None:
            return 0.0
        return max(0.0, last + self.debounce.get(uri, DEBOUNCE_SECONDS) - time.monotonic())

    def publish(self, uri: str, checked: Checked) -> None:
        codec = self.workspace.get_text_document(uri).position_codec
        if checked.problem is not None:
            start = types.Position(line=0, character=0)
            diagnostics = [types.Diagnostic(
                range=types.Range(start=start, end=start), message=f"tvmlint: {checked.problem}",
                severity=types.DiagnosticSeverity.Error, source=SOURCE,
            )]
        else:
            diagnostics = [diagnostic(finding, checked.lines, codec) for finding in checked.findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=checked.version, diagnostics=diagnostics)
        )

    def cancel_pending(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()

    def check_soon(self, uri: str, delay: float, apart: bool = False, notebook: bool = False) -> None:
        """Check `uri` (a buffer, or with `notebook` a notebook) after `delay`, unless a newer call comes first."""
        self.cancel_pending(uri)

        async def later() -> None:
            await asyncio.sleep(delay)
            # no longer pending once it runs: a change during the check is left to refresh()
            if self.pending.get(uri) is task:
                del self.pending[uri]
            await (self.refresh_notebook(uri) if notebook else self.refresh(uri, apart))

        task = asyncio.ensure_future(later())
        self.pending[uri] = task

    async def current(self, uri: str) -> Optional[Checked]:
        """The check of the buffer as it is now, checking again if it has changed since."""
        document = self.workspace.get_text_document(uri)
        checked = self.checked.get(uri)
        if checked is None or checked.version != document.version or checked.text != document.source:
            loop = asyncio.get_running_loop()
            checked = await loop.run_in_executor(self.worker, self.run_check, uri, document.source, document.version)
        return checked

    # -- code actions -------------------------------------------------------------------

    async def code_actions(self, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        cell = self.cell_checked(uri)
        loop = asyncio.get_running_loop()
        if cell is not None:  # a notebook's cell: its line actions (a fix-all would span cells)
            codec = self.workspace.get_text_document(uri).position_codec
            return await loop.run_in_executor(self.worker, line_actions, uri, cell, params, codec)
        if uri not in self.open:
            return []
        checked = await self.current(uri)
        if checked is None or checked.problem is not None:
            return []
        wanted = params.context.only
        codec = self.workspace.get_text_document(uri).position_codec
        # on the worker: a noqa reads the whole buffer (the tokenizer), which typing must not wait on
        actions = await loop.run_in_executor(self.worker, line_actions, uri, checked, params, codec)
        if _wants(wanted, FIX_ALL_KIND) and any(f.fix and f.fix.safe for f in checked.findings):
            path = self.path_of(uri)
            fixed = await loop.run_in_executor(
                self.worker, apply_safe_fixes, checked.text, path, self.settings_for(path)
            )
            if fixed != checked.text:
                actions.append(types.CodeAction(
                    title="tvmlint: fix all safe fixes",
                    kind=FIX_ALL_KIND,
                    edit=whole_change(uri, checked.text, fixed, checked.lines, codec),
                ))
        return actions

    # -- hover and inlay hints: what runs at a pass call (tvmlint.frontends.explain) --------------------

    def _explain_setup(self, uri: str):
        from tvmlint.frontends.explain import project_root
        from tvmlint.run.tasks import display_path

        path = self.path_of(uri)
        resolver = SettingsResolver(self.overrides, cwd=self.root())
        settings = resolver.for_path(path)
        if settings.is_excluded(path) or not INSTALLED_DIRS.isdisjoint(path.parts):
            return None
        return path, resolver, display_path(path, self.root()), project_root(path, settings, self.root())

    def explain_at(self, uri: str, text: str, line: int, column: int):
        """The explanation of the site at a 0-based (line, character) of the buffer, or None."""
        from tvmlint.frontends.explain import NotASite, explain_at

        setup = self._explain_setup(uri)
        if setup is None:
            return None
        path, resolver, shown, root = setup
        try:
            return explain_at(path, (line + 1, column + 1), resolver, text=text, shown=shown, root=root)
        except (NotASite, SyntaxError, ConfigError):
            return None
        except Exception:  # libcst's parse errors among them: a buffer being typed
            log.debug("explaining %s failed", uri, exc_info=True)
            return None

    def explain_all(self, uri: str, text: str, version: Optional[int]) -> list:
        from tvmlint.frontends.explain import explain_all

        known = self.explained.get(uri)
        if known is not None and known[0] == version and known[1] == text:
            return known[2]
        setup = self._explain_setup(uri)
        explanations: list = []
        if setup is not None:
            path, resolver, shown, root = setup
            try:
                explanations = explain_all(path, resolver, text=text, shown=shown, root=root)
            except Exception:
                log.debug("explaining %s failed", uri, exc_info=True)
        self.explained[uri] = (version, text, explanations)
        return explanations

    async def hover(self, params: types.HoverParams) -> Optional[types.Hover]:
        uri = params.text_document.uri
        if not self.is_python(uri) or uri not in self.open:
            # only an open buffer: pygls would read a file that is not open from disk, a FIFO or
            # /dev/zero named like source included (waiting for ever, or without end)
            return None
        document = self.workspace.get_text_document(uri)
        text = document.source
        lines = split_lines(text)
        codec = document.position_codec
        where = codec.position_from_client_units(lines, params.position)
        if where.line < len(lines):
            code = noqa_code_at(lines[where.line], where.character)
            if code is not None:
                return rule_hover(code[0], where.line, code[1], code[2], lines, codec)
        # the findings under the cursor, from the buffer's last check (the editor shows their
        # one-sentence message; the hover adds each one's detail)
        checked = self.checked.get(uri)
        cursor = types.Range(start=params.position, end=params.position)
        here = [] if checked is None or checked.text != text else [
            finding for finding in checked.findings if _overlaps(diagnostic(finding, lines, codec).range, cursor)
        ]
        loop = asyncio.get_running_loop()
        explanation = await loop.run_in_executor(self.worker, self.explain_at, uri, text, where.line, where.character)
        if explanation is None:
            return findings_hover(here, lines, codec)
        traced = await loop.run_in_executor(self.worker, self.traced_at, uri, explanation)
        return explanation_hover(explanation, lines, codec, traced, findings_markdown(here))

    def traced_at(self, uri: str, explanation) -> Optional[str]:
        """What the kept trace says happened at the explained call (markdown), or None."""
        try:
            return self.traces.markdown_at(self.root(), self.path_of(uri), explanation.line, explanation.end_line)
        except Exception:  # a trace is an extra: never the hover's failure
            log.debug("reading the trace for %s failed", uri, exc_info=True)
            return None

    async def inlay(self, params: types.InlayHintParams) -> List[types.InlayHint]:
        uri = params.text_document.uri
        if not self.inlay_hints or not self.is_python(uri) or uri not in self.open:
            return []  # only an open buffer, as hover
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        loop = asyncio.get_running_loop()
        explanations = await loop.run_in_executor(self.worker, self.explain_all, uri, text, version)
        lines = split_lines(text)
        first, last = params.range.start.line + 1, params.range.end.line + 1
        hints = []
        for explanation in explanations:
            if first <= explanation.line <= last:
                hint = skipped_hint(explanation, lines, document.position_codec)
                if hint is not None:
                    hints.append(hint)
        return hints

    # -- notebooks: their code cells as one module (tvmlint.frontends.lsp.notebooks) -------------

    def cell_checked(self, uri: str) -> Optional[Checked]:
        for cells in self.notebook_cells.values():
            if uri in cells:
                return cells[uri]
        return None

    def run_notebook_check(self, uri: str, source) -> Checked:
        # a notebook has no other settings than its path's: checked as its .ipynb file would be
        checked = self.run_check(uri, source.text, None)
        if source.broken and checked.problem is None:  # cells that do not parse: TVM001 each, as check says
            from tvmlint.run.engine import parse_error

            path = self.path_of(uri)
            codes = self.settings_for(path).codes_for(path)
            for line, why in source.parse_errors():
                checked.findings.extend(parse_error(str(path), codes, line, 1, why))
        return checked

    async def refresh_notebook(self, uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        source, cell_uris = notebooks.module_of(notebook, self.workspace)
        version = notebook.version
        loop = asyncio.get_running_loop()
        checked = await loop.run_in_executor(self.worker, self.run_notebook_check, uri, source)
        now = self.workspace.get_notebook_document(notebook_uri=uri)
        if now is None or now.version != version:
            return  # closed or changed meanwhile: the change's own refresh publishes
        before = self.notebook_cells.get(uri, {})
        cells: Dict[str, Checked] = {}
        if checked.problem is not None:
            placed = {cell_uri: [] for cell_uri in notebooks.by_cell([], source, cell_uris)}
        else:
            placed = notebooks.by_cell(checked.findings, source, cell_uris)
        for cell_uri, findings in placed.items():
            text = self.workspace.get_text_document(cell_uri).source
            cells[cell_uri] = Checked(None, text, split_lines(text), findings, checked.problem)
        self.notebook_cells[uri] = cells
        for cell_uri, cell in cells.items():
            self.publish(cell_uri, cell)
        for gone in set(before) - set(cells):  # a cell deleted, or no longer code
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=gone, diagnostics=[]))

    # -- settings files: a changed pyproject.toml re-checks the buffers it applies to -----------

    def is_named_config(self, path: Path) -> bool:
        """Whether `path` is the `config` file initializationOptions named."""
        named = self.overrides.config
        return named is not None and _same_file(self.root() / named, path)

    def is_settings_file(self, path: Path) -> bool:
        return path.name == SETTINGS_FILE or self.is_named_config(path)

    def settings_changed(self, changed: Path) -> List[str]:
        """The open buffers and notebooks a change of the settings file `changed` may affect:
        those under its directory (the nearest pyproject.toml, and the project whose declared
        TVM sets an unset target, are both above the file), or all when it is the named config."""
        everything = sorted(self.open) + sorted(self.notebook_cells)
        if self.is_named_config(changed):
            return everything
        return [uri for uri in everything if _is_under(self.path_of(uri), changed.parent)]

    async def recheck_for(self, changed: Path) -> None:
        for uri in self.settings_changed(changed):
            if uri in self.notebook_cells:
                await self.refresh_notebook(uri)
            else:
                self.check_soon(uri, 0)

    async def watch_settings(self, capabilities: types.ClientCapabilities) -> None:
        """Ask a client that lets servers register file watchers to report pyproject.toml changes
        (workspace/didChangeWatchedFiles): edits made outside the editor apply at once."""
        workspace = capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=f"**/{SETTINGS_FILE}")])
        try:
            await self.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
                id="tvmlint-settings", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)]))
        except Exception as error:  # a client that refuses: saving the file in the editor still works
            log.info("the client did not register the pyproject.toml watcher: %s", error)

    def forget_notebook(self, uri: str) -> None:
        self.cancel_pending(uri)
        for cell_uri in self.notebook_cells.pop(uri, {}):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[]))

    def forget(self, uri: str) -> None:
        self.cancel_pending(uri)
        self.cancel_check(uri)
        self.open.discard(uri)
        self.checked.pop(uri, None)
        self.last_change.pop(uri, None)
        self.debounce.pop(uri, None)
        self.explained.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def line_actions(uri: str, checked: Checked, params: types.CodeActionParams, codec) -> List[types.CodeAction]:
    """The quick fixes for the findings the range touches: each one's fix, then a noqa for each."""
    if not _wants(params.context.only, types.CodeActionKind.QuickFix.value):
        return []
    touched = [f for f in checked.findings
               if _overlaps(diagnostic(f, checked.lines, codec).range, params.range)]
    if not touched:
        return []
    fixes = [quick_fix(uri, f, checked.lines, codec) for f in touched]
    writer = NoqaWriter(checked.text)  # the buffer read once, for every finding's noqa
    noqas = [noqa_action(uri, f, writer, codec) for f in touched]
    return [action for action in fixes + noqas if action is not None]


def _is_under(path: Path, directory: Path) -> bool:
    try:
        path.resolve().relative_to(directory.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


def _wants(only: Optional[Sequence[str]], kind: str) -> bool:
    """Whether the client's `only` filter (hierarchical kinds: "source" covers "source.fixAll.x") admits `kind`."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> Tuple[int, int]:
        return (position.line, position.character)

    return not (key(a.end) < key(b.start) or key(b.end) < key(a.start))


def build_server() -> TvmlintLanguageServer:
    server = TvmlintLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        use_lsp_lines(server.workspace)
        options = params.initialization_options
        try:
            overrides = options_to_overrides(options)
            SettingsResolver(overrides, cwd=server.root())  # the options' own mistakes show now
        except (ConfigError, TypeError, ValueError) as error:
            # bad initializationOptions: the server starts with the project's settings and says why
            overrides = Overrides()
            server.window_show_message(types.ShowMessageParams(
                types.MessageType.Error, f"tvmlint: initializationOptions ignored: {error}"))
        server.overrides = overrides
        server.inlay_hints = isinstance(options, dict) and options.get("inlay-hints") is True

    @server.feature(REFUSED)
    def refused(params) -> None:
        server.protocol._send_data(refused_error(params))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if server.is_python(uri):
            server.open.add(uri)
            await server.refresh(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in server.open:
            server.changed(uri)

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await server.watch_settings(server.client_capabilities)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = server.path_of(uri)
        if server.is_settings_file(path):
            await server.recheck_for(path)
        elif uri in server.open:
            server.cancel_pending(uri)
            await server.refresh(uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched_files_changed(params: types.DidChangeWatchedFilesParams) -> None:
        # created, changed or deleted: each is a change of the settings under it
        seen = set()
        for change in params.changes:
            path = server.path_of(change.uri)
            if path not in seen and server.is_settings_file(path):
                seen.add(path)
                await server.recheck_for(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in server.open:
            server.forget(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    async def notebook_did_open(params: types.DidOpenNotebookDocumentParams) -> None:
        await server.refresh_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(params: types.DidChangeNotebookDocumentParams) -> None:
        # as a buffer's change: checked once a burst of keystrokes pauses, the older check dropped
        server.check_soon(params.notebook_document.uri, TYPING_DEBOUNCE_LIMIT, notebook=True)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    async def notebook_did_save(params: types.DidSaveNotebookDocumentParams) -> None:
        await server.refresh_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(params: types.DidCloseNotebookDocumentParams) -> None:
        server.forget_notebook(params.notebook_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]),
    )
    async def code_action(params: types.CodeActionParams) -> List[types.CodeAction]:
        return await server.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> Optional[types.Hover]:
        return await server.hover(params)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(params: types.InlayHintParams) -> List[types.InlayHint]:
        return await server.inlay(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        for uri in list(server.pending):
            server.cancel_pending(uri)
        for uri in list(server.children):
            server.cancel_check(uri)
        server.worker.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> None:
    """Run over stdin/stdout until the client says exit (or closes the pipe)."""
    logging.basicConfig(level=logging.WARNING, format="tvmlint lsp: %(levelname)s %(message)s")
    output = getattr(sys.stdout, "buffer", None)
    if output is None:  # closed by the shell (`>&-`): the command line's one-line error, exit 2
        raise OSError(errno.EBADF, "the stream is closed")
    from tvmlint.run.guards import remember_parts

    remember_parts()  # a large buffer is checked after every change; most of its parts stay as they were
    build_server().start_io(stdin=BoundedInput(sys.stdin.buffer), stdout=GuardedOutput(output))
