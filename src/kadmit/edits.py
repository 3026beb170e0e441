"""Edits of the input text: `old` -> `new` at a place on one line of one file, applied to texts and
shown as unified diffs."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from kadmit.source import Span


class EditConflict(ValueError):
    """An edit's `old` text is not where it says, or two edits overlap."""


@dataclass(frozen=True, order=True)
class Edit:
    """Replace `old` by `new` at 1-based `line`, `column` of `file` (the text must be there)."""

    file: str
    line: int
    column: int
    old: str
    new: str

    @staticmethod
    def at(span: Span, old: str, new: str) -> "Edit":
        return Edit(span.file, span.line, span.column, old, new)

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "old": self.old, "new": self.new}


def apply(text: str, edits: list[Edit]) -> str:
    """`text` with every edit applied (edits of one file; later columns first, so earlier ones
    stay where they are)."""
    lines = text.splitlines(keepends=True)
    taken: dict[int, list[tuple[int, int]]] = {}
    for e in sorted(edits, key=lambda e: (e.line, -e.column)):
        if not 1 <= e.line <= len(lines):
            raise EditConflict(f"{e.file}:{e.line}: no such line")
        line = lines[e.line - 1]
        start = e.column - 1
        if line[start:start + len(e.old)] != e.old:
            raise EditConflict(f"{e.file}:{e.line}:{e.column}: `{e.old}` is not there")
        end = start + len(e.old)
        if any(s < end and start < t for s, t in taken.get(e.line, [])):
            raise EditConflict(f"{e.file}:{e.line}: overlapping edits")
        taken.setdefault(e.line, []).append((start, end))
        lines[e.line - 1] = line[:start] + e.new + line[end:]
    return "".join(lines)


def apply_all(texts: dict[str, str], edits: list[Edit]) -> dict[str, str]:
    """The new text of every file the edits touch, by file name."""
    out: dict[str, str] = {}
    for name in sorted({e.file for e in edits}):
        if name not in texts:
            raise EditConflict(f"{name}: not an input file")
        out[name] = apply(texts[name], [e for e in edits if e.file == name])
    return out


def unified_diff(texts: dict[str, str], edits: list[Edit]) -> str:
    """The edits as a unified diff against `texts` (a/… b/… paths, as `git apply` and `patch -p1`
    read them)."""
    out: list[str] = []
    for name, new in apply_all(texts, edits).items():
        lines = difflib.unified_diff(texts[name].splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=f"a/{name}", tofile=f"b/{name}")
        out.extend(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return "".join(out)
