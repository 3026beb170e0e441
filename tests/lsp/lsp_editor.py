"""An editor for the tests: pygls's own language client, driving a `kadmit lsp` subprocess over
standard input and output as an editor does, made synchronous (its event loop runs in a thread)."""

from __future__ import annotations

import ast
import asyncio
import os
import sys
import threading
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

SRC = Path(__file__).resolve().parents[2] / "src"


class Editor:
    """One `kadmit lsp` process with a workspace folder `root`, started from working directory `cwd`."""

    def __init__(self, root: Path | None, cwd: Path, *, code_lens_refresh: bool = False) -> None:
        self.root, self.cwd = root, cwd
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client = LanguageClient("kadmit-tests", "1")
        self.cond = threading.Condition()
        self.published: dict[str, list[tuple[int | None, list[types.Diagnostic]]]] = {}
        self.logs: list[types.LogMessageParams] = []
        self.messages: list[types.ShowMessageParams] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self._events(code_lens_refresh)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
        self.call(self.client.start_io(sys.executable, "-m", "kadmit", "lsp", cwd=str(cwd), env=env))
        caps = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                workspace_folders=True, code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=code_lens_refresh)),
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True, version_support=True)))
        folders = [types.WorkspaceFolder(from_fs_path(str(root)), root.name)] if root is not None else None
        self.init = self.call(self.client.initialize_async(types.InitializeParams(
            capabilities=caps, process_id=os.getpid(), root_uri=folders[0].uri if folders else None,
            workspace_folders=folders)))
        self.client.initialized(types.InitializedParams())

    def _events(self, code_lens_refresh: bool) -> None:
        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams) -> None:
            with self.cond:
                self.published.setdefault(params.uri, []).append((params.version, list(params.diagnostics)))
                self.cond.notify_all()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            self.logs.append(params)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def show(params: types.ShowMessageParams) -> None:
            self.messages.append(params)

        if code_lens_refresh:
            @self.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
            def refresh(params) -> None:
                return None

    def call(self, coro, timeout: float = 120.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    # --- documents -----------------------------------------------------------------------------

    def uri(self, path: Path) -> str:
        return from_fs_path(str(path))

    def open(self, path: Path, text: str | None = None) -> str:
        """Open `path` (its text on disk, or `text`); versions go on from an earlier opening, so that
        what was published for that one is never taken for this one's."""
        uri = self.uri(path)
        text = path.read_text(encoding="utf-8") if text is None else text
        self.versions[uri] = self.versions.get(uri, 0) + 1
        self.texts[uri] = text
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "kadmit" if path.suffix == ".kad" else "yaml", self.versions[uri], text)))
        return uri

    def change(self, uri: str, text: str) -> int:
        """Replace the whole text (as an editor sends a full change)."""
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.versions[uri], uri),
            [types.TextDocumentContentChangeWholeDocument(text)]))
        return self.versions[uri]

    def edit(self, uri: str, start: tuple[int, int], end: tuple[int, int], new: str, text_after: str) -> int:
        """An incremental change: the range (0-based lines, UTF-16 characters) replaced by `new`."""
        self.versions[uri] += 1
        self.texts[uri] = text_after
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.versions[uri], uri),
            [types.TextDocumentContentChangePartial(types.Range(types.Position(*start), types.Position(*end)), new)]))
        return self.versions[uri]

    def close_document(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60.0,
                    after: int = 0) -> list[types.Diagnostic]:
        """The diagnostics published for `uri` (for its `version`, when given), waiting for them;
        `after`: only a publication after that many of them."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                got = [d for v, d in self.published.get(uri, []) if version is None or v == version][after:]
                if got:
                    return got[-1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no diagnostics for {uri} version {version}")
                self.cond.wait(left)

    def latest(self, uri: str) -> list[types.Diagnostic] | None:
        with self.cond:
            got = self.published.get(uri)
            return got[-1][1] if got else None

    # --- requests ------------------------------------------------------------------------------

    def _doc(self, uri: str) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri)

    def hover(self, uri: str, line: int, character: int):
        return self.call(self.client.text_document_hover_async(
            types.HoverParams(self._doc(uri), types.Position(line, character))))

    def definition(self, uri: str, line: int, character: int):
        return self.call(self.client.text_document_definition_async(
            types.DefinitionParams(self._doc(uri), types.Position(line, character))))

    def references(self, uri: str, line: int, character: int, declaration: bool = True):
        return self.call(self.client.text_document_references_async(types.ReferenceParams(
            types.ReferenceContext(declaration), self._doc(uri), types.Position(line, character))))

    def completion(self, uri: str, line: int, character: int):
        return self.call(self.client.text_document_completion_async(
            types.CompletionParams(self._doc(uri), types.Position(line, character))))

    def formatting(self, uri: str):
        return self.call(self.client.text_document_formatting_async(types.DocumentFormattingParams(
            self._doc(uri), types.FormattingOptions(2, True))))

    def code_actions(self, uri: str, start: tuple[int, int], end: tuple[int, int] | None = None):
        rng = types.Range(types.Position(*start), types.Position(*(end or start)))
        return self.call(self.client.text_document_code_action_async(types.CodeActionParams(
            self._doc(uri), rng, types.CodeActionContext([]))))

    def code_lens(self, uri: str):
        return self.call(self.client.text_document_code_lens_async(types.CodeLensParams(self._doc(uri))))

    def execute(self, command: types.Command | str):
        if isinstance(command, str):  # lsprotocol's client reads a code action's command as its repr
            got = ast.literal_eval(command)
            command = types.Command(got["title"], got["command"], arguments=got.get("arguments"))
        return self.call(self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command.command, command.arguments)))

    def errors(self) -> list[str]:
        """Internal errors the server logged (a test that sees one fails)."""
        return [m.message for m in self.logs if m.type == types.MessageType.Error]

    def stop(self) -> int | None:
        try:
            self.call(self.client.shutdown_async(None), timeout=30)
            self.client.exit(None)
            self.call(self.client.stop(), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
        server = self.client._server
        return server.returncode if server is not None else None


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """`text` with the protocol's edits applied (UTF-16 positions; later edits first)."""
    lines = text.split("\n")

    def offset(pos: types.Position) -> int:
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = col = 0
        for c in line:
            if units >= pos.character:
                break
            units += 2 if ord(c) > 0xFFFF else 1
            col += 1
        return sum(len(x) + 1 for x in lines[:pos.line]) + col

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text
