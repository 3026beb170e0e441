"""Durations as Go's time.ParseDuration spells them (`1h30m`, `200ms`) or plain seconds, to milliseconds."""

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
