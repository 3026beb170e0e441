"""Between kadmit's places and the protocol's: spans (1-based lines, columns in characters) and
positions (0-based lines, columns in the client's code units: UTF-16 unless negotiated), display
names and URIs, diagnostics and edits."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from kadmit.diagnostics import Diagnostic, Severity
from kadmit.edits import Edit
from kadmit.source import Span
from kadmit.workspace import display_name

_WORD = re.compile(r"[^\s{}\[\](),=:]+")
_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.NOTE: types.DiagnosticSeverity.Information}


class Lines:
    """A text split into lines as kadmit counts them (at `\\n`), measured in the client's code units."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.lines = text.split("\n")
        self.encoding = encoding

    def units(self, s: str) -> int:
        if self.encoding == "utf-32":
            return len(s)
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)

    def position(self, line: int, column: int) -> types.Position:
        """1-based `line`, `column` (characters) -> the protocol's position, clamped to the text."""
        if line < 1:
            return types.Position(0, 0)
        if line > len(self.lines):
            return types.Position(len(self.lines) - 1, self.units(self.lines[-1]))
        text = self.lines[line - 1]
        return types.Position(line - 1, self.units(text[:max(0, column - 1)]))

    def place(self, pos: types.Position) -> tuple[int, int]:
        """The protocol's position -> 1-based line and column in characters, clamped to the text."""
        line = min(max(pos.line, 0), len(self.lines) - 1)
        text = self.lines[line]
        units = col = 0
        for c in text:
            if units >= pos.character:
                break
            units += self.units(c)
            col += 1
        return line + 1, col + 1

    def offset(self, pos: types.Position) -> int:
        """The character offset of a protocol position in the text."""
        line, col = self.place(pos)
        return sum(len(x) + 1 for x in self.lines[:line - 1]) + col - 1

    def range(self, span: Span) -> types.Range:
        """A span's range; one without an end covers the word at its start."""
        start = self.position(span.line, span.column)
        if span.end_line is not None and span.end_column is not None:
            return types.Range(start, self.position(span.end_line, span.end_column))
        text = self.lines[span.line - 1] if 1 <= span.line <= len(self.lines) else ""
        m = _WORD.match(text, max(0, span.column - 1))
        end = m.end() + 1 if m else span.column
        return types.Range(start, self.position(span.line, end))

    def whole(self) -> types.Range:
        return types.Range(types.Position(0, 0), types.Position(len(self.lines) - 1, self.units(self.lines[-1])))


def path_of(uri: str) -> Path | None:
    path = to_fs_path(uri)
    return Path(path) if path else None


def name_of(uri: str) -> str | None:
    """The name kadmit's spans give the file at `uri`."""
    path = path_of(uri)
    return display_name(path) if path is not None else None


def uri_of(name: str) -> str:
    """The URI of the file a span names (relative to the server's working directory)."""
    return from_fs_path(str(Path(name).absolute())) or name


def diagnostic(d: Diagnostic, lines: Lines, lines_of) -> types.Diagnostic:
    """A kadmit diagnostic as the protocol's: code, message with its help and notes, labels as
    related locations (`lines_of(name)` gives another file's lines)."""
    message = d.message
    if d.help:
        message += f"\nhelp: {d.help}"
    for note in d.notes:
        message += f"\nnote: {note}"
    related = []
    for label in d.labels:
        other = lines if label.span.file == (d.span.file if d.span else None) else lines_of(label.span.file)
        if other is not None:
            related.append(types.DiagnosticRelatedInformation(
                types.Location(uri_of(label.span.file), other.range(label.span)), label.message))
    where = lines.range(d.span) if d.span is not None else types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.Diagnostic(where, message, severity=_SEVERITY[d.severity], code=d.code, source="kadmit",
                            related_information=related or None)


def text_edits(edits: list[Edit], lines_of) -> dict[str, list[types.TextEdit]]:
    """Edits by file URI, each over its `old` text."""
    out: dict[str, list[types.TextEdit]] = {}
    for e in sorted(edits):
        lines = lines_of(e.file)
        if lines is None:
            continue
        end = Span(e.file, e.line, e.column + len(e.old), e.line, e.column + len(e.old))
        rng = types.Range(lines.position(e.line, e.column), lines.position(end.line, end.column))
        out.setdefault(uri_of(e.file), []).append(types.TextEdit(rng, e.new))
    return out
