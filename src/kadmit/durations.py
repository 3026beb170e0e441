"""Durations as Go's time.ParseDuration spells them (`1h30m`, `200ms`) or plain seconds, to milliseconds;
and Go's own reading and writing of them, exactly (signed nanoseconds), for the messages Kueue prints."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_UNITS_MS = {"ns": Decimal("0.000001"), "us": Decimal("0.001"), "µs": Decimal("0.001"), "μs": Decimal("0.001"),
             "ms": Decimal(1), "s": Decimal(1000), "m": Decimal(60_000), "h": Decimal(3_600_000)}
_PART = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h)")
MAX_MS = 10 ** 15  # about 31,000 years: anything longer is a mistake


def parse_duration_ms(text: str) -> int | None:
    """Milliseconds (rounded half-even to whole ms) from `90`, `1.5`, `2h`, `1h30m`, `200ms`; None
    when the text is not a non-negative duration."""
    text = text.strip()
    if not text:
        return None
    try:
        ms = Decimal(text) * 1000  # plain seconds
    except InvalidOperation:
        pos, ms = 0, Decimal(0)
        for m in _PART.finditer(text):
            if m.start() != pos:
                return None
            ms += Decimal(m.group(1)) * _UNITS_MS[m.group(2)]
            pos = m.end()
        if pos != len(text) or pos == 0:
            return None
    if not ms.is_finite() or ms < 0 or ms > MAX_MS:
        return None
    return int(ms.to_integral_value())


def format_seconds(ms: int) -> str:
    """A duration for people: `1h2m3s`, `1.5s`, `200ms`."""
    if ms < 1000:
        return f"{ms}ms"
    s, rest = divmod(ms, 1000)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    sec = f"{s}.{rest:03d}".rstrip("0").rstrip(".") if rest else str(s)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{sec}s" if sec != "0" or not (h or m) else "")
    return out


_UNITS_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10 ** 9, "m": 60 * 10 ** 9,
             "h": 3600 * 10 ** 9}
_GO_PART = re.compile(r"([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)")


def go_duration_ns(text: str) -> int | None:
    """Go's time.ParseDuration, in nanoseconds (signed); None where Go refuses the text."""
    sign, rest = 1, text
    if rest[:1] in "+-" and rest:
        sign, rest = (-1 if rest[0] == "-" else 1), rest[1:]
    if rest == "0":
        return 0
    pos, total = 0, Decimal(0)
    for m in _GO_PART.finditer(rest):
        if m.start() != pos or m.group(1) in ("", "."):
            return None
        try:
            total += Decimal(m.group(1)) * _UNITS_NS[m.group(2)]
        except InvalidOperation:
            return None
        pos = m.end()
    if pos != len(rest) or pos == 0:
        return None
    return sign * int(total)


def go_duration_string(ns: int) -> str:
    """Go's Duration.String: `1h0m0s`, `1m30s`, `1.5s`, `500ms`, `0s`."""
    if ns == 0:
        return "0s"
    sign, u = ("-" if ns < 0 else ""), abs(ns)
    if u < 10 ** 9:
        for unit, size in (("ms", 10 ** 6), ("µs", 10 ** 3), ("ns", 1)):
            if u >= size or unit == "ns":
                whole, frac = divmod(u, size)
                digits = f".{frac:0{len(str(size)) - 1}d}".rstrip("0").rstrip(".") if size > 1 else ""
                return f"{sign}{whole}{digits}{unit}"
    secs, frac = divmod(u, 10 ** 9)
    out = f"{secs % 60}" + (f".{frac:09d}".rstrip("0") if frac else "") + "s"
    minutes = secs // 60
    if minutes:
        out = f"{minutes % 60}m" + out
        if minutes // 60:
            out = f"{minutes // 60}h" + out
    return sign + out
