"""Inline SVG charts for the simulation report: step lines over time and grouped bars, no scripts."""

from __future__ import annotations

from html import escape

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
W, H = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 170, 16, 34


def _fmt(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v / 1000:.1f}k"
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


def _frame(title: str, x_label: str, y_max: float, x_max: float, kind: str) -> list[str]:
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = [f'<svg class="chart" data-kind="{kind}" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}">',
           f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#ccc"/>']
    for i in range(5):
        y = TOP + ph - ph * i / 4
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">'
                   f'{_fmt(y_max * i / 4)}</text>')
    for i in range(5):
        x = LEFT + pw * i / 4
        out.append(f'<text x="{x:.1f}" y="{TOP + ph + 14}" font-size="10" text-anchor="middle">'
                   f'{_fmt(x_max * i / 4)}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 4}" font-size="11" text-anchor="middle">{escape(x_label)}</text>')
    return out


def _legend(names: list[str]) -> list[str]:
    out = []
    for i, name in enumerate(names[:14]):
        y = TOP + 10 + i * 15
        out.append(f'<rect x="{W - RIGHT + 10}" y="{y - 8}" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>')
        out.append(f'<text x="{W - RIGHT + 24}" y="{y + 1}" font-size="10">{escape(name[:26])}</text>')
    if len(names) > 14:
        out.append(f'<text x="{W - RIGHT + 10}" y="{TOP + 10 + 14 * 15}" font-size="10">'
                   f'and {len(names) - 14} more</text>')
    return out


def step_lines(title: str, times: list[float], series: dict[str, list[float]], y_max: float | None = None) -> str:
    """One step line per series over `times` (seconds)."""
    names = list(series)
    top = y_max if y_max is not None else max([max(v, default=0) for v in series.values()] + [1])
    top = top or 1
    x_max = times[-1] if times and times[-1] > 0 else 1
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = _frame(title, "seconds from the start", top, x_max, "lines")
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
        out.append(f'<polyline fill="none" stroke-width="1.5" stroke="{PALETTE[i % len(PALETTE)]}" '
                   f'points="{" ".join(pts)}"><title>{escape(name)}</title></polyline>')
    out += _legend(names)
    out.append("</svg>")
    return "\n".join(out)


def grouped_bars(title: str, groups: list[str], series: dict[str, list[float | None]], unit: str = "s") -> str:
    """Bars per group (e.g. per queue), one colour per series (e.g. p50 / p90 / max)."""
    names = list(series)
    vals = [v for vs in series.values() for v in vs if v is not None]
    top = max(vals + [1]) or 1
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = _frame(title, unit and f"per group; bars in {unit}", top, 0, "bars")
    out = [line for line in out if 'text-anchor="middle">0</text>' not in line]
    n = max(1, len(groups))
    slot = pw / n
    bar = max(1.0, slot * 0.8 / max(1, len(names)))
    for g, group in enumerate(groups):
        for i, name in enumerate(names):
            v = series[name][g]
            if v is None:
                continue
            h = ph * v / top
            x = LEFT + g * slot + slot * 0.1 + i * bar
            out.append(f'<rect x="{x:.1f}" y="{TOP + ph - h:.1f}" width="{bar:.1f}" height="{max(h, 0.5):.1f}" '
                       f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(group)} {escape(name)}: '
                       f'{_fmt(v)}{unit}</title></rect>')
        if n <= 20:
            out.append(f'<text x="{LEFT + g * slot + slot / 2:.1f}" y="{TOP + ph + 12}" font-size="9" '
                       f'text-anchor="middle">{escape(group[:12])}</text>')
    out += _legend(names)
    out.append("</svg>")
    return "\n".join(out)


def histogram(title: str, values: list[float], end: float, bins: int = 40) -> str:
    """Counts of `values` (seconds) in equal bins over [0, end]."""
    end = end or 1
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v / end * bins))] += 1
    top = max(counts + [1])
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = _frame(title, "seconds from the start", top, end, "histogram")
    for i, c in enumerate(counts):
        if c:
            h = ph * c / top
            out.append(f'<rect x="{LEFT + pw * i / bins:.1f}" y="{TOP + ph - h:.1f}" width="{pw / bins - 1:.1f}" '
                       f'height="{h:.1f}" fill="{PALETTE[3]}"><title>{c}</title></rect>')
    out.append("</svg>")
    return "\n".join(out)
