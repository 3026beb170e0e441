"""YAML (and JSON) text -> located value trees, built from parser events with bounded work.

Only PyYAML's parser runs (libyaml's when present); its resolver and constructors do not: each scalar
(and key) is read as kubectl reads it, by go-yaml v2 through sigs.k8s.io/yaml (goyaml.py).
The tree is built here from events so that every node keeps its location, aliases are counted
as they would expand (a shared node counts each time it is reached) and nesting is bounded:
a "billion laughs" document is refused before anything walks it.
"""

from __future__ import annotations

import math
from typing import Iterator

from kadmit.pyyaml import yaml  # first: PyYAML's import-time regular expressions compiled when used
from yaml import events as ev

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import goyaml
from kadmit.manifests.codes import KAD150, KAD151, KAD152, KAD153, KAD173
from kadmit.source import Span, located

_new_tuple = tuple.__new__  # `located`, inline: a span for every value read

MAX_EXPANDED_NODES = 2_000_000  # nodes reached through aliases, per file
MAX_DEPTH = 100

_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

MAP, SEQ, STR, INT, FLOAT, BOOL, NULL, TIME, OTHER, HUGE = (
    "map", "seq", "str", "int", "float", "bool", "null", "time", "other", "huge")
assert (STR, INT, FLOAT, BOOL, NULL) == (goyaml.STR, goyaml.INT, goyaml.FLOAT, goyaml.BOOL, goyaml.NULL)
# YAML gives integers up to 2**64 - 1 (go-yaml's range); TIME, OTHER and HUGE are kinds of values read from
# JSON (live/emit.py: an integer past MAX_INT_BITS is kept as text)
MAX_INT_BITS = 256

_TAG = "tag:yaml.org,2002:"

DESCRIBE = {MAP: "a mapping", SEQ: "a list", STR: "a string", INT: "an integer",
            FLOAT: "a number", BOOL: "a boolean", NULL: "null", TIME: "a timestamp",
            OTHER: "binary data", HUGE: "an integer too large to use"}


class Val:
    """One YAML node: its kind, plain value, location (0-based) and, for mappings, its keys.

    A mapping's `v` is `dict[str, Val]` and `keys` maps each key to its position
    `(line, col, end_line, end_col)`; a list's `v` is `list[Val]`; scalars hold
    str/int/float/bool/None/datetime.
    """

    __slots__ = ("kind", "v", "line", "col", "end_line", "end_col", "keys")

    def __init__(self, kind: str, v, line: int, col: int, end_line: int, end_col: int) -> None:
        self.kind = kind
        self.v = v
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col

    def get(self, key: str) -> "Val | None":
        return self.v.get(key) if self.kind == MAP else None

    def span(self, file: str) -> Span:
        return _new_tuple(Span, (file, self.line + 1, self.col + 1, self.end_line + 1, self.end_col + 1))

    def plain(self):
        """The value as plain Python (tests and debugging)."""
        if self.kind == MAP:
            return {k: x.plain() for k, x in self.v.items()}
        if self.kind == SEQ:
            return [x.plain() for x in self.v]
        return self.v

    def __repr__(self) -> str:
        return f"Val({self.kind}, {self.plain()!r} @{self.line + 1}:{self.col + 1})"


_MERGE = object()  # the implicit `<<` key of a YAML merge
_SKIP = object()  # a key kubectl's conversion refuses (reported)

# Plain scalars read before, by text: kind and value (immutable), as resolving and constructing them
# gave (manifests repeat `1`, `true`, `Never` thousands of times). Ones that were reported aren't kept.
_PLAIN: dict[str, tuple[str, object]] = {}
_PLAIN_MAX = 65_536
# Plain keys read before whose text may resolve (`name`, `tolerations`, `1`): the key kubectl's conversion names
_KEYS: dict[str, str] = {}


def _measure(node: Val, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(nodes, height) of a node as if its aliases were expanded; memoized per node."""
    known = memo.get(id(node))
    if known is not None:
        return known
    children = node.v.values() if node.kind == MAP else node.v if node.kind == SEQ else ()
    size, height = 1, 0
    for c in children:
        c_size, c_height = _measure(c, memo)
        size += c_size + (node.kind == MAP)
        height = max(height, c_height)
    memo[id(node)] = size, height + 1
    return size, height + 1


class _Stop(Exception):
    """The rest of the file can't be read safely."""


_STR_TAG = _TAG + "str"
_new = object.__new__

# First characters of plain scalars go-yaml may read as something other than a string (and "", an
# empty scalar: null): any other plain scalar is a string.
_RESOLVED_FIRST = goyaml.FIRST | {""}
_SCALAR, _ALIAS = ev.ScalarEvent, ev.AliasEvent
_MAP_START, _MAP_END, _SEQ_START, _SEQ_END = (ev.MappingStartEvent, ev.MappingEndEvent,
                                               ev.SequenceStartEvent, ev.SequenceEndEvent)


class _Builder:
    def __init__(self, file: str, diags: Diagnostics, strict: bool = False, shift: int | None = 0,
                 lister=None) -> None:
        self.file = file
        self.lister = lister  # takes the items of a document's top-level `items` list as they are built (`streamed`)
        self.diags = diags
        self.strict = strict  # the text is Kueue's Configuration (KAD151 for a duplicate key)
        self.shift = shift  # the text's first line in its file (an embedded text), None when unknown
        self.duplicates: list[tuple[str, int, tuple[int, int, int, int]]] = []  # the document's, reported at its end
        self.anchors: dict[str, Val] = {}
        self.open_anchors: set[str] = set()
        self.expanded = 0
        self.measured: dict[int, tuple[int, int]] = {}
        self.get_event = None  # the parser's, while a text is read

    def at(self, mark) -> Span:
        return Span(file=self.file, line=mark.line + 1, column=mark.column + 1)

    def scalar(self, e: ev.ScalarEvent) -> Val:
        s, t = e.start_mark, e.end_mark
        if e.tag is None and e.implicit[0]:  # a plain scalar: what it means depends on its text alone
            known = _PLAIN.get(e.value)
            if known is None:
                known = goyaml.scalar(None, e.value, True)
                if known[0] == FLOAT and not math.isfinite(known[1]):
                    return self.non_finite(e, known[1])
                if len(_PLAIN) >= _PLAIN_MAX:
                    _PLAIN.clear()
                _PLAIN[e.value] = known
            return Val(known[0], known[1], s.line, s.column, t.line, t.column)
        return self.tagged_scalar(e)

    def tagged_scalar(self, e: ev.ScalarEvent) -> Val:
        """A quoted or tagged scalar as go-yaml reads it: a tag of YAML's types resolves the text (and must
        fit it: `!!int abc` stops kubectl), `!!binary` decodes base64, any other tag is ignored."""
        s, t = e.start_mark, e.end_mark
        if e.tag is None and not e.implicit[0]:
            return Val(STR, e.value, s.line, s.column, t.line, t.column)
        try:
            kind, value = goyaml.scalar(e.tag, e.value, e.implicit[0])
        except goyaml.Refused as err:
            self.diags.emit(KAD150, f"kubectl can't read this YAML: `{err}`", self.at(s),
                            help="kadmit reads the value as a string; remove the tag or make the value fit it")
            return Val(STR, e.value, s.line, s.column, t.line, t.column)
        if kind == FLOAT and not math.isfinite(value):
            return self.non_finite(e, value)
        return Val(kind, value, s.line, s.column, t.line, t.column)

    def non_finite(self, e: ev.ScalarEvent, value: float) -> Val:
        """`.inf`, `.nan`: go-yaml reads them, but JSON has no such number, so kubectl can't send the document."""
        s, t = e.start_mark, e.end_mark
        self.diags.emit(KAD153, f"`{e.value}` is not a number JSON can hold: kubectl converts the YAML to JSON and "
                        f"refuses the document (`{goyaml.non_finite(value)}`)", self.at(s),
                        help="write a finite number, or quote the text")
        return Val(FLOAT, value, s.line, s.column, t.line, t.column)

    def key(self, e: ev.ScalarEvent) -> tuple[str | object, tuple[int, int, int, int]]:
        """A scalar key as kubectl's conversion names it: resolved as a value is (`yes:` is the key "true",
        `0x10:` "16"), then written as JSON's text; a plain `<<` is a merge; `_SKIP` for a key the
        conversion refuses (null; reported)."""
        s, t = e.start_mark, e.end_mark
        if e.tag is None and e.value == "<<" and e.implicit[0]:
            name = _MERGE
        else:
            try:
                kind, value = goyaml.scalar(e.tag, e.value, e.implicit[0])
            except goyaml.Refused as err:
                self.diags.emit(KAD150, f"kubectl can't read this YAML: `{err}`", self.at(s),
                                help="kadmit reads the key as written; remove the tag or make the key fit it")
                kind, value = STR, e.value
            try:
                name = goyaml.key_text(kind, value, e.value)
                if e.tag is None and e.implicit[0]:
                    if len(_KEYS) >= _PLAIN_MAX:
                        _KEYS.clear()
                    _KEYS[e.value] = name
            except goyaml.Refused as err:
                self.diags.emit(KAD153, f"`{e.value}` can't be a mapping key: kubectl can't convert it to JSON "
                                f"(`{err}`)", self.at(s), help="quote the key")
                name = _SKIP
        if e.anchor is not None:  # an anchored key: its alias is the key's value
            self.anchors[e.anchor] = Val(STR, name if type(name) is str else e.value, s.line, s.column, t.line,
                                         t.column)
        return name, (s.line, s.column, t.line, t.column)

    def node(self, e, depth: int) -> Val:
        """A collection or an alias (at `depth` open collections), where no scalar is."""
        t = type(e)
        if t is _MAP_START:
            return self.mapping(e, depth + 1)
        if t is _SEQ_START:
            return self.sequence(e, depth + 1)
        return self.alias(e, depth)

    def opened(self, e: ev.CollectionStartEvent, depth: int) -> None:
        """A mapping or list starts, `depth` collections deep (itself included)."""
        if e.anchor is not None:
            self.open_anchors.add(e.anchor)
        if depth > MAX_DEPTH:
            self.diags.emit(KAD152, f"nesting deeper than {MAX_DEPTH} levels", self.at(e.start_mark))
            raise _Stop

    def closed(self, e: ev.CollectionStartEvent, node: Val) -> Val:
        if e.anchor is not None:
            self.open_anchors.discard(e.anchor)
            self.anchors[e.anchor] = node
        return node

    # The two loops below read a document's events in one pass, each value straight into its
    # collection, with the common cases inline: plain keys, and plain scalars no resolver claims
    # (strings). Everything else goes through the methods above.

    def mapping(self, start: ev.MappingStartEvent, depth: int) -> Val:
        """A mapping's keys and values, up to its end event. Keys stay as written (`yes:` is the key
        "yes") with their positions; a duplicate key is reported and the last value kept; merge keys
        (`<<`) apply after the mapping's own keys; a collection where a key belongs is reported."""
        self.opened(start, depth)
        get_event, anchors, resolved_first, new, plain_keys = self.get_event, self.anchors, _RESOLVED_FIRST, _new, _KEYS
        values: dict[str, Val] = {}
        keys: dict[str, tuple[int, int, int, int]] = {}
        merges: list[Val] | None = None
        last: Val | None = None
        while True:
            e = get_event()
            t = type(e)
            if t is _SCALAR:
                name = e.value
                if e.tag is None and e.anchor is None and (not e.implicit[0] or name[:1] not in resolved_first
                                                           and name != "<<"):
                    s, en = e.start_mark, e.end_mark
                    kpos = (s.line, s.column, en.line, en.column)
                elif e.tag is None and e.anchor is None and (known := plain_keys.get(name)) is not None:
                    name = known
                    s, en = e.start_mark, e.end_mark
                    kpos = (s.line, s.column, en.line, en.column)
                else:
                    name, kpos = self.key(e)
            elif t is _MAP_END:
                break
            else:
                name, kpos = self.node(e, depth), None
            e = get_event()
            t = type(e)
            if t is _SCALAR:
                if e.tag is None and (not e.implicit[0] or e.value[:1] not in resolved_first):
                    s, en = e.start_mark, e.end_mark
                    v = new(Val)
                    v.kind = STR
                    v.v = e.value
                    v.line = s.line
                    v.col = s.column
                    v.end_line = en.line
                    v.end_col = en.column
                else:
                    v = self.scalar(e)
                if e.anchor is not None:
                    anchors[e.anchor] = v
            elif t is _MAP_START:
                v = self.mapping(e, depth + 1)
            elif t is _SEQ_START:
                if depth == 1 and name == "items" and self.lister is not None and e.anchor is None \
                        and "items" not in values:
                    v = self.streamed(e, values)
                else:
                    v = self.sequence(e, depth + 1)
            else:
                v = self.alias(e, depth)
            if type(name) is str:
                if name in values:
                    self.duplicates.append((name, keys[name][0], kpos))
                values[name] = last = v
                keys[name] = kpos
            elif name is _MERGE:
                if merges is None:
                    merges = []
                merges.append(v)
                last = v
            elif name is _SKIP:
                last = v
            else:
                self.diags.emit(KAD153, f"{DESCRIBE[name.kind]} can't be a mapping key", name.span(self.file))
        m = start.start_mark
        if last is None:
            last = e.end_mark
            node = Val(MAP, values, m.line, m.column, last.line, last.column)
        else:
            node = Val(MAP, values, m.line, m.column, last.end_line, last.end_col)
        node.keys = keys
        if merges is not None:
            self.merge(node, merges)
        return self.closed(start, node) if start.anchor is not None else node

    def sequence(self, start: ev.SequenceStartEvent, depth: int) -> Val:
        """A list's items, up to its end event."""
        self.opened(start, depth)
        get_event, anchors, resolved_first, new = self.get_event, self.anchors, _RESOLVED_FIRST, _new
        items: list[Val] = []
        append = items.append
        while True:
            e = get_event()
            t = type(e)
            if t is _SCALAR:
                if e.tag is None and (not e.implicit[0] or e.value[:1] not in resolved_first):
                    s, en = e.start_mark, e.end_mark
                    v = new(Val)
                    v.kind = STR
                    v.v = e.value
                    v.line = s.line
                    v.col = s.column
                    v.end_line = en.line
                    v.end_col = en.column
                else:
                    v = self.scalar(e)
                if e.anchor is not None:
                    anchors[e.anchor] = v
                append(v)
            elif t is _SEQ_END:
                break
            elif t is _MAP_START:
                append(self.mapping(e, depth + 1))
            elif t is _SEQ_START:
                append(self.sequence(e, depth + 1))
            else:
                append(self.alias(e, depth))
        m = start.start_mark
        if items:
            last = items[-1]
            node = Val(SEQ, items, m.line, m.column, last.end_line, last.end_col)
        else:
            end = e.end_mark
            node = Val(SEQ, items, m.line, m.column, end.line, end.column)
        return self.closed(start, node) if start.anchor is not None else node

    def streamed(self, start: ev.SequenceStartEvent, values: dict[str, Val]) -> Val:
        """A document's top-level `items` list (of the mapping `values`, being built), each item handed
        to `lister.list_item` as soon as it is built: one it read is not kept, so a List's tree is never
        whole; from the first it leaves, the rest are kept. The list's place is the whole list's."""
        self.opened(start, 2)
        take = self.lister.list_item
        kept: list[Val] = []
        last: Val | None = None
        while True:
            e = self.get_event()
            t = type(e)
            if t is _SCALAR:
                v = self.scalar(e)
                if e.anchor is not None:
                    self.anchors[e.anchor] = v
            elif t is _SEQ_END:
                break
            elif t is _MAP_START:
                v = self.mapping(e, 3)
            elif t is _SEQ_START:
                v = self.sequence(e, 3)
            else:
                v = self.alias(e, 2)
            last = v
            if kept or not take(values, v):
                kept.append(v)
        m = start.start_mark
        if last is not None:
            node = Val(SEQ, kept, m.line, m.column, last.end_line, last.end_col)
        else:
            end = e.end_mark
            node = Val(SEQ, kept, m.line, m.column, end.line, end.column)
        self.lister.list_done(values, node)
        return node

    def merge(self, node: Val, merges: list[Val]) -> None:
        """YAML merge keys: each merged mapping's keys that the mapping does not set itself."""
        values, keys = node.v, node.keys
        for m in merges:
            sources = m.v if m.kind == SEQ else [m]
            for src in sources:
                if src.kind != MAP:
                    self.diags.emit(KAD153, "a merge key (`<<`) needs a mapping or a list of mappings (kubectl: "
                                    "`yaml: map merge requires map or sequence of maps as the value`)",
                                    src.span(self.file))
                    continue
                for name, v in src.v.items():
                    if name not in values:
                        values[name] = v
                        keys[name] = src.keys[name]

    def alias(self, e: ev.AliasEvent, depth: int) -> Val:
        name = e.anchor
        if name in self.open_anchors:
            self.diags.emit(KAD152, f"alias `*{name}` refers to itself", self.at(e.start_mark))
            raise _Stop
        target = self.anchors.get(name)
        if target is None:
            self.diags.emit(KAD150, f"alias `*{name}` names no anchor", self.at(e.start_mark),
                            help=f"define it first with `&{name}`")
            raise _Stop
        size, height = _measure(target, self.measured)
        self.expanded += size
        if self.expanded > MAX_EXPANDED_NODES:
            self.diags.emit(KAD152, f"too many nodes (alias expansion?): aliases expand to more than "
                            f"{MAX_EXPANDED_NODES:,} nodes", self.at(e.start_mark),
                            help="kadmit stops reading this file; write the values out or use fewer aliases")
            raise _Stop
        if depth + height > MAX_DEPTH:
            self.diags.emit(KAD152, f"nesting deeper than {MAX_DEPTH} levels (through alias `*{name}`)",
                            self.at(e.start_mark))
            raise _Stop
        return target

    def report_duplicates(self, root: Val | None) -> None:
        """The document's duplicate keys: the last value is kept, as kubectl's YAML decoding keeps it
        (KAD173, a warning); in Kueue's Configuration, which Kueue decodes strictly, an error (KAD151)."""
        if not self.duplicates:
            return
        strict = self.strict or _kueue_configuration(root)
        for name, first, kpos in self.duplicates:
            where = located(self.file, kpos[0] + 1, kpos[1] + 1, kpos[2] + 1, kpos[3] + 1)
            before = f" (first at line {first + 1 + self.shift})" if self.shift is not None else ""
            if strict:
                self.diags.emit(KAD151, f"duplicate key `{name}`{before} in Kueue's "
                                "Configuration, which Kueue's manager decodes strictly: it would not start",
                                where, help="remove one of them; kadmit reads the last one")
            else:
                self.diags.emit(KAD173, f"duplicate key `{name}`{before}; kubectl keeps "
                                "the last one", where,
                                help="remove one of them; `kubectl create` and `apply` decode the YAML "
                                     "before sending it, so the API server gets only the last value")
        self.duplicates.clear()

    def after_start(self, e) -> None:
        """A document's content on its `---` line (`--- null`, `--- {}`, `--- |`): kubectl's YAML reader
        (apimachinery util/yaml YAMLReader.Read) takes only a comment there and stops reading the file, as at
        a syntax error: the documents before it are read, not this one nor any after."""
        m = e.start_mark
        self.diags.emit(KAD150, "malformed YAML as kubectl reads it: the document starts on its `---` line "
                        "(kubectl: `invalid Yaml document separator`), and kubectl reads no further",
                        self.at(m), help="start the document on the line after `---`")
        raise _Stop

    def documents(self, text: str) -> Iterator[Val | None]:
        root: Val | None = None
        if _LOADER is yaml.SafeLoader and text.lstrip()[:1] in ("{", "["):
            # JSON may indent with tabs; libyaml accepts that, PyYAML's own scanner does not. A
            # tab outside a JSON string is whitespace (inside one it would be invalid JSON), and
            # a space keeps every column where it was.
            text = text.replace("\t", " ")
        loader = None
        start = -1  # the line of the document's explicit start (`---`)
        try:
            loader = _LOADER(text)
            self.get_event = get_event = loader.get_event
            while True:
                e = get_event()
                t = type(e)
                if (t is _SCALAR or t is _MAP_START or t is _SEQ_START or t is _ALIAS) and e.start_mark.line == start:
                    self.after_start(e)
                if t is _SCALAR:
                    root = self.scalar(e)
                    if e.anchor is not None:
                        self.anchors[e.anchor] = root
                elif t is _MAP_START or t is _SEQ_START or t is _ALIAS:
                    root = self.node(e, 0)
                elif t is ev.DocumentStartEvent:
                    self.anchors.clear()
                    self.measured.clear()
                    root = None
                    start = e.start_mark.line if e.explicit else -1
                elif t is ev.DocumentEndEvent:
                    self.report_duplicates(root)
                    yield root
                    root = None
                elif e is None or t is ev.StreamEndEvent:
                    break
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            problem = err.problem or err.context or "malformed YAML"
            help_ = "indent with spaces; YAML does not allow tabs" if _tab_at(text, mark) else None
            self.diags.emit(KAD150, f"malformed YAML: {problem}",
                            self.at(mark) if mark else Span(file=self.file, line=1, column=1), help=help_)
        except yaml.reader.ReaderError as err:
            pos = min(max(err.position, 0), len(text))
            line_start = text.rfind("\n", 0, pos) + 1
            self.diags.emit(KAD150, f"character U+{err.character:04X} can't appear in YAML or JSON text",
                            Span(file=self.file, line=text.count("\n", 0, pos) + 1, column=pos - line_start + 1),
                            help="remove it, or write it as an escape inside a double-quoted string")
        except yaml.YAMLError as err:
            self.diags.emit(KAD150, f"malformed YAML: {err}", Span(file=self.file, line=1, column=1))
        except _Stop:
            pass
        finally:
            self.report_duplicates(None)  # those of a document an error ended
            if loader is not None:
                loader.dispose()


def _tab_at(text: str, mark) -> bool:
    if mark is None:
        return False
    lines = text.split("\n", mark.line + 1)
    line = lines[mark.line] if mark.line < len(lines) else ""
    return "\t" in line[: mark.column + 1]


def _kueue_configuration(root: Val | None) -> bool:
    if root is None or root.kind != MAP:
        return False
    kind, version = root.v.get("kind"), root.v.get("apiVersion")
    return (kind is not None and kind.kind == STR and kind.v == "Configuration" and version is not None
            and version.kind == STR and version.v.startswith("config.kueue.x-k8s.io/"))


def parse_documents(text: str, file: str, diags: Diagnostics, *, strict: bool = False,
                    shift: int | None = 0, lister=None) -> Iterator[Val | None]:
    """The documents of a YAML or JSON text as located trees, one at a time (so a file's documents
    need not all be in memory at once); `None` for empty documents.

    Syntax errors, duplicate keys and oversized documents become diagnostics; the documents
    completed before a fatal error are yielded, the one it is in is not. A duplicate key keeps the
    last value and is a warning, as kubectl reads it, except in Kueue's Configuration (a document of
    that kind, or the whole text with `strict`: a ConfigMap's embedded one), which Kueue decodes strictly.
    `shift`: the line of its file an embedded text starts at (for the lines messages name; None: unknown).
    `lister`: takes a document's top-level `items` list item by item while it is parsed
    (`list_item(mapping, item) -> bool`, True: read, not kept; `list_done(mapping, list)`: the manifest reader).
    """
    return _Builder(file, diags, strict, shift, lister).documents(text)
