"""YAML (and JSON) text -> located value trees, built from parser events with bounded work.

Only PyYAML's parser runs (libyaml's when present); nothing is constructed beyond plain scalars.
The tree is built here from events so that every node keeps its location, aliases are counted
as they would expand (a shared node counts each time it is reached) and nesting is bounded:
a "billion laughs" document is refused before anything walks it.
"""

from __future__ import annotations

from typing import Iterator

import yaml
from yaml import events as ev
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.codes import KAD150, KAD151, KAD152, KAD153
from kadmit.source import Span, located

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
        return located(file, self.line + 1, self.col + 1, self.end_line + 1, self.end_col + 1)

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


class _Frame:
    """An open mapping or list. A list's `values` is the list; a mapping's is its dict, with
    `keys` (key -> position), the `key` read and waiting for its value (None: a key comes next;
    a Val: a key that is not a scalar), and its merge (`<<`) values. `last` is the last value."""

    __slots__ = ("node", "anchor", "values", "keys", "key", "kpos", "merges", "last")

    def __init__(self, node: Val, anchor: str | None) -> None:
        self.node, self.anchor, self.last = node, anchor, None
        if node.kind is MAP:
            self.values, self.keys, self.key, self.kpos, self.merges = {}, {}, None, None, None
        else:
            self.values = []


class _Stop(Exception):
    """The rest of the file can't be read safely."""


_IMPLICIT = _RESOLVER.yaml_implicit_resolvers
_WILDCARD = _IMPLICIT.get(None, [])
_STR_TAG = _TAG + "str"


# First characters of plain scalars that some implicit resolver may claim: any other plain scalar
# is a string (when there are no wildcard resolvers, as in PyYAML's safe resolver).
_RESOLVED_FIRST = frozenset(_IMPLICIT)
_ANY_FIRST = bool(_WILDCARD)


def _resolve(value: str, implicit: tuple[bool, bool]) -> str:
    """PyYAML's implicit tag resolution for a plain scalar, without its per-call overhead."""
    if implicit[0]:
        for tag, regexp in _IMPLICIT.get(value[:1], []) + _WILDCARD if value else _IMPLICIT.get("", []):
            if regexp.match(value):
                return tag
    return _STR_TAG


class _Builder:
    def __init__(self, file: str, diags: Diagnostics) -> None:
        self.file = file
        self.diags = diags
        self.anchors: dict[str, Val] = {}
        self.open_anchors: set[str] = set()
        self.expanded = 0
        self.measured: dict[int, tuple[int, int]] = {}

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
        except (ConstructorError, ValueError, OverflowError):
            self.diags.emit(KAD150, f"`{e.value}` is not a valid {tag.rsplit(':', 1)[-1]}", self.at(s))
            return Val(STR, e.value, s.line, s.column, t.line, t.column)
        if kind == INT and value.bit_length() > MAX_INT_BITS:
            return Val(HUGE, e.value, s.line, s.column, t.line, t.column)
        return Val(kind, value, s.line, s.column, t.line, t.column)

    def key(self, e: ev.ScalarEvent, frame: _Frame) -> None:
        """A scalar key as written, with its position (`yes:` is the key "yes"), waiting for its value."""
        s, t = e.start_mark, e.end_mark
        name = e.value
        if e.tag is None:
            if name == "<<" and e.implicit[0]:
                name = _MERGE
        elif e.tag not in ("!", _STR_TAG):
            self.scalar(e)  # reports an unsupported tag
        frame.key = name
        frame.kpos = (s.line, s.column, t.line, t.column)
        if e.anchor is not None:  # an anchored key: its alias is the key's text
            self.anchors[e.anchor] = Val(STR, e.value, s.line, s.column, t.line, t.column)

    def value(self, frame: _Frame, node: Val) -> None:
        """A mapping's value, under the key read before it (or its key, when that is a collection)."""
        name = frame.key
        if name is None:  # a collection where a key belongs
            frame.key = node
            return
        frame.key = None
        if type(name) is Val:
            self.diags.emit(KAD153, f"{DESCRIBE[name.kind]} can't be a mapping key", name.span(self.file))
            return
        frame.last = node
        if name is _MERGE:
            if frame.merges is None:
                frame.merges = []
            frame.merges.append(node)
            return
        values, keys = frame.values, frame.keys
        if name in values:
            k = frame.kpos
            self.diags.emit(KAD151, f"duplicate key `{name}` (first at line {keys[name][0] + 1})",
                            Span(file=self.file, line=k[0] + 1, column=k[1] + 1, end_line=k[2] + 1,
                                 end_column=k[3] + 1),
                            help="remove one of them; the last one is used")
        values[name] = node
        keys[name] = frame.kpos

    def close(self, frame: _Frame, end_mark) -> Val:
        node = frame.node
        last = frame.last if node.kind is MAP else frame.values[-1] if frame.values else None
        if last is not None:
            node.end_line, node.end_col = last.end_line, last.end_col
        else:
            node.end_line, node.end_col = end_mark.line, end_mark.column
        node.v = frame.values
        if node.kind is MAP:
            node.keys = frame.keys
            if frame.merges is not None:
                self.merge(node, frame.merges)
        if frame.anchor is not None:
            self.open_anchors.discard(frame.anchor)
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

    def documents(self, text: str) -> Iterator[Val | None]:
        root: Val | None = None
        if _LOADER is yaml.SafeLoader and text.lstrip()[:1] in ("{", "["):
            # JSON may indent with tabs; libyaml accepts that, PyYAML's own scanner does not. A
            # tab outside a JSON string is whitespace (inside one it would be invalid JSON), and
            # a space keeps every column where it was.
            text = text.replace("\t", " ")
        loader = None
        stack: list[_Frame] = []
        top: _Frame | None = None  # stack[-1]
        top_map = False  # whether `top` is a mapping
        scalar_event, alias_event = ev.ScalarEvent, ev.AliasEvent
        map_start, seq_start = ev.MappingStartEvent, ev.SequenceStartEvent
        ends = (ev.MappingEndEvent, ev.SequenceEndEvent)
        resolved_first, str_kind, val = _RESOLVED_FIRST, STR, Val
        anchors = self.anchors
        try:
            loader = _LOADER(text)
            get_event = loader.get_event
            while True:
                e = get_event()
                t = type(e)
                if t is scalar_event:
                    if top_map and top.key is None:  # keys stay as written: `yes:` is the key "yes"
                        name = e.value
                        if e.tag is None and e.anchor is None and name != "<<":  # the common case, inline
                            s, en = e.start_mark, e.end_mark
                            top.key = name
                            top.kpos = (s.line, s.column, en.line, en.column)
                        else:
                            self.key(e, top)
                        continue
                    if e.tag is None and (not e.implicit[0] or (e.value[:1] not in resolved_first
                                                                 and not _ANY_FIRST)):
                        s, en = e.start_mark, e.end_mark  # a plain string: the common case, inline
                        node = val(str_kind, e.value, s.line, s.column, en.line, en.column)
                    else:
                        node = self.scalar(e)
                    if e.anchor is not None:
                        anchors[e.anchor] = node
                elif t is map_start or t is seq_start:
                    if e.tag not in _COLLECTION_TAGS:
                        self.diags.emit(KAD153, f"unsupported YAML tag `{e.tag}`", self.at(e.start_mark),
                                        help="the value is read as a plain collection")
                    m = e.start_mark
                    top = _Frame(val(MAP if t is map_start else SEQ, None, m.line, m.column, m.line, m.column),
                                 e.anchor)
                    top_map = t is map_start
                    stack.append(top)
                    if e.anchor is not None:
                        self.open_anchors.add(e.anchor)
                    if len(stack) > MAX_DEPTH:
                        self.diags.emit(KAD152, f"nesting deeper than {MAX_DEPTH} levels", self.at(m))
                        raise _Stop
                    continue
                elif t in ends:
                    frame = stack.pop()
                    node = self.close(frame, e.end_mark)
                    if frame.anchor is not None:
                        anchors[frame.anchor] = node
                    top = stack[-1] if stack else None
                    top_map = top is not None and top.node.kind is MAP
                elif t is alias_event:
                    node = self.alias(e, len(stack))
                elif t is ev.DocumentStartEvent:
                    anchors.clear()
                    self.measured.clear()
                    root = None
                    continue
                elif t is ev.DocumentEndEvent:
                    yield root
                    root = None
                    continue
                elif e is None or t is ev.StreamEndEvent:
                    break
                else:
                    continue
                if top_map:
                    name = top.key
                    if type(name) is str and name not in top.values:  # the common case, inline
                        top.key = None
                        top.values[name] = top.last = node
                        top.keys[name] = top.kpos
                    else:
                        self.value(top, node)
                elif top is not None:
                    top.values.append(node)
                else:
                    root = node
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
            if loader is not None:
                loader.dispose()


def _tab_at(text: str, mark) -> bool:
    if mark is None:
        return False
    lines = text.split("\n", mark.line + 1)
    line = lines[mark.line] if mark.line < len(lines) else ""
    return "\t" in line[: mark.column + 1]


def parse_documents(text: str, file: str, diags: Diagnostics) -> Iterator[Val | None]:
    """The documents of a YAML or JSON text as located trees, one at a time (so a file's documents
    need not all be in memory at once); `None` for empty documents.

    Syntax errors, duplicate keys and oversized documents become diagnostics; the documents
    completed before a fatal error are yielded, the one it is in is not.
    """
    return _Builder(file, diags).documents(text)
