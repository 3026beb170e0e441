"""Open documents changed as the protocol says: an incremental change's range counts lines split at
`\\r\\n`, `\\r` or `\\n` and clamps a character past a line's end to that end (pygls's own document
splits with `str.splitlines`, which also breaks at `\\x0b`, `\\x0c`, `\\x1c`-`\\x1e`, `\\x85`,
`\\u2028` and `\\u2029`, and clamps to one character before the end)."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from kadmit.lsp.convert import Lines


class Document(TextDocument):
    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        lines = Lines(self.source, str(self.position_codec.encoding or "utf-16"))
        start, end = lines.offset(change.range.start), lines.offset(change.range.end)
        end = max(start, end)
        self._source = self.source[:start] + change.text + self.source[end:]


def use_protocol_documents(workspace: Workspace) -> None:
    """Make the documents `workspace` opens from now on `Document`s (pygls 2.x creates them in
    `Workspace._create_text_document`; the server calls this when the workspace is made, before any
    document is opened)."""

    def create(doc_uri: str, source: str | None = None, version: int | None = None,
               language_id: str | None = None) -> TextDocument:
        return Document(doc_uri, source=source, version=version, language_id=language_id,
                        sync_kind=workspace._sync_kind, position_codec=workspace.position_codec)

    workspace._create_text_document = create
