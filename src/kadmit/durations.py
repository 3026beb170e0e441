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


def go_duration_ns(text: str) -> int | None:
    """Go's time.ParseDuration, in nanoseconds (signed); None where Go refuses the text."""
    return go_parse_duration(text)[0]


_UNITS_NS = {"ns": 1, "us": 10 ** 3, "µs": 10 ** 3, "μs": 10 ** 3, "ms": 10 ** 6, "s": 10 ** 9, "m": 60 * 10 ** 9,
             "h": 3600 * 10 ** 9}
_TOP = 1 << 63


def go_parse_duration(text: str) -> tuple[int | None, str | None]:
    """Go's time.ParseDuration, step for step (format.go): (signed nanoseconds, None), or (None, Go's error
    text, e.g. `time: unknown unit " minutes" in duration "5 minutes"`)."""
    s, neg = text, False
    if s[:1] in ("-", "+"):
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0, None
    invalid = None, f"time: invalid duration {_go_quote(text)}"
    if s == "":
        return invalid
    d = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            return invalid
        i = 0
        v = 0
        while i < len(s) and "0" <= s[i] <= "9":
            if v > _TOP // 10:
                return invalid
            v = v * 10 + ord(s[i]) - 48
            if v > _TOP:
                return invalid
            i += 1
        pre, s = i > 0, s[i:]
        f, scale, post = 0, 1.0, False
        if s[:1] == ".":
            s = s[1:]
            i, overflow = 0, False
            while i < len(s) and "0" <= s[i] <= "9":
                if not overflow:
                    if f > (_TOP - 1) // 10:
                        overflow = True
                    else:
                        y = f * 10 + ord(s[i]) - 48
                        if y > _TOP:
                            overflow = True
                        else:
                            f, scale = y, scale * 10
                i += 1
            post, s = i > 0, s[i:]
        if not pre and not post:
            return invalid
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        if i == 0:
            return None, f"time: missing unit in duration {_go_quote(text)}"
        u, s = s[:i], s[i:]
        unit = _UNITS_NS.get(u)
        if unit is None:
            return None, f"time: unknown unit {_go_quote(u)} in duration {_go_quote(text)}"
        if v > _TOP // unit:
            return invalid
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))  # Go's float64 arithmetic, truncated
            if v > _TOP:
                return invalid
        d += v
        if d > _TOP:
            return invalid
    if neg:
        return -d, None
    if d > _TOP - 1:
        return invalid
    return d, None


def _go_quote(s: str) -> str:
    """time's quote: `"` and `\\` escaped, a control or non-ASCII character as its UTF-8 bytes in `\\x..`."""
    out = ['"']
    for c in s:
        if c < " " or ord(c) >= 0x80:
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + c if c in '"\\' else c)
    out.append('"')
    return "".join(out)


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
