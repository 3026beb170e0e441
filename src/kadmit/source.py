"""Source locations: spans that ride on every model object, and the texts they point into."""

from __future__ import annotations

import re
import struct
from operator import itemgetter
from typing import Any


class Span(tuple):
    """A region of one source file; 1-based lines and columns, end exclusive.

    Spans never take part in equality or hashing: two model objects that say the
    same thing from different places are equal. Immutable, and small on purpose: a
    large input becomes hundreds of thousands of them, so a span is a 5-tuple
    (file, line, column, end_line, end_column) read by name, which pydantic takes as a
    field type and dumps as a dict, rather than a model (a quarter of the memory).
    """

    __slots__ = ()

    def __new__(cls, file: str, line: int, column: int, end_line: int | None = None,
                end_column: int | None = None) -> "Span":
        return tuple.__new__(cls, (file, line, column, end_line, end_column))

    file: str = property(itemgetter(0))  # type: ignore[assignment]
    line: int = property(itemgetter(1))  # type: ignore[assignment]
    column: int = property(itemgetter(2))  # type: ignore[assignment]
    end_line: int | None = property(itemgetter(3))  # type: ignore[assignment]
    end_column: int | None = property(itemgetter(4))  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:  # spans are invisible to equality
        return other is None or isinstance(other, Span)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return 0

    def __getnewargs__(self) -> tuple:
        return tuple(self)

    def __repr__(self) -> str:
        return (f"Span(file={self[0]!r}, line={self[1]!r}, column={self[2]!r}, "
                f"end_line={self[3]!r}, end_column={self[4]!r})")

    def key(self) -> tuple[str, int, int]:
        """Sort key: by file, then position."""
        return (self[0], self[1], self[2])

    def same_place(self, other: "Span | None") -> bool:
        """Real comparison, for the rare caller that needs one."""
        return other is not None and tuple(self) == tuple(other)

    def __str__(self) -> str:
        return f"{self[0]}:{self[1]}:{self[2]}"

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The fields as a dict (what pydantic's dump of a model holding this span shows)."""
        return dict(zip(_FIELDS, self))

    @property
    def model_fields_set(self) -> set[str]:
        """The fields given (as pydantic reports them): the position, and the end where known."""
        return {name for name, v in zip(_FIELDS, self) if v is not None} | {"file", "line", "column"}

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> "Span":
        return Span(**(self.model_dump() | (update or {})))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            _validate_span, serialization=core_schema.plain_serializer_function_ser_schema(Span.model_dump))


_FIELDS = ("file", "line", "column", "end_line", "end_column")


def _validate_span(value: Any) -> Span:
    if isinstance(value, Span):
        return value
    if isinstance(value, dict):
        return Span(**value)
    raise ValueError(f"a Span or a dict of its fields is needed, not {type(value).__name__}")


_new_tuple = tuple.__new__
_new, _set = object.__new__, object.__setattr__


def located(file: str, line: int, column: int, end_line: int | None, end_column: int | None) -> Span:
    """`Span(file, line, column, end_line, end_column)` for numbers a parser already holds, without
    the keyword call's cost: front ends make one for most values of a large input."""
    return _new_tuple(Span, (file, line, column, end_line, end_column))


class Spans:
    """Spans of an object's fields, keyed by field name (or a dotted path below it): `items`.

    Immutable, invisible to equality and hashing like `Span`, and dumped, validated and copied as the
    pydantic model it replaced (`{"items": {...}}`); a plain object rather than a model (a model and
    its field dict took ~260 bytes, and a large input has two or more per object). Spans in one file
    with every position known (nearly all) are kept packed: the keys once per set of keys (shared by
    every object with the same fields), the positions as four 32-bit numbers each; `items` and `get`
    make the `Span`s when asked. A workload's spans took ~1,250 bytes as a dict of Span tuples, ~350 so."""

    __slots__ = ("_index", "_file", "_at", "_items")

    def __init__(self, items: dict[str, Any] | None = None) -> None:
        _fill(self, {str(k): _validate_span(v) for k, v in (items or {}).items()})

    @property
    def items(self) -> dict[str, Span]:
        """The spans by key (a new dict when they are packed)."""
        if self._items is not None:
            return self._items
        file, at, unpack = self._file, self._at, _FOUR.unpack_from
        return {k: _new_tuple(Span, (file, *unpack(at, i << 4))) for k, i in self._index.items()}

    def get(self, key: str, default: Span | None = None) -> Span | None:
        if self._items is not None:
            return self._items.get(key, default)
        i = self._index.get(key)
        if i is None:
            return default
        return _new_tuple(Span, (self._file, *_FOUR.unpack_from(self._at, i << 4)))

    def __len__(self) -> int:
        return len(self._items if self._items is not None else self._index)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Spans is immutable: cannot set {name!r}")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Spans)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return 0

    def __reduce__(self) -> tuple:
        return (located_spans, (self.items,))

    def __repr__(self) -> str:
        return f"Spans(items={self.items!r})"

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The spans as dicts (what pydantic's dump of the model this was showed)."""
        return {"items": {k: dict(zip(_FIELDS, v)) for k, v in self.items.items()}}

    @property
    def model_fields_set(self) -> set[str]:
        return {"items"} if len(self) else set()

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> "Spans":
        items = (update or {}).get("items", self.items)
        return Spans(items=items) if deep or update else located_spans(dict(items))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            _validate_spans, serialization=core_schema.plain_serializer_function_ser_schema(Spans.model_dump))


def _validate_spans(value: Any) -> Spans:
    if isinstance(value, Spans):
        return value
    if isinstance(value, dict) and set(value) <= {"items"} and isinstance(value.get("items", {}), dict):
        return Spans(items=value.get("items"))
    raise ValueError(f"a Spans or a dict {{'items': {{...}}}} is needed, not {type(value).__name__}")


def located_spans(items: dict[str, Span]) -> Spans:
    """A Spans of spans already built, without validating them again (the dict is packed, or kept)."""
    out = _new(Spans)
    _fill(out, items)
    return out


_FOUR = struct.Struct("<4I")
_PACKS: dict[int, struct.Struct] = {}
_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}  # each set of keys once: key -> its place
_INDEXES_MAX = 10_000


def packed_spans(file: str, keys: tuple[str, ...], flat: list[int]) -> Spans:
    """A Spans of `keys` in `file`, their positions four 1-based numbers each in `flat` (line, column, end
    line, end column), packed as `_fill` packs Spans of one file with every position known, without making
    a Span of each first (a manifest's reader makes one set per object); as `located_spans` where a number
    is past 32 bits."""
    n = len(keys)
    pack = _PACKS.get(n)
    if pack is None:
        pack = _PACKS[n] = struct.Struct(f"<{4 * n}I")
    try:
        at = pack.pack(*flat)
    except struct.error:
        return located_spans({k: _new_tuple(Span, (file, *flat[4 * i:4 * i + 4])) for i, k in enumerate(keys)})
    index = _INDEXES.get(keys)
    if index is None:
        index = {k: i for i, k in enumerate(keys)}
        if len(_INDEXES) < _INDEXES_MAX:
            _INDEXES[keys] = index
    out = _new(Spans)
    _set(out, "_index", index)
    _set(out, "_file", file)
    _set(out, "_at", at)
    _set(out, "_items", None)
    return out


def _fill(out: Spans, items: dict[str, Span]) -> None:
    """`out` holding `items`: packed when they are Spans of one file with every position known and
    within 32 bits, else the dict itself."""
    file = None
    flat: list = []
    for v in items.values():
        if type(v) is not Span or (file is not None and v[0] != file):
            break
        file = v[0]
        flat += v[1:]
    else:
        n = len(items)
        pack = _PACKS.get(n)
        if pack is None:
            pack = _PACKS[n] = struct.Struct(f"<{4 * n}I")
        try:
            at = pack.pack(*flat)
        except struct.error:  # a position not known (None), or past 32 bits
            pass
        else:
            keys = tuple(items)
            index = _INDEXES.get(keys)
            if index is None:
                index = {k: i for i, k in enumerate(keys)}
                if len(_INDEXES) < _INDEXES_MAX:
                    _INDEXES[keys] = index
            _set(out, "_index", index)
            _set(out, "_file", file)
            _set(out, "_at", at)
            _set(out, "_items", None)
            return
    _set(out, "_items", items)


NO_SPANS = Spans()


def spans(**items: Span | None) -> Spans:
    """Build a Spans from keyword arguments, dropping missing ones."""
    return Spans(items={k.replace("__", "."): v for k, v in items.items() if v is not None})


STDIN_NAME = "<stdin>"  # standard input's name in spans
KAD_SUFFIXES = (".kad",)
SNAPSHOT_MARKER = "# kadmit snapshot"  # the first line of a cluster snapshot (kadmit.live.snapshot)
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
