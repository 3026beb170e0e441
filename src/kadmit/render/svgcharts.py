"""Inline SVG charts for the simulation report: step lines over time and bars, no scripts.

Every chart is drawn on a 1,300 x H canvas that scales down to its column (`width="100%"` with a
viewBox), so at a 1,400-pixel window it is drawn at full size: axis labels in people's units
(durations, whole numbers), the legend in its own column right of the plot, and bars laid out as
rows with their names left of them, so no two labels meet however many queues there are. Every
mark that stands for data has class `mark` (the report's browser test counts them)."""

from __future__ import annotations

from html import escape
from typing import Callable

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
W, H = 1300, 300
LEFT, RIGHT, TOP, BOTTOM = 70, 260, 16, 40
LEGEND_ROW = 16
LABEL_W = 230  # bar charts: room for the group's name left of its bars
ROW = 18  # bar charts: one bar's height
FONT = 'font-family="system-ui, sans-serif"'
Fmt = Callable[[float], str]


def number(v: float) -> str:
    """An axis or bar value: whole numbers as such, others with at most one decimal."""
    if abs(v) >= 10_000:
        return f"{v / 1000:.0f}k"
    if v == int(v):
        return str(int(v))
    return f"{v:.1f}".removesuffix(".0")


def duration(v: float) -> str:
    """Seconds as people read them on an axis: `0`, `45s`, `12m`, `1h30m`, `2d4h`."""
    s = round(v)
    if s == 0:
        return "0" if v == 0 else f"{v * 1000:.0f}ms"
    d, rest = divmod(s, 86400)
    h, rest = divmod(rest, 3600)
    m, sec = divmod(rest, 60)
    parts = [(d, "d"), (h, "h"), (m, "m"), (sec, "s")]
    first = next(i for i, (n, _) in enumerate(parts) if n)
    return "".join(f"{n}{u}" for n, u in parts[first:first + 2] if n)


def _nice_step(span: float, ticks: int = 5) -> float:
    """A tick spacing of at most `ticks` ticks over `span` seconds that reads as a round duration."""
    raw = span / ticks
    for unit in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400):
        if unit >= raw:
            return unit
    return 86400 * _nice_max(raw / 86400)


def _nice_max(v: float) -> float:
    """The axis top: `v` rounded up to a whole number of ticks of 1, 2 or 5 times a power of ten,
    at most five of them (so every tick's label is a round number)."""
    if v <= 0:
        return 1
    raw = v / 5
    mag = 10 ** (len(str(int(raw))) - 1) if raw >= 1 else 1
    step = next(m * mag for m in (1, 2, 5, 10) if raw <= m * mag)
    return step * -(-v // step)


def _ticks(top: float) -> list[float]:
    """The tick values from 0 to `top` (made by `_nice_max`): at most six, evenly spaced."""
    n = next(k for k in (5, 4, 3, 2, 1) if (top / k) == int(top / k) or k == 1)
    return [top * i / n for i in range(n + 1)]


def _open(kind: str, title: str, height: int) -> list[str]:
    return [f'<svg class="chart" data-kind="{kind}" xmlns="http://www.w3.org/2000/svg" width="100%" '
            f'style="max-width:{W}px" viewBox="0 0 {W} {height}" role="img" aria-label="{escape(title)}" {FONT}>']


def _legend(names: list[str], x: int) -> list[str]:
    out = []
    shown = names[:14]
    for i, name in enumerate(shown):
        y = TOP + 12 + i * LEGEND_ROW
        out.append(f'<rect x="{x}" y="{y - 9}" width="11" height="11" fill="{PALETTE[i % len(PALETTE)]}"/>')
        out.append(f'<text class="legend" x="{x + 16}" y="{y + 1}" font-size="12">{escape(_cut(name, 32))}'
                   f'<title>{escape(name)}</title></text>')
    if len(names) > len(shown):
        out.append(f'<text class="legend" x="{x}" y="{TOP + 12 + len(shown) * LEGEND_ROW}" font-size="12">'
                   f'and {len(names) - len(shown)} more</text>')
    return out


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def step_lines(title: str, times: list[float], series: dict[str, list[float]], y_max: float | None = None,
               unit: str = "") -> str:
    """One step line per series over `times` (seconds from the start). A run that ends where it
    starts (everything at t=0) has no time to draw along: its values at that instant are bars."""
    if not times or times[-1] <= 0:
        return bars(title + " at the start", list(series), {"at the start": [v[-1] if v else 0 for v in series.values()]},
                    unit=unit, note="everything happened at the start: the values at that instant")
    names = list(series)
    top = y_max if y_max is not None else max([max(v, default=0) for v in series.values()] + [1])
    top = _nice_max(top)
    x_max = times[-1]
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = _open("lines", title, H)
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>')
    for v in _ticks(top):
        y = TOP + ph - ph * v / top
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" font-size="12" text-anchor="end">'
                   f'{number(v)}{unit}</text>')
    step = _nice_step(x_max)
    ticks = [k * step for k in range(int(x_max // step) + 1)]
    for t in ticks:
        x = LEFT + pw * t / x_max
        out.append(f'<line x1="{x:.1f}" y1="{TOP + ph}" x2="{x:.1f}" y2="{TOP + ph + 4}" stroke="#999"/>')
        out.append(f'<text class="axis" x="{x:.1f}" y="{TOP + ph + 17}" font-size="12" text-anchor="middle">'
                   f'{duration(t)}</text>')
    out.append(f'<text class="axis" x="{LEFT + pw / 2}" y="{H - 4}" font-size="12" text-anchor="middle">'
               f'time from the start</text>')
    for i, name in enumerate(names):
        pts: list[str] = []
        prev_y: float | None = None
        for t, v in zip(times, series[name]):
            x = LEFT + pw * t / x_max
            y = TOP + ph - ph * min(v, top) / top
            if prev_y is not None:
                pts.append(f"{x:.1f},{prev_y:.1f}")  # a step: hold the last value, then move
            pts.append(f"{x:.1f},{y:.1f}")
            prev_y = y
        out.append(f'<polyline class="mark" fill="none" stroke-width="2" stroke="{PALETTE[i % len(PALETTE)]}" '
                   f'points="{" ".join(pts)}"><title>{escape(name)}</title></polyline>')
    out += _legend(names, W - RIGHT + 16)
    out.append("</svg>")
    return "\n".join(out)


def bars(title: str, groups: list[str], series: dict[str, list[float | None]], unit: str = "",
         fmt: Fmt = number, note: str = "") -> str:
    """Horizontal bars: a row per group (e.g. per queue) with its name on the left, one bar per
    series (e.g. p50 / p90 / max) in the series' colour, its value at its end."""
    names = list(series)
    vals = [v for vs in series.values() for v in vs if v is not None]
    if fmt is duration:  # ticks at round durations
        step = _nice_step(max(vals + [0]) or 1)
        top = step * max(1, -(-max(vals + [0]) // step))
        ticks = [step * k for k in range(int(top // step) + 1)]
    else:
        top = _nice_max(max(vals + [0]))
        ticks = _ticks(top)
    band = ROW * len(names) + 8
    ph = max(1, len(groups)) * band
    height = TOP + ph + BOTTOM + (16 if note else 0)
    left = LABEL_W
    right = RIGHT if len(names) > 1 else 120
    pw = W - left - right
    out = _open("bars", title, height)
    out.append(f'<rect x="{left}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>')
    for v in ticks:
        x = left + pw * v / top
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" stroke="#e5e5e5"/>')
        out.append(f'<text class="axis" x="{x:.1f}" y="{TOP + ph + 16}" font-size="12" text-anchor="middle">'
                   f'{fmt(v)}{unit}</text>')
    for g, group in enumerate(groups):
        y0 = TOP + g * band + 4
        out.append(f'<text class="axis" x="{left - 8}" y="{y0 + band / 2:.1f}" font-size="12" text-anchor="end">'
                   f'{escape(_cut(group, 34))}<title>{escape(group)}</title></text>')
        for i, name in enumerate(names):
            v = series[name][g]
            if v is None:
                continue
            w = pw * v / top
            y = y0 + i * ROW
            out.append(f'<rect class="mark" x="{left}" y="{y:.1f}" width="{max(w, 1.5):.1f}" height="{ROW - 3}" '
                       f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(group)} {escape(name)}: '
                       f'{fmt(v)}{unit}</title></rect>')
            out.append(f'<text class="value" x="{left + max(w, 1.5) + 4:.1f}" y="{y + ROW - 6:.1f}" font-size="11">'
                       f'{fmt(v)}{unit}</text>')
    if note:
        out.append(f'<text class="axis" x="{left}" y="{height - 6}" font-size="12">{escape(note)}</text>')
    if len(names) > 1:
        out += _legend(names, W - right + 16)
    out.append("</svg>")
    return "\n".join(out)


def grouped_bars(title: str, groups: list[str], series: dict[str, list[float | None]], unit: str = "s") -> str:
    """Bars per group, one colour per series; seconds (`unit` "s") drawn as durations."""
    if unit == "s":
        return bars(title, groups, series, fmt=duration)
    return bars(title, groups, series, unit=unit)


def histogram(title: str, values: list[float], end: float, bins: int = 40) -> str:
    """Counts of `values` (seconds) in equal bins over [0, end]; a run that ends where it starts
    (everything at t=0) is one bar."""
    if not end:
        return bars(title, ["at the start"], {"count": [float(len(values))]},
                    note="everything happened at the start")
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v / end * bins))] += 1
    top = _nice_max(max(counts + [1]))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = _open("histogram", title, H)
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>')
    for v in _ticks(top):
        y = TOP + ph - ph * v / top
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" font-size="12" text-anchor="end">'
                   f'{number(v)}</text>')
    step = _nice_step(end)
    for k in range(int(end // step) + 1):
        x = LEFT + pw * k * step / end
        out.append(f'<text class="axis" x="{x:.1f}" y="{TOP + ph + 17}" font-size="12" text-anchor="middle">'
                   f'{duration(k * step)}</text>')
    out.append(f'<text class="axis" x="{LEFT + pw / 2}" y="{H - 4}" font-size="12" text-anchor="middle">'
               f'time from the start</text>')
    for i, c in enumerate(counts):
        if c:
            h = ph * c / top
            out.append(f'<rect class="mark" x="{LEFT + pw * i / bins:.1f}" y="{TOP + ph - h:.1f}" '
                       f'width="{pw / bins - 1:.1f}" height="{h:.1f}" fill="{PALETTE[3]}"><title>{c}</title></rect>')
    out.append("</svg>")
    return "\n".join(out)
