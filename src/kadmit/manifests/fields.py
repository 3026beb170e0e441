"""Typed, located reads of manifest fields: each wrong type or value is a diagnostic at its node."""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from functools import lru_cache
from typing import Iterable

from kadmit.diagnostics import Diagnostics, did_you_mean
from kadmit.manifests.codes import KAD155, KAD156, KAD157, KAD158, KAD163
from kadmit.manifests.yamltree import BOOL, DESCRIBE, FLOAT, INT, MAP, NULL, SEQ, STR, TIME, Val
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.source import Span, Spans, located_spans, packed_spans

_new_tuple = tuple.__new__  # `source.located`, inline
INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)


# Manifests repeat the same few quantities ("8", "64Gi") thousands of times.
_parse_quantity = lru_cache(maxsize=4096)(parse_quantity)


_RFC3339 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})")
_DATE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")


def whole_number(v: Val) -> int | None:
    """The integer kubectl sends for a YAML integer, or a number with no fraction (`3.0`, `1e3`: kubectl
    writes its JSON so), or None."""
    if v.kind == INT:
        return v.v
    if v.kind == FLOAT:
        return int(v.v) if math.isfinite(v.v) and v.v == int(v.v) and abs(v.v) < 1e21 else None
    return None


class Invalid(Exception):
    """The object being read is unusable; its diagnostic has been emitted (at `at`)."""

    at: "Val | Span | None" = None


class NotRead(Exception):
    """The object is of a kind kadmit reads only some of (a ConfigMap that is not Kueue's): it is
    skipped and counted with the kinds kadmit does not read."""


def _describe(v: Val) -> str:
    if v.kind in (STR, INT, FLOAT, BOOL) and len(str(v.v)) <= 40:
        shown = str(v.v).lower() if v.kind == BOOL else v.v
        return f"{DESCRIBE[v.kind]} (`{shown}`)"
    return DESCRIBE[v.kind]


class Fields:
    """Reads fields of one file's objects, reporting problems at their YAML nodes. `text` is the
    file's text, for the few readers that locate text embedded in a value."""

    def __init__(self, file: str, diags: Diagnostics, text: str | None = None) -> None:
        self.file = file
        self.diags = diags
        self.text = text
        # while one object is read (`collect`): each bad field is reported and read as a placeholder,
        # so every bad field of the object shows in one run; the object is then dropped
        self.collected: list[Invalid] | None = None
        # the values the schema check found of a wrong type (`mistyped`), by id (kept, so that an id
        # is not another value's): a reader's own report of one is not made again
        self.typed: dict[int, Val] = {}

    def collect(self) -> None:
        """Start reading one object: bad fields are collected, not raised."""
        self.collected = []
        self.typed.clear()

    def done(self) -> list[Invalid]:
        """Stop collecting; the bad fields of the object just read."""
        out, self.collected = self.collected or [], None
        return out

    def _bad(self, error: Invalid, placeholder):
        """A bad field: raised, or (collecting) kept and read as `placeholder`."""
        if self.collected is None:
            raise error
        self.collected.append(error)
        return placeholder

    # --- locations ---------------------------------------------------------------------------

    def span(self, v: Val | None) -> Span | None:
        return v.span(self.file) if v is not None else None

    def spans(self, items: dict[str, Val | Span | None]) -> Spans:
        file = self.file
        keys: list[str] = []
        flat: list[int] = []
        for k, v in items.items():  # the common case: nodes of this file and spans in it with every position
            if type(v) is Val:
                keys.append(k)
                flat += (v.line + 1, v.col + 1, v.end_line + 1, v.end_col + 1)
            elif v is None:
                continue
            elif type(v) is Span and v[0] == file and None not in v:
                keys.append(k)
                flat += v[1:]
            else:
                return self._spans(items)
        return packed_spans(file, tuple(keys), flat)

    def _spans(self, items: dict[str, Val | Span | None]) -> Spans:
        out: dict[str, Span] = {}
        checked = True  # every value a Span: nothing for pydantic to check again
        file = self.file
        for k, v in items.items():
            if type(v) is Val:
                out[k] = _new_tuple(Span, (file, v.line + 1, v.col + 1, v.end_line + 1, v.end_col + 1))
            elif v is not None:
                out[k] = v
                checked = checked and isinstance(v, Span)
        return located_spans(out) if checked else Spans(items=out)

    # --- failing ------------------------------------------------------------------------------

    def fail(self, code: str, message: str, at: Val | Span | None, **kw) -> Invalid:
        """A problem with the object read (raise what it returns). A check that combines fields of an
        object some bad field of which was already reported is not reported: it may only be the
        placeholder read for that field (a follow-on)."""
        if self.collected:
            return Invalid(message)
        return self._report(code, message, at, **kw)

    def invalid(self, code: str, message: str, at: Val | Span | None, *, uses: tuple[Val | None, ...],
                **kw) -> None:
        """A check that combines fields `uses` of the object: reported, and reading goes on (the
        object is dropped at the end); not reported when one of `uses` was itself bad (its
        placeholder was checked, a follow-on). Outside an object's reading it raises."""
        if self.collected is None:
            raise self._report(code, message, at, **kw)
        bad = {id(e.at) for e in self.collected}
        if any(u is not None and id(u) in bad for u in uses):
            self.collected.append(Invalid(message))
            return
        self.collected.append(self._report(code, message, at, **kw))

    def mistyped(self, code: str, message: str, at: Val, **kw) -> None:
        """A value of a wrong type for its field (schema.check): reported, and the object being
        read is dropped (the API server can't take it)."""
        error = self._report(code, message, at, **kw)
        self.typed[id(at)] = at
        if self.collected is not None:
            self.collected.append(error)

    def refused_already(self, at: Val) -> None:
        """A value the YAML reader reported as one kubectl can't send (`.inf`, `.nan`): the object being read
        is dropped, and no reader reports the value again."""
        self.typed[id(at)] = at
        if self.collected is not None:
            error = Invalid(f"`{at.v}` can't be sent")
            error.at = at
            self.collected.append(error)

    def _report(self, code: str, message: str, at: Val | Span | None, **kw) -> Invalid:
        if type(at) is Val and self.typed.get(id(at)) is at:  # the schema check reported it (`mistyped`)
            error = Invalid(message)
            error.at = at
            return error
        span = at.span(self.file) if isinstance(at, Val) else at
        self.diags.emit(code, message, span, **kw)
        error = Invalid(message)
        error.at = at
        return error

    def wrong_type(self, v: Val, key: str, want: str) -> Invalid:
        help_ = None
        if v.kind == STR and want in ("an integer", "a boolean"):
            help_ = "write it without quotes"
        elif v.kind in (INT, FLOAT, BOOL) and want == "a string":
            help_ = f'quote it: `"{str(v.v).lower() if v.kind == BOOL else v.v}"`'
        return self._report(KAD156, f"`{key}` should be {want}, found {_describe(v)}", v, help=help_)

    def missing(self, key: str, where: Val, what: str = "") -> Invalid:
        return self._report(KAD155, f"missing `{key}`{' in ' + what if what else ''}", where)

    # --- reads ---------------------------------------------------------------------------------

    def field(self, m: Val | None, key: str, *, required: bool = False, what: str = "") -> Val | None:
        """A field of mapping `m`; `None` (or a diagnostic when required) if absent or null."""
        v = m.v.get(key) if m is not None and m.kind == MAP else None
        if v is not None and v.kind == NULL:
            v = None
        if v is None and required:
            # a missing parent was reported where it is missing (or is the object's own absent part)
            return self._bad(self.missing(key, m, what) if m is not None else Invalid(key), None)
        return v

    def map(self, m: Val | None, key: str, *, required: bool = False, what: str = "") -> Val | None:
        v = self.field(m, key, required=required, what=what)
        if v is not None and v.kind != MAP:
            return self._bad(self.wrong_type(v, key, "a mapping"), None)
        return v

    def seq(self, m: Val | None, key: str, *, required: bool = False, what: str = "") -> list[Val]:
        v = self.field(m, key, required=required, what=what)
        if v is None:
            return []
        if v.kind != SEQ:
            return self._bad(self.wrong_type(v, key, "a list"), [])
        return v.v

    def maps(self, m: Val | None, key: str, **kw) -> list[Val]:
        """A list of mappings (collecting: the other items are left out). A null item is an empty mapping, as
        Go decodes a built-in kind's (a CRD's schema refuses it, and a built-in kind's validation may: schema.check
        reports either, and that item is left out)."""
        items = self.seq(m, key, **kw)
        out = []
        for item in items:
            if item.kind == NULL and self.typed.get(id(item)) is not item:
                empty = Val(MAP, {}, item.line, item.col, item.end_line, item.end_col)
                empty.keys = {}
                out.append(empty)
            elif item.kind != MAP:
                self._bad(self.wrong_type(item, f"{key}[]", "a mapping"), None)
            else:
                out.append(item)
        return out

    def str(self, m: Val | None, key: str, *, required: bool = False, what: str = "",
            default: str | None = None) -> str | None:
        v = self.field(m, key, required=required, what=what)
        placeholder = default if default is not None or not required else ""
        if v is None:
            return placeholder
        if v.kind != STR:
            return self._bad(self.wrong_type(v, key, "a string"), placeholder)
        if required and not v.v:
            return self._bad(self._report(KAD155, f"`{key}` is empty", v), placeholder)
        return v.v

    def strs(self, m: Val | None, key: str, **kw) -> list[str]:
        """A list of strings; a null item is "" (Go's decoding; a CRD's schema refuses it: schema.check)."""
        out = []
        for item in self.seq(m, key, **kw):
            if item.kind == NULL and self.typed.get(id(item)) is not item:
                out.append("")
            elif item.kind != STR:
                self._bad(self.wrong_type(item, f"{key}[]", "a string"), None)
            else:
                out.append(item.v)
        return out

    def str_map(self, m: Val | None, key: str) -> tuple[dict[str, str], dict[str, Val]]:
        """A map of strings (labels, selectors) and the node of each value."""
        v = self.map(m, key)
        if v is None:
            return {}, {}
        out: dict[str, str] = {}
        nodes: dict[str, Val] = {}
        for k in sorted(v.v):
            x = v.v[k]
            if x.kind == NULL:
                x = Val(STR, "", x.line, x.col, x.end_line, x.end_col)
            if x.kind != STR:
                self._bad(self.wrong_type(x, k, "a string"), None)
                continue
            out[k] = x.v
            nodes[k] = x
        return out, nodes

    def int(self, m: Val | None, key: str, *, default: int | None = None, lo: int = INT32_MIN,
            hi: int = INT32_MAX, required: bool = False, what: str = "") -> int | None:
        v = self.field(m, key, required=required, what=what)
        placeholder = default if default is not None or not required else max(lo, min(0, hi))
        if v is None:
            return placeholder
        number = whole_number(v)
        if number is None:
            return self._bad(self.wrong_type(v, key, "an integer"), placeholder)
        if not lo <= number <= hi:
            return self._bad(self._report(KAD157, f"`{key}` is {number}; it must be between {lo} and {hi}", v),
                             placeholder)
        return number

    def bool(self, m: Val | None, key: str, *, default: bool) -> bool:
        v = self.field(m, key)
        if v is None:
            return default
        if v.kind != BOOL:
            return self._bad(self.wrong_type(v, key, "a boolean"), default)
        return v.v

    def enum(self, m: Val | None, key: str, allowed: Iterable[str], default: str | None = None,
             *, required: bool = False) -> str | None:
        value = self.str(m, key, default=None, required=required)
        if value is None or value == "":
            return default
        allowed = list(allowed)
        if value not in allowed:
            v = self.field(m, key)
            choices = ", ".join(f"`{a}`" for a in allowed)
            return self._bad(self._report(KAD157, f"`{key}` can't be `{value}`; it is one of {choices}", v,
                                          help=did_you_mean(value, allowed)), default or allowed[0])
        return value

    def quantity(self, v: Val, key: str, *, signed: bool = False) -> int:
        """A Kubernetes quantity in milli-units (strings, and YAML integers or floats); negative
        only where `signed` (a field Kueue never checks the sign of)."""
        if v.kind == STR:
            text: str | int = v.v
        elif v.kind == INT:
            text = v.v
        elif v.kind == FLOAT:
            if not math.isfinite(v.v):
                return self._bad(self._report(KAD158, f"`{key}` is not finite", v), 0)
            text = repr(v.v)
        else:
            return self._bad(self.wrong_type(v, key, "a quantity (e.g. `500m`, `2`, `64Gi`)"), 0)
        try:
            milli = _parse_quantity(text)
        except QuantityError as e:
            return self._bad(self._report(KAD158, f"`{key}`: {e}", v), 0)
        if milli < 0 and not signed:
            return self._bad(self._report(KAD158, f"`{key}` is negative ({v.v})", v), 0)
        return milli

    def quantity_field(self, m: Val | None, key: str, *, required: bool = False,
                       what: str = "") -> int | None:
        v = self.field(m, key, required=required, what=what)
        return None if v is None else self.quantity(v, key)

    def resource_list(self, m: Val | None, key: str, *, signed: bool = False) -> tuple[dict[str, int], dict[str, Val]]:
        """A `ResourceList` (resource name -> quantity) and the node of each quantity; negative
        quantities only where `signed`."""
        v = self.map(m, key)
        if v is None:
            return {}, {}
        out: dict[str, int] = {}
        nodes: dict[str, Val] = {}
        for name in sorted(v.v):
            out[name] = self.quantity(v.v[name], name, signed=signed)
            nodes[name] = v.v[name]
        return out, nodes

    def timestamp(self, m: Val | None, key: str) -> datetime | None:
        v = self.field(m, key)
        if v is None:
            return None
        if (value := _time(v)) is not None:
            return value
        if v.kind == STR and _DATE.fullmatch(v.v) or v.kind == TIME:
            return self._bad(self._report(KAD163, f"`{key}` is a date without a time", v,
                                          help="write it like `2026-11-20T08:00:00Z`"), None)
        if v.kind == STR:
            return self._bad(self._report(KAD163, f"`{key}` is not an RFC 3339 timestamp: `{v.v[:40]}`", v,
                                          help="write it like `2026-11-20T08:00:00Z`"), None)
        return self._bad(self.wrong_type(v, key, "a timestamp"), None)


def _time(v: Val) -> datetime | None:
    """A metav1.Time's value in UTC (Go's time.Parse(time.RFC3339, …)), or None where it is not one."""
    value = v.v if v.kind == TIME else None
    if v.kind == STR and _RFC3339.fullmatch(v.v):
        try:
            value = datetime.fromisoformat(v.v)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return (value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def created_at(metadata: Val | None) -> datetime | None:
    """An object's `metadata.creationTimestamp` where it is a valid one, reporting nothing (its reader does)."""
    v = metadata.v.get("creationTimestamp") if metadata is not None and metadata.kind == MAP else None
    return _time(v) if v is not None else None


class Meta:
    """The identity of one manifest object: its type, name, namespace and nodes."""

    __slots__ = ("api_version", "group", "version", "kind", "node", "metadata", "name", "namespace",
                 "labels", "annotations")

    def __init__(self, api_version: str, kind: str, node: Val, metadata: Val, name: str,
                 namespace: str | None, labels: dict[str, str], annotations: dict[str, str]) -> None:
        self.api_version = api_version
        self.group, _, self.version = api_version.rpartition("/")
        self.kind = kind
        self.node = node
        self.metadata = metadata
        self.name = name
        self.namespace = namespace
        self.labels = labels
        self.annotations = annotations

    def versioned(self, f: Fields, m: Val | None, by_version: dict[str, str]) -> str:
        """The key a field has in this object's API version (the other versions' spelling is
        reported by the schema check, KAD162, and ignored)."""
        return by_version[self.version]
