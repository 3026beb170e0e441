"""Between kadmit's places and the protocol's: spans (1-based lines, columns in characters) and
positions (0-based lines, columns in the client's code units: UTF-16 unless negotiated), display
names and URIs, diagnostics and edits."""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from kadmit.diagnostics import Diagnostic, Severity, Subject
from kadmit.edits import Edit
from kadmit.source import Span
from kadmit.workspace import display_name

_WORD = re.compile(r"[^\s{}\[\](),=:]+")
_BREAK = re.compile(r"\r\n|\r|\n")  # the protocol's line breaks
_NEWLINE = re.compile(r"\n")
_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.NOTE: types.DiagnosticSeverity.Information}


class Lines:
    """A text between kadmit's places (1-based lines split at `\\n` as the parser counts them, columns
    in characters) and the protocol's positions (0-based lines split at `\\r\\n`, `\\r` or `\\n` as
    the protocol splits them, columns in the client's code units). The two differ where a lone `\\r`
    stands in the text: for the protocol it ends a line, for kadmit it is a character of one."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0]  # the protocol's lines: where each starts, and ends before its break
        self.ends = []
        for m in _BREAK.finditer(text):
            self.ends.append(m.start())
            self.starts.append(m.end())
        self.ends.append(len(text))
        self.kad = [0] + [m.end() for m in _NEWLINE.finditer(text)]  # where kadmit's lines start

    def units(self, s: str) -> int:
        if self.encoding == "utf-32":
            return len(s)
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)

    def _kad_end(self, i: int) -> int:
        """Where kadmit's line `i` (0-based) ends, before its `\\n`."""
        return self.kad[i + 1] - 1 if i + 1 < len(self.kad) else len(self.text)

    def at(self, offset: int) -> types.Position:
        """The protocol's position of a character offset (one inside a `\\r\\n` is its line's end)."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return types.Position(line, self.units(self.text[self.starts[line]:min(offset, self.ends[line])]))

    def position(self, line: int, column: int) -> types.Position:
        """1-based `line`, `column` (characters) -> the protocol's position, clamped to the text."""
        if line < 1:
            return types.Position(0, 0)
        if line > len(self.kad):
            return self.at(len(self.text))
        return self.at(min(self.kad[line - 1] + max(0, column - 1), self._kad_end(line - 1)))

    def offset(self, pos: types.Position) -> int:
        """The character offset of a protocol position in the text, clamped to its line."""
        line = min(max(pos.line, 0), len(self.starts) - 1)
        at, units = self.starts[line], 0
        while at < self.ends[line] and units < pos.character:
            units += self.units(self.text[at])
            at += 1
        return at

    def place(self, pos: types.Position) -> tuple[int, int]:
        """The protocol's position -> 1-based line and column in characters, clamped to the text."""
        offset = self.offset(pos)
        line = bisect.bisect_right(self.kad, offset)
        return line, offset - self.kad[line - 1] + 1

    def range(self, span: Span) -> types.Range:
        """A span's range; one without an end covers the word at its start."""
        start = self.position(span.line, span.column)
        if span.end_line is not None and span.end_column is not None:
            return types.Range(start, self.position(span.end_line, span.end_column))
        text = self.text[self.kad[span.line - 1]:self._kad_end(span.line - 1)] if 1 <= span.line <= len(self.kad) else ""
        m = _WORD.match(text, max(0, span.column - 1))
        end = m.end() + 1 if m else span.column
        return types.Range(start, self.position(span.line, end))

    def whole(self) -> types.Range:
        return types.Range(types.Position(0, 0), self.at(len(self.text)))


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


def subject_text(s: Subject) -> str:
    """An object a diagnostic is about, as its `about:` line shows it: `Job ns/j`, `ClusterQueue cq`."""
    key = f"{s.namespace}/{s.name}" if s.namespace is not None else s.name
    return f"{s.kind} `{key}`" if key else s.kind


def diagnostic(d: Diagnostic, lines: Lines, lines_of) -> types.Diagnostic:
    """A kadmit diagnostic as the protocol's: code, message with its help, notes and the objects it is about
    (`about:`, also as `data.about`, each as JSON's `about` gives it), labels as related locations
    (`lines_of(name)` gives another file's lines)."""
    message = d.message
    if d.help:
        message += f"\nhelp: {d.help}"
    for note in d.notes:
        message += f"\nnote: {note}"
    if d.about:
        message += "\nabout: " + ", ".join(subject_text(s) for s in d.about)
    related = []
    for label in d.labels:
        other = lines if label.span.file == (d.span.file if d.span else None) else lines_of(label.span.file)
        if other is not None:
            related.append(types.DiagnosticRelatedInformation(
                types.Location(uri_of(label.span.file), other.range(label.span)), label.message))
    where = lines.range(d.span) if d.span is not None else types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.Diagnostic(where, message, severity=_SEVERITY[d.severity], code=d.code, source="kadmit",
                            related_information=related or None,
                            data={"about": [s.as_dict() for s in d.about]} if d.about else None)


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
