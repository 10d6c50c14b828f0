"""Horizontal stacked bars as inline SVG: no script, no font or style fetched."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape

from gpulint.core.findings import printable
from gpulint.core.record import record

LABEL_WIDTH = 300
BAR_WIDTH = 420
ROW = 22
# allocated, free, free on nodes that take no pod (cordoned, not ready)
COLORS = ("#3b6fb6", "#5cb85c", "#c9c9c9")
PARTS = ("allocated", "free", "free, unschedulable")


@record(frozen=True, slots=True)
class Bar:
    """One row of a chart: its label and stacked counts."""

    label: str
    segments: tuple[int, int, int]  # allocated, free, free but unschedulable
    note: str = ""  # after the bar: "7/8"


def text(value: str) -> str:
    """Input text made safe for HTML: control characters escaped, markup escaped."""
    return escape(printable(value))


def _bar(y: int, bar: Bar, scale: float) -> Iterator[str]:
    yield (
        f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end" class="label">'
        f"{text(bar.label)}</text>"
    )
    x = float(LABEL_WIDTH)
    for count, color, part in zip(bar.segments, COLORS, PARTS, strict=True):
        if count <= 0:
            continue
        width = count * scale
        yield (
            f'<rect x="{x:.1f}" y="{y + 3}" width="{width:.1f}" height="{ROW - 6}" '
            f'fill="{color}"><title>{text(bar.label)}: {count} {part}</title></rect>'
        )
        x += width
    yield f'<text x="{x + 6:.1f}" y="{y + 15}" class="value">{text(bar.note)}</text>'


def chart(bars: Sequence[Bar], title: str) -> Iterator[str]:
    """One SVG: a bar per row, all on one scale (the largest total fills the width)."""
    longest = max((sum(b.segments) for b in bars), default=0) or 1
    scale = BAR_WIDTH / longest
    height = ROW * len(bars) + 8
    width = LABEL_WIDTH + BAR_WIDTH + 80
    yield (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}"><title>{text(title)}</title>'
    )
    for index, bar in enumerate(bars):
        yield from _bar(4 + index * ROW, bar, scale)
    yield "</svg>\n"


def legend() -> str:
    items = "".join(
        f'<span class="key"><i style="background:{color}"></i>{part}</span>'
        for color, part in zip(COLORS, PARTS, strict=True)
    )
    return f'<p class="legend">{items}</p>\n'
