"""Source locations: spans that ride on every model object, and the texts they point into."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict


class Span(BaseModel):
    """A region of one source file; 1-based lines and columns, end exclusive.

    Spans never take part in equality or hashing: two model objects that say the
    same thing from different places are equal.
    """

    model_config = ConfigDict(frozen=True)

    file: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __eq__(self, other: object) -> bool:  # spans are invisible to equality
        return other is None or isinstance(other, Span)

    def __hash__(self) -> int:
        return 0

    def key(self) -> tuple[str, int, int]:
        """Sort key: by file, then position."""
        return (self.file, self.line, self.column)

    def same_place(self, other: "Span | None") -> bool:
        """Real comparison, for the rare caller that needs one."""
        return other is not None and self.key() == other.key() and (
            self.end_line, self.end_column) == (other.end_line, other.end_column)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Spans(BaseModel):
    """Spans of an object's fields, keyed by field name (or a dotted path below it)."""

    model_config = ConfigDict(frozen=True)

    items: dict[str, Span] = {}

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Spans)

    def __hash__(self) -> int:
        return 0

    def get(self, key: str, default: Span | None = None) -> Span | None:
        return self.items.get(key, default)


NO_SPANS = Spans()


def spans(**items: Span | None) -> Spans:
    """Build a Spans from keyword arguments, dropping missing ones."""
    return Spans(items={k.replace("__", "."): v for k, v in items.items() if v is not None})


STDIN_NAME = "<stdin>"  # standard input's name in spans
KAD_SUFFIXES = (".kad",)
_MANIFEST = re.compile(r'\A\s*(---|\{|\[)|^(- )?"?(apiVersion|kind|items)"?\s*:', re.M)


def is_manifest_text(text: str) -> bool:
    """YAML or JSON manifests rather than `.kad` policy."""
    return bool(_MANIFEST.search(text))


class SourceMap:
    """The texts of every file read in one run, by the path used in spans."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._lines: dict[str, list[str]] = {}

    def add(self, path: str, text: str) -> None:
        self._texts[path] = text
        self._lines.pop(path, None)

    def text(self, path: str) -> str | None:
        return self._texts.get(path)

    def is_kad(self, path: str) -> bool:
        """Whether `path` holds `.kad` policy (standard input: told by its text), not manifests."""
        if path == STDIN_NAME:
            return not is_manifest_text(self._texts.get(path, ""))
        return path.endswith(KAD_SUFFIXES)

    def items(self) -> list[tuple[str, str]]:
        """Every (path, text), sorted by path."""
        return sorted(self._texts.items())

    def update(self, other: "SourceMap") -> None:
        """Add every text of `other` (texts already here are kept)."""
        for path, text in other._texts.items():
            self._texts.setdefault(path, text)

    def line(self, path: str, line: int) -> str | None:
        """The text of 1-based `line` of `path`, without its newline."""
        if path not in self._texts:
            return None
        lines = self._lines.get(path)
        if lines is None:
            lines = self._texts[path].splitlines()
            self._lines[path] = lines
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None

    def __contains__(self, path: Any) -> bool:
        return path in self._texts
