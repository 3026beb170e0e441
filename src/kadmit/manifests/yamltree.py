"""YAML (and JSON) text -> located value trees, built from parser events with bounded work.

Only PyYAML's parser runs (libyaml's when present); nothing is constructed beyond plain scalars.
The tree is built here from events so that every node keeps its location, aliases are counted
as they would expand (a shared node counts each time it is reached) and nesting is bounded:
a "billion laughs" document is refused before anything walks it.
"""

from __future__ import annotations

from typing import Iterator

from kadmit.pyyaml import yaml  # first: PyYAML's import-time regular expressions compiled when used
from yaml import events as ev
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.codes import KAD150, KAD151, KAD152, KAD153, KAD173
from kadmit.source import Span, located

_new_tuple = tuple.__new__  # `located`, inline: a span for every value read

MAX_EXPANDED_NODES = 2_000_000  # nodes reached through aliases, per file
MAX_DEPTH = 100

_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
_RESOLVER = Resolver()
_CONSTRUCTOR = SafeConstructor()

MAP, SEQ, STR, INT, FLOAT, BOOL, NULL, TIME, OTHER, HUGE = (
    "map", "seq", "str", "int", "float", "bool", "null", "time", "other", "huge")
MAX_INT_BITS = 256  # larger integers (`1:0:0:…` sexagesimal ones) are kept as text: HUGE

_TAG = "tag:yaml.org,2002:"
_KINDS = {_TAG + "str": STR, _TAG + "int": INT, _TAG + "float": FLOAT, _TAG + "bool": BOOL,
          _TAG + "null": NULL, _TAG + "timestamp": TIME, _TAG + "binary": OTHER}
_COLLECTION_TAGS = {None, "!", _TAG + "map", _TAG + "seq", _TAG + "omap", _TAG + "set",
                    _TAG + "pairs"}

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

# Plain scalars read before, by text: kind and value (immutable), as resolving and constructing them
# gave (manifests repeat `1`, `true`, `Never` thousands of times). Ones that were reported aren't kept.
_PLAIN: dict[str, tuple[str, object]] = {}
_PLAIN_MAX = 65_536


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


_IMPLICIT = _RESOLVER.yaml_implicit_resolvers
_WILDCARD = _IMPLICIT.get(None, [])
_STR_TAG = _TAG + "str"




_new = object.__new__


class _Every:
    def __contains__(self, item: object) -> bool:
        return True


# First characters of plain scalars that some implicit resolver may claim: any other plain scalar
# is a string (when there are no wildcard resolvers, as in PyYAML's safe resolver).
_RESOLVED_FIRST = frozenset(_IMPLICIT) if not _WILDCARD else _Every()
_SCALAR, _ALIAS = ev.ScalarEvent, ev.AliasEvent
_MAP_START, _MAP_END, _SEQ_START, _SEQ_END = (ev.MappingStartEvent, ev.MappingEndEvent,
                                               ev.SequenceStartEvent, ev.SequenceEndEvent)


def _resolve(value: str, implicit: tuple[bool, bool]) -> str:
    """PyYAML's implicit tag resolution for a plain scalar, without its per-call overhead."""
    if implicit[0]:
        for tag, regexp in _IMPLICIT.get(value[:1], []) + _WILDCARD if value else _IMPLICIT.get("", []):
            if regexp.match(value):
                return tag
    return _STR_TAG


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
                known = self.plain_scalar(e)
                if known is None:  # reported; read as a string
                    return Val(STR, e.value, s.line, s.column, t.line, t.column)
                if len(_PLAIN) >= _PLAIN_MAX:
                    _PLAIN.clear()
                _PLAIN[e.value] = known
            return Val(known[0], known[1], s.line, s.column, t.line, t.column)
        return self.tagged_scalar(e)

    def plain_scalar(self, e: ev.ScalarEvent) -> tuple[str, object] | None:
        """A plain scalar's kind and value, or None when it can't be read (reported)."""
        before = len(self.diags.items)
        node = self.tagged_scalar(e)
        return None if len(self.diags.items) != before else (node.kind, node.v)

    def tagged_scalar(self, e: ev.ScalarEvent) -> Val:
        tag = e.tag
        s, t = e.start_mark, e.end_mark
        if tag is None or tag == "!":
            if not e.implicit[0]:
                return Val(STR, e.value, s.line, s.column, t.line, t.column)
            tag = _resolve(e.value, e.implicit)
        kind = _KINDS.get(tag)
        if kind is None:
            self.diags.emit(KAD153, f"unsupported YAML tag `{tag}`", self.at(s),
                            help="Kubernetes manifests hold only plain strings, numbers, booleans, "
                                 "lists and mappings; the value is read as a string")
            return Val(STR, e.value, s.line, s.column, t.line, t.column)
        if kind == STR:
            return Val(STR, e.value, s.line, s.column, t.line, t.column)
        try:
            value = _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, ScalarNode(tag, e.value, s, t))
        except (ConstructorError, ValueError, OverflowError, IndexError, KeyError, TypeError, AttributeError):
            shown = f"`{e.value}`" if e.value else "an empty value"
            self.diags.emit(KAD150, f"{shown} is not a valid {tag.rsplit(':', 1)[-1]}", self.at(s))
            return Val(STR, e.value, s.line, s.column, t.line, t.column)
        if kind == INT and value.bit_length() > MAX_INT_BITS:
            return Val(HUGE, e.value, s.line, s.column, t.line, t.column)
        return Val(kind, value, s.line, s.column, t.line, t.column)

    def key(self, e: ev.ScalarEvent) -> tuple[str | object, tuple[int, int, int, int]]:
        """A scalar key as written (`yes:` is the key "yes"; a plain `<<` a merge) and its position."""
        s, t = e.start_mark, e.end_mark
        name = e.value
        if e.tag is None:
            if name == "<<" and e.implicit[0]:
                name = _MERGE
        elif e.tag not in ("!", _STR_TAG):
            self.scalar(e)  # reports an unsupported tag
        if e.anchor is not None:  # an anchored key: its alias is the key's text
            self.anchors[e.anchor] = Val(STR, e.value, s.line, s.column, t.line, t.column)
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
        if e.tag not in _COLLECTION_TAGS:
            self.diags.emit(KAD153, f"unsupported YAML tag `{e.tag}`", self.at(e.start_mark),
                            help="the value is read as a plain collection")
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
        get_event, anchors, resolved_first, new = self.get_event, self.anchors, _RESOLVED_FIRST, _new
        values: dict[str, Val] = {}
        keys: dict[str, tuple[int, int, int, int]] = {}
        merges: list[Val] | None = None
        last: Val | None = None
        while True:
            e = get_event()
            t = type(e)
            if t is _SCALAR:
                name = e.value
                if e.tag is None and e.anchor is None and name != "<<":
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
                    self.diags.emit(KAD153, "a merge key (`<<`) needs a mapping or a list of mappings",
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

    def documents(self, text: str) -> Iterator[Val | None]:
        root: Val | None = None
        if _LOADER is yaml.SafeLoader and text.lstrip()[:1] in ("{", "["):
            # JSON may indent with tabs; libyaml accepts that, PyYAML's own scanner does not. A
            # tab outside a JSON string is whitespace (inside one it would be invalid JSON), and
            # a space keeps every column where it was.
            text = text.replace("\t", " ")
        loader = None
        try:
            loader = _LOADER(text)
            self.get_event = get_event = loader.get_event
            while True:
                e = get_event()
                t = type(e)
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
