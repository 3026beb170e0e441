"""A manifest file read document by document, so that an edited copy is read again only where edited.

`read_indexed` reads a YAML text exactly as `read_manifest_text` does and keeps, for each of its
documents, the lines it spans and what reading it gave: its objects (slices of the fragment's
lists), its diagnostics and the objects of kinds kadmit does not read (reported once per kind for
the whole file). `reread` then reads the file once edits are applied to its text by parsing and
converting only the documents the edits touch and splicing them in place of the old ones: the
fragment and diagnostics are the ones reading the whole edited text gives (a property test holds
the two equal), with every position exact.

A document is a segment of lines: from a `---` line at column 0 to the next one (the first from
the file's start). PyYAML and libyaml end whatever is open at such a line (a plain or block
scalar, the indentation of blocks) or fail there (a quoted scalar or a flow collection still open),
so the tokens of one segment never depend on another's: a document parsed alone, behind as many
empty lines as come before it, gives the same located tree. What crosses documents is handled
exactly or makes `reread` answer None (read the whole file):
- the per-kind list of unread kinds (`Fragment.unread_kinds`, KAD159's: first object, count) is made again
  from every document's share;
- alias expansion is bounded per file: a touched document holding a `*` is read with the file;
- a parse problem (syntax, tags, an alias, nesting) in the original file disables the index; in an
  edited document it makes `reread` answer None (a fatal one stops the whole file's reading);
- the structure: an edit across lines, one that adds or removes a `---`, a `...` or a directive
  (`%`), or characters YAML counts as line breaks other than `\\n` (`\\r\\n` is fine) -> None.
Cross-document model work (job kinds resolved through other objects, duplicate names) happens
after merging, on the spliced fragment, as for any read.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass

from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit.edits import Edit, apply
from kadmit.manifests.reader import _Reader, restartable
from kadmit.manifests.yamltree import Val, parse_documents
from kadmit.model import SKIPPED_NAMED, Fragment

_SPACE = re.compile(r"\s*")
_TARGETS = tuple(Fragment.model_fields)
_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\ufeff")


def _separator(text: str, at: int) -> bool:
    """Whether the line starting at `at` is a document start (`---` then a blank or the end)."""
    return text.startswith("---", at) and (at + 3 == len(text) or text[at + 3] in " \t\r\n")


def _plain_lines(text: str) -> bool:
    """Whether `\\n` alone breaks lines as YAML sees them (`\\r\\n` included) and no line is a
    document end (`...`) or a directive (`%`)."""
    if any(c in text for c in _BREAKS):
        return False
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return False
    if text.startswith("%") or "\n%" in text:
        return False
    for start in ([0] if text.startswith("...") else []) + _all(text, "\n..."):
        at = start if start == 0 and text.startswith("...") else start + 1
        if text.startswith("...", at) and (at + 3 == len(text) or text[at + 3] in " \t\r\n"):
            return False
    return True


def _all(text: str, needle: str, start: int = 0) -> list[int]:
    out = []
    i = text.find(needle, start)
    while i >= 0:
        out.append(i)
        i = text.find(needle, i + 1)
    return out


def segments(text: str) -> tuple[list[int], list[int]] | None:
    """The first line (0-based) and first character of each document segment, plus (as the last
    offset) the text's length; None when lines or documents are not plain (see `_plain_lines`)."""
    if not _plain_lines(text):
        return None
    lines, offsets = [0], [0]
    line, prev = 0, 0
    for i in _all(text, "\n---"):
        if _separator(text, i + 1):
            line += text.count("\n", prev, i + 1)
            prev = i + 1
            lines.append(line)
            offsets.append(i + 1)
    offsets.append(len(text))
    return lines, offsets


def _json_like(text: str) -> bool:
    """Whether the text starts like JSON: PyYAML's own scanner (without libyaml) then reads it with
    tabs as spaces, which a document read alone would not."""
    at = _SPACE.match(text).end()
    return text[at:at + 1] in ("{", "[")


class _Logged(_Reader):
    """The manifest reader, also noting which document the objects of an unread kind came from:
    `log` holds [segment, apiVersion, kind, the first's span, how many] per run of one kind in one
    segment. A file whose reading counts some kind's objects past SKIPPED_NAMED (`compacting`) is
    read again whole when edited, so its log is dropped."""

    def __init__(self, file: str, diags: Diagnostics, text: str | None, lines: list[int]) -> None:
        super().__init__(file, diags, text)
        self.doc = 0
        self.lines = lines  # each segment's first line
        self.log: list[list] = []
        self.compacting = False

    def list_item(self, values: dict, item: Val) -> bool:
        self.doc = bisect_right(self.lines, item.line) - 1
        return super().list_item(values, item)

    def skip(self, node: Val, api_version: str, kind: str, reason: str) -> None:
        super().skip(node, api_version, kind, reason)
        if self.compacting:
            return
        if self.skipped[api_version, kind][1] > SKIPPED_NAMED + 1:
            self.compacting = True
            self.log = []
            return
        last = self.log[-1] if self.log else None
        if last is not None and last[0] == self.doc and last[1] == api_version and last[2] == kind:
            last[4] += 1
        else:
            self.log.append([self.doc, api_version, kind, self.f.span(node), 1])


class _Sizes:
    """Per segment, the fragment's list lengths once it was read, as one array (4 bytes a segment)
    per list some segment grew rather than a tuple per segment: `sizes[s]` is segment s's tuple."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.count = 0
        self.grown: dict[int, array] = {}

    def append(self, here: tuple[int, ...]) -> None:
        grown = self.grown
        held = 0  # the lists grown already that hold items
        for k, got in grown.items():
            n = here[k]
            got.append(n)
            held += n != 0
        if self.width - here.count(0) > held:  # some list grows for the first time (most segments: none)
            for k, n in enumerate(here):
                if n and k not in grown:
                    got = grown[k] = array("I", bytes(4 * self.count))  # the segments before: none
                    got.append(n)
        self.count += 1

    def __getitem__(self, s: int) -> tuple[int, ...]:
        if not 0 <= s < self.count:
            raise IndexError(s)
        return tuple(self.grown[k][s] if k in self.grown else 0 for k in range(self.width))

    def __len__(self) -> int:
        return self.count


@dataclass
class Indexed:
    """One manifest file as read, by document segment (see the module's text)."""

    file: str
    text: str
    lines: list[int]  # first line of each segment (0-based)
    offsets: list[int]  # first character of each segment, then len(text)
    sizes: _Sizes  # per segment: the fragment's list lengths once it was read
    diag_ends: array  # per segment: how many of `diags` were emitted once it was read
    diags: list[Diagnostic]  # the conversion's diagnostics in document order (KAD159 excepted)
    log: list[list]  # objects of unread kinds: [segment, apiVersion, kind, first span, count] (`_Logged`)
    fragment: Fragment

    def segment(self, line: int) -> int:
        """The segment holding 0-based `line`."""
        return bisect_right(self.lines, line) - 1


def read_indexed(text: str, file: str, diags: Diagnostics, trees: list | None = None) -> tuple[Fragment, Indexed | None]:
    """`read_manifest_text(text, file, diags)`, with the file's index when it can be read again by
    document (None: the text's lines or documents aren't plain, or reading it reported a problem of
    the YAML itself). `trees`: the text's documents as `parse_documents` reads them, made already (a
    cluster read: `live.emit`), taken instead of parsing the text again."""
    return restartable(lambda lists: _read_indexed(text, file, diags, trees, lists), diags)


def _read_indexed(text: str, file: str, diags: Diagnostics, trees: list | None,
                  lists_streamed: bool) -> tuple[Fragment, Indexed | None]:
    seg = segments(text)
    lines, offsets = seg if seg is not None else ([0], [0, len(text)])
    reader = _Logged(file, diags, text, lines)
    lists = [getattr(reader.fragment, t) for t in _TARGETS]
    first = len(diags.items)
    ok = seg is not None and not (len(seg[0]) > 1 and _json_like(text))
    count = len(lines)
    sizes = _Sizes(len(lists))
    diag_ends = array("I")
    here = tuple(0 for _ in lists)
    here_diags = 0
    done = -1  # the last segment read
    mark = first
    docs = trees if trees is not None else parse_documents(text, file, diags, lister=reader if lists_streamed else None)
    for doc in docs:
        if len(diags.items) != mark or reader.compacting:
            ok = False  # reported while parsing (not converting), or read again whole when edited
        if doc is not None and ok:
            s = bisect_right(lines, doc.line) - 1
            if s <= done or (s + 1 < count and doc.end_line >= lines[s + 1]):
                ok = False
            else:
                while done < s - 1:  # segments without a document
                    done += 1
                    sizes.append(here)
                    diag_ends.append(here_diags)
                reader.doc = s
        if doc is not None:
            reader.document(doc)
        if ok and doc is not None:
            done += 1
            here = tuple(map(len, lists))
            here_diags = len(diags.items) - first
            sizes.append(here)
            diag_ends.append(here_diags)
        mark = len(diags.items)
    if len(diags.items) != mark:
        ok = False
    reader.finish()
    converted = diags.items[first:]
    if reader.compact():
        ok = False
    reader.report_skipped()
    if not ok:
        return reader.fragment, None
    while done < count - 1:
        done += 1
        sizes.append(here)
        diag_ends.append(len(converted))
    return reader.fragment, Indexed(file, text, lines, offsets, sizes, diag_ends, converted, reader.log,
                                    reader.fragment)


def reread(index: Indexed, edits: list[Edit]) -> tuple[Fragment, list[Diagnostic]] | None:
    """What reading the file's text with `edits` applied gives (its fragment and diagnostics, in the
    order reading it whole emits them), reading only the documents the edits touch; None when that
    can't be done exactly (then read the whole edited text). Raises `EditConflict` as `edits.apply`
    does for an edit that doesn't apply."""
    if not edits or any(e.file != index.file or e.line < 1 or "\n" in e.old + e.new or "\r" in e.old + e.new
                        for e in edits):
        return None
    by_segment: dict[int, list[Edit]] = {}
    for e in edits:
        by_segment.setdefault(index.segment(e.line - 1), []).append(e)
    read: dict[int, tuple[list[list], list[Diagnostic], list[list]]] = {}
    for s in sorted(by_segment):
        got = _read_segment(index, s, by_segment[s])
        if got is None:
            return None
        read[s] = got
    return _splice(index, read)


def _read_segment(index: Indexed, s: int, edits: list[Edit]):
    """Segment `s` with its edits, parsed behind its lines' worth of empty lines and converted: the
    objects it adds to each fragment list, its diagnostics and its unread objects; None when it is
    no longer exactly one segment without parse problems."""
    start = index.lines[s]
    old = index.text[index.offsets[s]:index.offsets[s + 1]]
    text = apply(old, [Edit(e.file, e.line - start, e.column, e.old, e.new) for e in edits])
    if (s > 0 or _separator(old, 0)) != _separator(text, 0) or "*" in text:
        return None
    cut = segments(text)
    if cut is None or len(cut[0]) != 1:
        return None
    padded = "\n" * start + text
    parsed = Diagnostics()
    docs = [d for d in parse_documents(padded, index.file, parsed) if d is not None]
    if parsed.items or len(docs) > 1:
        return None
    diags = Diagnostics()
    reader = _Logged(index.file, diags, padded, index.lines)
    reader.doc = s
    for doc in docs:
        reader.document(doc)
    if reader.compacting:
        return None
    return [getattr(reader.fragment, t) for t in _TARGETS], diags.items, reader.log


def _splice(index: Indexed, read: dict) -> tuple[Fragment, list[Diagnostic]] | None:
    """The file's fragment and diagnostics with the segments in `read` replaced; None when the edited
    file holds more objects of an unread kind than are listed by name (reading it whole counts them)."""
    def before(s: int) -> tuple[int, ...]:
        return index.sizes[s - 1] if s > 0 else tuple(0 for _ in _TARGETS)

    fields = {}
    for k, name in enumerate(_TARGETS):
        old = getattr(index.fragment, name)
        out, at = [], 0
        for s, (lists, _, _) in read.items():
            out.extend(old[at:before(s)[k]])
            out.extend(lists[k])
            at = index.sizes[s][k]
        out.extend(old[at:])
        fields[name] = out
    diags, at = [], 0
    for s, (_, emitted, _) in read.items():
        diags.extend(index.diags[at:index.diag_ends[s - 1] if s > 0 else 0])
        diags.extend(emitted)
        at = index.diag_ends[s]
    diags.extend(index.diags[at:])
    log = sorted([x for x in index.log if x[0] not in read] + [x for _, _, got in read.values() for x in got],
                 key=lambda x: x[0])
    report = Diagnostics()
    reader = _Reader(index.file, report)
    for _, api_version, kind, span, count in log:
        got = reader.skipped.get((api_version, kind))
        if got is None:
            got = reader.skipped[api_version, kind] = [span, 0, -1]
        got[1] += count
        if got[1] > SKIPPED_NAMED + 1:
            return None
    reader.report_skipped()
    fields["unread_kinds"] = reader.fragment.unread_kinds  # the file's, counted over every segment (not spliced)
    return Fragment.model_construct(**fields), diags + report.items
