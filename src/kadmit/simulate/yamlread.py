"""Typed, located reads of the YAML files `simulate` takes besides policy and state (NodePools, sweep
files): each wrong type, missing field or bad value is a diagnostic at its node, in kadmit's words."""

from __future__ import annotations

import math

from kadmit.diagnostics import Diagnostics, did_you_mean, field_key
from kadmit.durations import parse_duration_ms
from kadmit.manifests.yamltree import BOOL, DESCRIBE, FLOAT, INT, MAP, NULL, SEQ, STR, Val
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.source import Span


class Unusable(Exception):
    """What is being read can't be used; its diagnostic has been emitted."""


def shown(v: Val) -> str:
    """A value as a message shows it: its kind, and short scalars as written."""
    if v.kind in (STR, INT, FLOAT, BOOL) and len(str(v.v)) <= 40:
        text = str(v.v).lower() if v.kind == BOOL else str(v.v)
        return f"{DESCRIBE[v.kind]} (`{text}`)"
    return DESCRIBE.get(v.kind, "a value")


class Fields:
    """Reads one file's values, reporting problems with `code` at the node they are about.
    `what` arguments name the field as the user wrote its path (`spec.limits.cpu`)."""

    def __init__(self, file: str, diags: Diagnostics, code: str) -> None:
        self.file = file
        self.diags = diags
        self.code = code

    def span(self, at: Val | Span | None) -> Span:
        if isinstance(at, Val):
            return at.span(self.file)
        return at if at is not None else Span(file=self.file, line=1, column=1)

    def fail(self, at: Val | Span | None, message: str, help: str | None = None) -> Unusable:
        """Report a problem (raise what this returns to give up on the object being read)."""
        self.diags.emit(self.code, message, self.span(at), help=help)
        return Unusable(message)

    def warn(self, code: str, at: Val | Span | None, message: str, help: str | None = None) -> None:
        self.diags.emit(code, message, self.span(at), help=help)

    # --- structure ------------------------------------------------------------------------------

    def mapping(self, v: Val, what: str) -> Val:
        if v.kind != MAP:
            raise self.fail(v, f"`{what}` must be a mapping, not {shown(v)}")
        return v

    def get(self, m: Val, key: str) -> Val | None:
        """A field of a mapping; None when absent or null."""
        got = m.v.get(key) if m.kind == MAP else None
        return None if got is None or got.kind == NULL else got

    def required(self, m: Val, key: str, what: str) -> Val:
        got = self.get(m, key)
        if got is None:
            raise self.fail(m, f"`{what}` has no `{key}`")
        return got

    def key_span(self, m: Val, key: str) -> Span:
        line, col, end_line, end_col = m.keys[key]
        return Span(file=self.file, line=line + 1, column=col + 1, end_line=end_line + 1, end_column=end_col + 1)

    def unknown_keys(self, m: Val, known: tuple[str, ...], what: str) -> list[str]:
        """Keys of `m` not in `known`, each reported (an error: a misspelt key would otherwise be dropped)."""
        out = []
        for key in m.v:
            if key not in known:
                hint = did_you_mean(str(key), known)
                self.diags.emit(self.code, f"unknown field `{key}` in `{what}`", self.key_span(m, key),
                                help=hint or "known here: " + ", ".join(f"`{k}`" for k in known))
                out.append(key)
        return out

    def seq(self, v: Val, what: str) -> list[Val]:
        if v.kind != SEQ:
            raise self.fail(v, f"`{what}` must be a list, not {shown(v)}")
        return v.v

    # --- scalars ------------------------------------------------------------------------------------

    def string(self, v: Val, what: str) -> str:
        if v.kind != STR:
            raise self.fail(v, f"`{what}` must be a string, not {shown(v)}",
                            help="quote it" if v.kind in (INT, FLOAT, BOOL) else None)
        return v.v

    def strings(self, v: Val, what: str) -> dict[str, str]:
        """A map of strings to strings (labels)."""
        self.mapping(v, what)
        return {k: self.string(x, field_key(what, k)) for k, x in v.v.items()}

    def integer(self, v: Val, what: str, lo: int, hi: int) -> int:
        if v.kind != INT:
            raise self.fail(v, f"`{what}` must be a whole number, not {shown(v)}")
        if not lo <= v.v <= hi:
            raise self.fail(v, f"`{what}` is {v.v}, outside {lo}..{hi}")
        return v.v

    def number(self, v: Val, what: str, lo: float, hi: float) -> float:
        if v.kind not in (INT, FLOAT) or not math.isfinite(v.v):
            raise self.fail(v, f"`{what}` must be a finite number, not {shown(v)}")
        if not lo <= v.v <= hi:
            raise self.fail(v, f"`{what}` is {v.v}, outside {lo:g}..{hi:g}")
        return float(v.v)

    def quantity(self, v: Val, what: str) -> int:
        """A non-negative Kubernetes quantity, in milli-units."""
        if v.kind not in (STR, INT, FLOAT):
            raise self.fail(v, f"`{what}` must be a quantity such as `8` or `64Gi`, not {shown(v)}")
        text = str(v.v)
        try:
            q = parse_quantity(text)
        except QuantityError as e:
            raise self.fail(v, f"`{what}`: {e}") from None
        if q < 0:
            raise self.fail(v, f"`{what}` is negative (`{text}`)")
        return q

    def duration(self, v: Val, what: str) -> int:
        """Milliseconds, from `90` (seconds), `45m` or `1h30m`."""
        if v.kind not in (STR, INT, FLOAT) or (v.kind == FLOAT and not math.isfinite(v.v)):
            raise self.fail(v, f"`{what}` must be a duration such as `90s` or `1h30m`, not {shown(v)}")
        ms = parse_duration_ms(str(v.v))
        if ms is None:
            raise self.fail(v, f"`{what}` `{v.v}` is not a duration", help="e.g. `90s`, `45m` or `1h30m`")
        return ms

    def choice(self, v: Val, what: str, options: tuple[str, ...]) -> str:
        text = self.string(v, what)
        if text not in options:
            raise self.fail(v, f"`{what}` `{text}` is not one of {', '.join(options)}",
                            help=did_you_mean(text, options))
        return text
