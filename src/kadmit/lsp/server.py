"""The language server: the protocol's messages to `kadmit.editor` and back."""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from kadmit.editor import Project, Snapshot
from kadmit.editor import actions, complete, hover
from kadmit.lsp.convert import Lines, diagnostic, name_of, path_of, text_edits, uri_of
from kadmit.lsp.document import use_protocol_documents
from kadmit.render.editor import why_summary
from kadmit.render.sarif import tool_version
from kadmit.workspace import display_name

WHY = "kadmit.why"
_KINDS = {"keyword": types.CompletionItemKind.Keyword, "flavor": types.CompletionItemKind.Class,
          "cohort": types.CompletionItemKind.Module, "cluster_queue": types.CompletionItemKind.Struct,
          "local_queue": types.CompletionItemKind.Struct, "priority": types.CompletionItemKind.Constant,
          "topology": types.CompletionItemKind.Class, "level": types.CompletionItemKind.EnumMember,
          "resource": types.CompletionItemKind.Unit, "value": types.CompletionItemKind.EnumMember,
          "field": types.CompletionItemKind.Field, "admission_check": types.CompletionItemKind.Interface,
          "check_config": types.CompletionItemKind.Module, "multikueue_cluster": types.CompletionItemKind.Module,
          "feature_gate": types.CompletionItemKind.Property}


class KadmitServer(LanguageServer):
    """Projects (workspace folders, and files opened outside them) and what was last published."""

    def __init__(self) -> None:
        super().__init__("kadmit", tool_version())
        self.projects: list[Project] = []
        self.published: dict[str, set[str]] = {}  # project paths -> the files it published diagnostics for
        self.pending: set[int] = set()  # ids of projects whose diagnostics are to be published
        self.flush_scheduled = False

    # --- projects ---------------------------------------------------------------------------------

    def project_of(self, path: Path) -> Project:
        for p in self.projects:
            if p.contains(path):
                return p
        project = Project([display_name(path)])  # a file opened alone: `kadmit check FILE`
        self.projects.append(project)
        return project

    def snapshot_of(self, uri: str) -> tuple[Snapshot, str, Lines] | None:
        """The project's snapshot holding the document, its name in spans, and its lines."""
        path = path_of(uri)
        if path is None:
            return None
        snap = self.project_of(path).snapshot()
        name = display_name(path)
        text = snap.text(name)
        if text is None:
            doc = self.workspace.get_text_document(uri)
            text = doc.source
        return snap, name, Lines(text, self.encoding)

    @property
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or "utf-16")

    def lines_of(self, snap: Snapshot, name: str) -> Lines | None:
        text = snap.text(name)
        return Lines(text, self.encoding) if text is not None else None

    # --- diagnostics ------------------------------------------------------------------------------

    def changed(self, project: Project) -> None:
        project.changed()
        self.pending.add(id(project))
        if not self.flush_scheduled:
            self.flush_scheduled = True
            asyncio.get_event_loop().call_later(0.02, self.flush)

    def flush(self) -> None:
        self.flush_scheduled = False
        for project in self.projects:
            if id(project) in self.pending:
                self.pending.discard(id(project))
                guarded(self, lambda: self.publish(project))

    def publish(self, project: Project) -> None:
        """Every file's diagnostics as `kadmit check` of the project gives them; files whose
        diagnostics went away get an empty list."""
        snap = project.snapshot()
        key = "\0".join(project.paths)
        before = self.published.get(key, set())
        open_docs = {name_of(uri): doc for uri, doc in self.workspace.text_documents.items()}
        names = set(snap.by_file) - {""} | {n for n in open_docs if n and project.contains(Path(n))}
        for name in sorted(names | before, key=lambda n: (n in open_docs, n)):  # the open documents last
            # a file kadmit couldn't read (binary, too large) has no text: its diagnostics sit at its start
            lines = self.lines_of(snap, name) or Lines("", self.encoding)
            found = snap.by_file.get(name, []) + (snap.by_file.get("", []) if name in open_docs else [])
            out = [diagnostic(d, lines, functools.partial(self.lines_of, snap)) for d in found]
            doc = open_docs.get(name)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri_of(name), out, version=doc.version if doc is not None else None))
        self.published[key] = {n for n in names if snap.by_file.get(n)} | {n for n in names if n in open_docs}


def guarded(server: KadmitServer, work, default=None):
    """Run a handler's work; a bug in kadmit becomes a logged error and an empty answer, never a
    dead server."""
    try:
        return work()
    except Exception as e:  # noqa: BLE001 - the one place the server's exceptions stop
        logging.getLogger("kadmit.lsp").error("%s", traceback.format_exc())
        server.window_log_message(types.LogMessageParams(
            types.MessageType.Error, f"kadmit: internal error: {type(e).__name__}: {e} (this is a bug in kadmit)"))
        return default


server = KadmitServer()


def _handler(method: str, options=None):
    """Register `method`; its work runs guarded."""
    def wrap(f):
        @functools.wraps(f)
        def run(ls: KadmitServer, params):
            return guarded(ls, lambda: f(ls, params))
        return server.feature(method, options)(run) if options is not None else server.feature(method)(run)
    return wrap


@_handler(types.INITIALIZE)
def initialize(ls: KadmitServer, params: types.InitializeParams) -> None:
    use_protocol_documents(ls.workspace)  # made just before this handler runs


@_handler(types.INITIALIZED)
def initialized(ls: KadmitServer, params) -> None:
    folders = [f.uri for f in ls.workspace.folders.values()] or ([ls.workspace.root_uri] if ls.workspace.root_uri else [])
    for uri in folders:
        path = path_of(uri)
        if path is not None and path.is_dir():
            ls.projects.append(Project([display_name(path)]))
    caps = ls.client_capabilities.workspace
    if caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration:
        ls.client_register_capability(types.RegistrationParams([types.Registration(
            "kadmit-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            types.DidChangeWatchedFilesRegistrationOptions([types.FileSystemWatcher(glob)
                                                            for glob in ("**/*.kad", "**/*.yaml", "**/*.yml", "**/*.json")]))]))


@_handler(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def folders_changed(ls: KadmitServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    gone = {display_name(p) for f in params.event.removed if (p := path_of(f.uri)) is not None}
    for project in [p for p in ls.projects if p.paths[0] in gone]:
        ls.projects.remove(project)
        for name in ls.published.pop("\0".join(project.paths), set()):
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri_of(name), []))
    for f in params.event.added:
        path = path_of(f.uri)
        if path is not None and path.is_dir():
            project = Project([display_name(path)])
            for uri, doc in ls.workspace.text_documents.items():
                if (p := path_of(uri)) is not None and project.contains(p):
                    project.set_text(p, doc.source)  # the open documents' texts go with them
            ls.projects.insert(0, project)
            ls.changed(project)


def _set(ls: KadmitServer, uri: str, text: str | None) -> None:
    path = path_of(uri)
    if path is not None:
        project = ls.project_of(path)
        project.set_text(path, text)
        ls.changed(project)


@_handler(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KadmitServer, params: types.DidOpenTextDocumentParams) -> None:
    _set(ls, params.text_document.uri, params.text_document.text)


@_handler(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: KadmitServer, params: types.DidChangeTextDocumentParams) -> None:
    _set(ls, params.text_document.uri, ls.workspace.get_text_document(params.text_document.uri).source)


@_handler(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KadmitServer, params: types.DidCloseTextDocumentParams) -> None:
    _set(ls, params.text_document.uri, None)


@_handler(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def files_changed(ls: KadmitServer, params) -> None:
    for project in ls.projects:
        ls.changed(project)


@_handler(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: KadmitServer, params: types.HoverParams) -> types.Hover | None:
    got = ls.snapshot_of(params.text_document.uri)
    if got is None:
        return None
    snap, name, lines = got
    found = hover.hover(snap, name, *lines.place(params.position))
    if found is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, found.markdown), lines.range(found.span))


def _occurrence(ls: KadmitServer, params):
    got = ls.snapshot_of(params.text_document.uri)
    if got is None:
        return None, None
    snap, name, lines = got
    return snap, snap.symbols.at(name, *lines.place(params.position))


def _locations(ls: KadmitServer, snap: Snapshot, occurrences) -> list[types.Location]:
    out = []
    for o in occurrences:
        lines = ls.lines_of(snap, o.span.file)
        if lines is not None:
            out.append(types.Location(uri_of(o.span.file), lines.range(o.span)))
    return out


@_handler(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: KadmitServer, params: types.DefinitionParams) -> list[types.Location] | None:
    snap, occ = _occurrence(ls, params)
    if occ is None:
        return None
    found = snap.symbols.definitions(occ.kind, occ.name) or snap.symbols.references(occ.kind, occ.name)[:1]
    return _locations(ls, snap, found)


@_handler(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: KadmitServer, params: types.ReferenceParams) -> list[types.Location] | None:
    snap, occ = _occurrence(ls, params)
    if occ is None:
        return None
    found = snap.symbols.references(occ.kind, occ.name)
    if params.context.include_declaration:
        found = snap.symbols.definitions(occ.kind, occ.name) + found
    return _locations(ls, snap, found)


@_handler(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", "=", " ", "{", "[", ","]))
def completion(ls: KadmitServer, params: types.CompletionParams) -> types.CompletionList | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    if not doc.uri.endswith(".kad"):
        return None
    path = path_of(doc.uri)
    snap = ls.project_of(path).snapshot() if path is not None else None
    text = doc.source
    lines = Lines(text, ls.encoding)
    offset = lines.offset(params.position)
    got = complete.complete(snap, text, offset)
    before = text[:got.start]
    line = before.count("\n") + 1
    start = lines.position(line, got.start - (before.rfind("\n") + 1) + 1)
    rng = types.Range(start, params.position)
    items = [types.CompletionItem(i.label, kind=_KINDS.get(i.kind), detail=i.detail or i.kind,
                                  text_edit=types.TextEdit(rng, i.label), sort_text=f"{n:05d}")
             for n, i in enumerate(got.items)]
    return types.CompletionList(is_incomplete=False, items=items)


@_handler(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: KadmitServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    name = name_of(doc.uri)
    if name is None or not name.endswith(".kad"):
        return None
    text = doc.source
    new = actions.formatted(text, name)
    if new is None or new == text:
        return []
    return [types.TextEdit(Lines(text, ls.encoding).whole(), new)]


@_handler(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_action(ls: KadmitServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    got = ls.snapshot_of(params.text_document.uri)
    if got is None:
        return None
    snap, name, lines = got
    first, last = lines.place(params.range.start), lines.place(params.range.end)
    out: list[types.CodeAction] = []
    for d in snap.by_file.get(name, []):
        span = d.span
        if span is None or (span.end_line or span.line, span.end_column or span.column) < first or (span.line, span.column) > last:
            continue
        action = actions.did_you_mean(d, snap.text(name))
        if action is not None:
            out.append(_action(ls, snap, action, [diagnostic(d, lines, functools.partial(ls.lines_of, snap))]))
    wl = _workload_at(snap, name, first)
    if wl is not None:
        fixes = actions.why_fixes(snap, wl)
        out += [_action(ls, snap, a, None) for a in fixes]
        if actions.known_why(snap, wl) is None:
            out.append(types.CodeAction(f"kadmit why `{wl}`: explain and prove fixes", kind=types.CodeActionKind.QuickFix,
                                        command=types.Command(f"kadmit why {wl}", WHY, arguments=[wl, params.text_document.uri])))
    return out


def _action(ls: KadmitServer, snap: Snapshot, action: actions.Action, diagnostics) -> types.CodeAction:
    edit = types.WorkspaceEdit(changes=text_edits(action.edits, functools.partial(ls.lines_of, snap)))
    return types.CodeAction(action.title, kind=types.CodeActionKind.QuickFix, diagnostics=diagnostics,
                            edit=edit, is_preferred=action.preferred or None)


def _workload_at(snap: Snapshot, name: str, place: tuple[int, int]) -> str | None:
    """The pending workload whose statement holds `place`."""
    line, column = place
    for w in snap.model.workloads:
        s = w.span
        if s is not None and s.file == name and w.admission is None and \
                (s.line, s.column) <= (line, column) <= (s.end_line or s.line, s.end_column or s.column):
            return w.key
    return None


@_handler(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: KadmitServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    got = ls.snapshot_of(params.text_document.uri)
    if got is None:
        return None
    snap, name, lines = got
    out = []
    for w in snap.model.workloads:
        s = w.span
        if s is None or s.file != name or w.admission is not None or w.finished:
            continue
        known = actions.known_why(snap, w.key)
        title = why_summary(known.result) if known is not None and known.result is not None else "kadmit why"
        rng = lines.range(w.spans.get("name") or s)
        out.append(types.CodeLens(rng, types.Command(title, WHY, arguments=[w.key, params.text_document.uri])))
    return out


@server.command(WHY)
def why_command(ls: KadmitServer, workload: str, uri: str | None = None) -> str | None:
    """`kadmit why WORKLOAD` on the project of `uri`: its summary shown, its proven fixes offered as
    code actions on the workload."""
    def work():
        project = ls.project_of(path_of(uri)) if uri else (ls.projects[0] if ls.projects else None)
        if project is None:
            return None
        snap = project.snapshot()
        outcome = actions.why(snap, workload)
        if outcome.result is None:
            text = "; ".join(d.message for d in outcome.diagnostics[:3]) or f"kadmit why `{workload}`: no answer"
        else:
            text = why_summary(outcome.result)
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, text))
        caps = ls.client_capabilities.workspace
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            ls.workspace_code_lens_refresh(None)
        return text
    return guarded(ls, work)


def serve() -> None:
    logging.basicConfig(level=logging.WARNING)
    server.start_io()
