"""Reading values of fields: names, strings, integers, quantities, maps, taints, enums; each
mistake becomes one located diagnostic and the field is dropped."""

from __future__ import annotations

import re
import sys
from datetime import datetime, timezone
from typing import Iterable

from kadmit.diagnostics import Diagnostics, did_you_mean
from kadmit.durations import parse_duration_ms
from kadmit.model import Taint, Toleration
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.source import Span
from kadmit.syntax import codes
from kadmit.syntax.ast import Attr, Block, ListV, MapV, Match, Member, ModeV, Resources, Scalar, Value, Word

INT32_MAX = 2**31 - 1
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_PLAIN_INT = re.compile(r"^-?[0-9]+$")
_PLAIN_DECIMAL = re.compile(r"^[0-9]+(\.[0-9]+)?$")

_SHAPES = {Scalar: "a single value", ListV: "a list `[…]`", MapV: "a map `{…}`",
           ModeV: "a topology request"}


def shape(v: Value) -> str:
    if isinstance(v, Scalar):
        return {"number": "a number", "string": "a string", "name": "a name", "bool": "a boolean"}[v.kind]
    return _SHAPES[type(v)]


def member_name(m: Member) -> tuple[str, Span]:
    if isinstance(m, Attr):
        return m.key.value, m.key.span
    if isinstance(m, Block):
        return m.kind.value, m.kind.span
    if isinstance(m, Resources):
        return "resources", m.span
    return "match", m.span


class Fields:
    """The members of one block, checked against the fields and blocks it may hold."""

    def __init__(self, what: str, members: list[Member], attrs: Iterable[str], blocks: Iterable[str],
                 diags: Diagnostics, *, repeated: Iterable[str] = ()) -> None:
        self.attrs: dict[str, Attr] = {}
        self.blocks: dict[str, list[Block]] = {}
        self.resources: list[Resources] = []
        self.matches: list[Match] = []
        attrs, blocks, repeated = set(attrs), set(blocks), set(repeated)
        for m in members:
            name, span = member_name(m)
            if isinstance(m, Attr) and name in attrs:
                if name in self.attrs:
                    diags.emit(codes.DUPLICATE_FIELD, f"`{name}` is set twice in {what}", span,
                               help="remove one; kadmit keeps the first")
                    continue
                self.attrs[name] = m
            elif isinstance(m, Block) and name in blocks:
                if name in self.blocks and name not in repeated:
                    diags.emit(codes.DUPLICATE_FIELD, f"block `{name}` appears twice in {what}", span,
                               help="remove one; kadmit keeps the first")
                    continue
                self.blocks.setdefault(name, []).append(m)
            elif isinstance(m, Resources) and "resources" in blocks:
                self.resources.append(m)
            elif isinstance(m, Match) and "match" in blocks:
                self.matches.append(m)
            else:
                self._unknown(what, m, name, span, attrs, blocks, diags)

    @staticmethod
    def _unknown(what, m, name, span, attrs, blocks, diags) -> None:
        if isinstance(m, Attr) and name in blocks:
            diags.emit(codes.UNKNOWN_FIELD, f"`{name}` is a block in {what}, not a field", span,
                       help=f"write `{name} {{ … }}`")
        elif isinstance(m, Block) and name in attrs:
            diags.emit(codes.UNKNOWN_FIELD, f"`{name}` is a field in {what}, not a block", span,
                       help=f"write `{name} = …`")
        else:
            kind = "block" if isinstance(m, (Block, Resources)) else "field"
            known = sorted(attrs | blocks)
            diags.emit(codes.UNKNOWN_FIELD, f"unknown {kind} `{name}` in {what}", span,
                       help=did_you_mean(name, known) or
                       ("it takes " + ", ".join(f"`{k}`" for k in known) if known else "it takes no fields"))

    def get(self, name: str) -> Attr | None:
        return self.attrs.get(name)

    def block(self, name: str) -> Block | None:
        found = self.blocks.get(name)
        return found[0] if found else None


# --- scalars ---


def expect_scalar(v: Value, what: str, kinds: tuple[str, ...], diags: Diagnostics) -> Scalar | None:
    if isinstance(v, Scalar) and v.kind in kinds:
        return v
    wanted = " or ".join({"number": "a number", "string": "a string", "name": "a name",
                          "bool": "`true` or `false`"}[k] for k in kinds)
    diags.emit(codes.WRONG_VALUE, f"{what} takes {wanted}, not {shape(v)}", v.span)
    return None


def name_of(v: Value, what: str, diags: Diagnostics) -> str | None:
    """A name, bare or quoted."""
    s = expect_scalar(v, what, ("name", "string"), diags)
    return s.value if s else None


def string_of(v: Value, what: str, diags: Diagnostics) -> str | None:
    """A label value or similar: strings, and bare names/numbers/booleans as written."""
    s = expect_scalar(v, what, ("string", "name", "number", "bool"), diags)
    return s.value if s else None


def bool_of(v: Value, what: str, diags: Diagnostics) -> bool | None:
    s = expect_scalar(v, what, ("bool",), diags)
    return None if s is None else s.value == "true"


def int_of(v: Value, what: str, diags: Diagnostics, *, low: int = -INT32_MAX - 1,
           high: int = INT32_MAX) -> int | None:
    s = expect_scalar(v, what, ("number",), diags)
    if s is None:
        return None
    return int_text(s.text, s.span, what, diags, low=low, high=high)


def int_text(text: str, span: Span, what: str, diags: Diagnostics, *, low: int = -INT32_MAX - 1,
             high: int = INT32_MAX) -> int | None:
    if not _PLAIN_INT.match(text) or len(text) > 30:
        diags.emit(codes.BAD_INTEGER, f"{what} must be a whole number, not `{text}`", span)
        return None
    n = int(text)
    if not low <= n <= high:
        diags.emit(codes.BAD_INTEGER, f"{what} `{text}` is out of range ({low} to {high})", span)
        return None
    return n


def quantity_of(v: Value, what: str, diags: Diagnostics) -> int | None:
    """A Kubernetes quantity in milli-units; `64Gi`, `"64Gi"` and `-1` all accepted here."""
    s = expect_scalar(v, what, ("number", "string"), diags)
    if s is None:
        return None
    try:
        return parse_quantity(s.value)
    except QuantityError as e:
        diags.emit(codes.BAD_QUANTITY, f"{what}: {e}", s.span)
        return None


def weight_of(v: Value, what: str, diags: Diagnostics) -> int | None:
    """A fair-sharing weight: a plain decimal, in milli-units."""
    s = expect_scalar(v, what, ("number",), diags)
    if s is None:
        return None
    if not _PLAIN_DECIMAL.match(s.text) or len(s.text) > 20:
        diags.emit(codes.BAD_QUANTITY, f"{what} must be a plain number like `2` or `0.5`, not `{s.text}`",
                   s.span)
        return None
    return parse_quantity(s.text)


def enum_of(v: Value, what: str, choices: dict[str, str], diags: Diagnostics) -> str | None:
    """One of `choices` (written form -> model value); Kueue's own spelling is accepted too."""
    s = expect_scalar(v, what, ("name", "string"), diags)
    if s is None:
        return None
    if s.value in choices:
        return choices[s.value]
    if s.value in choices.values():
        return s.value
    diags.emit(codes.BAD_ENUM, f"`{s.value}` is not a choice for {what}", s.span,
               help=did_you_mean(s.value, choices) or "choose one of " + ", ".join(f"`{c}`" for c in choices))
    return None


def time_of(v: Value, what: str, diags: Diagnostics) -> datetime | None:
    s = expect_scalar(v, what, ("string",), diags)
    if s is None:
        return None
    try:
        t = datetime.fromisoformat(s.value)
    except ValueError:
        diags.emit(codes.BAD_TIME, f"`{s.value}` is not an RFC 3339 time", s.span,
                   help='write e.g. `"2026-11-20T09:00:00Z"`')
        return None
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)


def duration_of(v: Value, what: str, diags: Diagnostics) -> int | None:
    """Milliseconds from seconds (`90`) or a Go duration (`"45m"`, `"1h30m"`)."""
    s = expect_scalar(v, what, ("number", "string", "name"), diags)
    if s is None:
        return None
    ms = parse_duration_ms(s.value)
    if ms is None:
        diags.emit(codes.WRONG_VALUE, f"{what} `{s.value}` is not a duration", s.span,
                   help='write seconds (`90`) or a Go duration (`"45m"`, `"1h30m"`)')
    return ms


# --- compound ---


def list_of(v: Value, what: str, diags: Diagnostics) -> list[Value] | None:
    if isinstance(v, ListV):
        return v.items
    diags.emit(codes.WRONG_VALUE, f"{what} takes a list `[…]`, not {shape(v)}", v.span)
    return None


def map_entries(v: Value, what: str, diags: Diagnostics) -> list[tuple[Word, Value]] | None:
    """Entries of a map, first of each key kept; a repeated key is reported."""
    if not isinstance(v, MapV):
        diags.emit(codes.WRONG_VALUE, f"{what} takes a map `{{ key = value }}`, not {shape(v)}", v.span)
        return None
    seen: set[str] = set()
    out = []
    for e in v.entries:
        if e.key.value in seen:
            diags.emit(codes.DUPLICATE_FIELD, f"key `{e.key.value}` appears twice in {what}", e.key.span)
            continue
        seen.add(e.key.value)
        out.append((e.key, e.value))
    return out


def string_map(v: Value, what: str, diags: Diagnostics, spans: dict[str, Span], field: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, val in map_entries(v, what, diags) or []:
        s = string_of(val, f"`{key.value}` in {what}", diags)
        if s is not None:
            out[key.value] = s
            spans[sys.intern(f"{field}.{key.value}")] = val.span  # the same few keys in every object
    return out


def check_kueue_labels(v: Value, diags: Diagnostics) -> None:
    """Label keys in Kueue's domain that Kueue would not read as written (KAD301), at the key."""
    from kadmit import kueuelabels

    for e in v.entries if isinstance(v, MapV) else ():
        key = e.key.value
        got = kueuelabels.problem(key, "label", movable=False) if "kueue" in key or "k8s" in key else None
        if got is not None:
            diags.emit(codes.KUEUE_KEY, got[0], e.key.span, help=got[1])


def quantity_map(v: Value, what: str, diags: Diagnostics, spans: dict[str, Span], field: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, val in map_entries(v, what, diags) or []:
        q = quantity_of(val, f"`{key.value}` in {what}", diags)
        if q is not None:
            out[key.value] = q
            spans[sys.intern(f"{field}.{key.value}")] = val.span  # the same few keys in every object
    return out


def _effect(text: str, span: Span, diags: Diagnostics) -> str | None:
    if text in _EFFECTS:
        return text
    diags.emit(codes.BAD_TAINT, f"`{text}` is not a taint effect", span,
               help=did_you_mean(text, _EFFECTS) or "use `NoSchedule`, `PreferNoSchedule` or `NoExecute`")
    return None


def taint_of(v: Value, diags: Diagnostics) -> Taint | None:
    s = expect_scalar(v, "a taint", ("string",), diags)
    if s is None:
        return None
    body, sep, effect = s.value.rpartition(":")
    key, _, value = body.partition("=")
    if not sep or not key:
        diags.emit(codes.BAD_TAINT, f"`{s.value}` is not a taint", s.span,
                   help="write `key=value:Effect` or `key:Effect`")
        return None
    eff = _effect(effect, s.span, diags)
    return None if eff is None else Taint(key=key, value=value, effect=eff, span=s.span)


_TOLERATION_FIELDS = ("key", "operator", "value", "effect")
_TOLERATION_OPS = {"equal": "Equal", "exists": "Exists", "Equal": "Equal", "Exists": "Exists"}


def _toleration_map(v: MapV, diags: Diagnostics) -> Toleration | None:
    """`{ key = "k", operator = exists, value = "v", effect = NoSchedule }`: Kubernetes' own fields (operator
    `equal` by default, as Kubernetes defaults it), for what the string form cannot say: an `exists` with a
    value, an `equal` with no key (it tolerates every taint of its value)."""
    got: dict[str, tuple[str, Span]] = {}
    for k, val in map_entries(v, "a toleration", diags) or []:
        if k.value not in _TOLERATION_FIELDS:
            diags.emit(codes.UNKNOWN_FIELD, f"unknown field `{k.value}` in a toleration", k.span,
                       help=did_you_mean(k.value, _TOLERATION_FIELDS) or "it takes `key`, `operator`, `value`, `effect`")
            return None
        if (text := string_of(val, f"`{k.value}` of a toleration", diags)) is None:
            return None
        got[k.value] = (text, val.span)
    op, op_span = got.get("operator", ("equal", v.span))
    if (operator := _TOLERATION_OPS.get(op)) is None:
        diags.emit(codes.BAD_ENUM, f"`{op}` is not a toleration operator", op_span, help="use `equal` or `exists`")
        return None
    effect, effect_span = got.get("effect", ("", v.span))
    if effect and _effect(effect, effect_span, diags) is None:
        return None
    return Toleration(key=got.get("key", ("", v.span))[0], operator=operator, value=got.get("value", ("", v.span))[0],
                      effect=effect, span=v.span)


def toleration_of(v: Value, diags: Diagnostics) -> Toleration | None:
    """`key=value:Effect`, `key:Effect`, `key=value`, `key` or `*` (tolerates everything); or a map of
    Kubernetes' fields (`_toleration_map`)."""
    if isinstance(v, MapV):
        return _toleration_map(v, diags)
    s = expect_scalar(v, "a toleration", ("string",), diags)
    if s is None:
        return None
    text = s.value
    if text == "*":
        return Toleration(operator="Exists", span=s.span)
    body, effect = text, ""
    if ":" in text:
        body, _, effect = text.rpartition(":")
        if _effect(effect, s.span, diags) is None:
            return None
    key, eq, value = body.partition("=")
    if key == "*" and not eq:
        return Toleration(operator="Exists", effect=effect, span=s.span)
    if not key or ":" in body:
        diags.emit(codes.BAD_TAINT, f"`{text}` is not a toleration", s.span,
                   help="write `key=value:Effect`, `key:Effect`, `key=value`, `key` or `*`")
        return None
    if eq:
        return Toleration(key=key, operator="Equal", value=value, effect=effect, span=s.span)
    return Toleration(key=key, operator="Exists", effect=effect, span=s.span)
