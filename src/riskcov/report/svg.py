"""A small SVG writer for the HTML report: RC and generalized-risk panels, no matplotlib needed."""

from __future__ import annotations

import math
from html import escape

from riskcov.report.curves import Line

# matplotlib's tab10, so the report's colours match `riskcov plot`
COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
WIDTH, HEIGHT = 420, 300
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 28, 40


def _num(x: float) -> str:
    """A coordinate with 2 decimals and no trailing zeros.

    >>> _num(12.5), _num(3.0), _num(-0.004)
    ('12.5', '3', '0')
    """
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def nice_top(value: float) -> float:
    """A round upper bound of the y axis: 1, 2, 2.5 or 5 times a power of ten.

    >>> nice_top(0.13), nice_top(0.0), nice_top(0.5)
    (0.2, 1.0, 0.5)
    """
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if value <= step * power * (1 + 1e-12):
            return round(step * power, 12)
    return 10.0 * power  # pragma: no cover - the loop always returns


def panel(lines: list[Line], key: str, title: str) -> str:
    """One <svg> panel: `key` (selective_risk or generalized_risk) against coverage."""
    top = nice_top(max((v for line in lines for v in getattr(line, key)), default=0.0))
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(c: float) -> str:
        return _num(LEFT + c * w)

    def y(v: float) -> str:
        return _num(TOP + h - v / top * h)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
        f'<text x="{WIDTH / 2:g}" y="16" text-anchor="middle" class="title">{escape(title)}</text>',
        f'<rect x="{LEFT}" y="{TOP}" width="{w}" height="{h}" fill="none" stroke="#444"/>',
    ]
    for k in range(6):
        c, v = k / 5, top * k / 5
        parts.append(f'<line x1="{x(c)}" y1="{TOP + h}" x2="{x(c)}" y2="{TOP + h + 4}" stroke="#444"/>')
        parts.append(f'<text x="{x(c)}" y="{TOP + h + 16}" text-anchor="middle">{c:g}</text>')
        parts.append(f'<line x1="{LEFT - 4}" y1="{y(v)}" x2="{LEFT}" y2="{y(v)}" stroke="#444"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(v)}" text-anchor="end" dy="4">{v:.3g}</text>')
    parts.append(f'<text x="{LEFT + w / 2:g}" y="{HEIGHT - 6}" text-anchor="middle">coverage</text>')
    for k, line in enumerate(lines):
        color = COLORS[k % len(COLORS)]
        values = getattr(line, key)
        points = " ".join(f"{x(c)},{y(v)}" for c, v in zip(line.coverage, values, strict=True))
        parts.append(
            f'<polyline class="curve" fill="none" stroke="{color}" stroke-width="1.5" points="{points}">'
            f"<title>{escape(line.label)}</title></polyline>"
        )
        for c, v in zip(line.coverage, values, strict=True):
            parts.append(f'<circle cx="{x(c)}" cy="{y(v)}" r="1.8" fill="{color}"/>')
        parts.append(
            f'<line class="cmax" x1="{x(line.cmax)}" y1="{TOP}" x2="{x(line.cmax)}" y2="{TOP + h}" '
            f'stroke="{color}" stroke-dasharray="3 3"><title>Cmax {line.cmax:.4f}</title></line>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def legend(lines: list[Line]) -> str:
    """An HTML list naming each line's colour, label and Cmax."""
    items = [
        f'<li><span class="swatch" style="background:{COLORS[k % len(COLORS)]}"></span>'
        f"{escape(line.label)} (Cmax {line.cmax:.4f})</li>"
        for k, line in enumerate(lines)
    ]
    return '<ul class="legend">' + "".join(items) + "</ul>"
