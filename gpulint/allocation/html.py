"""The report as one self-contained HTML page: inline CSS and SVG, no script, nothing
fetched (the Content-Security-Policy says so to the browser too), so it reads the same
on a laptop and as a CI artifact."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TextIO

from gpulint.allocation import tables
from gpulint.allocation.model import NodeRow, Report
from gpulint.allocation.svg import Bar, chart, legend, text
from gpulint.allocation.tables import Flag, Table

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;
max-width:1100px;padding:0 16px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
table{border-collapse:collapse;margin:6px 0 12px}
th,td{border-bottom:1px solid #ddd;padding:3px 10px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}th{background:#f3f3f3}td:nth-child(-n+2){white-space:nowrap}
.no{color:#b00020;font-weight:600}.yes{color:#1b7a1b}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:22px}
svg .label,svg .value{font-size:12px;fill:#222}
.legend .key{margin-right:14px}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
.detail{color:#555;font-size:12px}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _table(table: Table, title: bool = True) -> Iterator[str]:
    """Numbers right-aligned, yes/no coloured, the pending pods' detail small."""
    if title:
        yield f"<h2>{text(table.title)}</h2>\n"
    if not table.rows:
        yield "<p>None.</p>\n"
        return
    yield "<table><tr>" + "".join(f"<th>{text(h)}</th>" for h in table.header) + "</tr>\n"
    for row in table.rows:
        cells = []
        for name, cell in zip(table.header, row, strict=True):
            if isinstance(cell, Flag):
                cells.append(f'<td class="{"yes" if cell.ok else "no"}">{text(str(cell))}</td>')
            elif isinstance(cell, int):
                cells.append(f'<td class="n">{cell}</td>')
            else:
                style = ' class="detail"' if name == "detail" else ""
                cells.append(f"<td{style}>{text(cell)}</td>")
        yield "<tr>" + "".join(cells) + "</tr>\n"
    yield "</table>\n"


def _node_bars(nodes: Iterable[NodeRow]) -> Iterator[Bar]:
    """A bar of whole GPUs per node that has them, and one per MIG or shared resource."""
    for node in nodes:
        free, stranded = (node.free, 0) if node.schedulable else (0, node.free)
        if node.allocatable:
            note = f"{node.allocated}/{node.allocatable}"
            yield Bar(node.name, (node.allocated, free, stranded), note)
        for usage in node.mig + node.shared:
            free, stranded = (usage.free, 0) if node.schedulable else (0, usage.free)
            note = f"{usage.allocated}/{usage.allocatable}"
            yield Bar(f"{node.name} {usage.resource}", (usage.allocated, free, stranded), note)


def _cards(report: Report) -> str:
    waiting = [p for p in report.pending if not p.fits]
    cards = (
        ("GPU nodes", len(report.nodes)),
        ("GPUs allocatable", sum(n.allocatable for n in report.nodes)),
        ("allocated", sum(n.allocated for n in report.nodes)),
        ("free", sum(n.free for n in report.nodes)),
        ("pending pods that do not fit", len(waiting)),
    )
    inner = "".join(f'<div class="card"><b>{v}</b>{text(k)}</div>' for k, v in cards)
    return f'<div class="cards">{inner}</div>\n'


def chunks(report: Report) -> Iterator[str]:
    yield (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>GPU allocation report</title><style>{_STYLE}</style></head><body>\n"
        "<h1>GPU allocation report</h1>\n"
        '<p class="detail">Whole GPUs unless a MIG or shared resource is named; '
        "allocated: requests of pods bound to the node and not finished.</p>\n"
    )
    yield _cards(report)
    for note in report.notes:
        yield f'<p class="detail">Note: {text(note)}</p>\n'
    yield "<h2>Products</h2>\n" + legend()
    bars = [
        Bar(
            p.product,
            (p.allocated, p.free_schedulable, p.free - p.free_schedulable),
            f"{p.allocated}/{p.allocatable}",
        )
        for p in report.products
        if p.allocatable
    ]
    yield from chart(bars, "allocated and free GPUs per product")
    yield "<h2>Fragmentation</h2>\n"
    yield (
        '<p class="detail">largest free: the most GPUs one new pod can get on a single '
        "schedulable node; free GPUs beyond it serve only smaller pods.</p>\n"
    )
    yield from _table(tables.products(report), title=False)
    yield from _table(tables.pending(report))
    yield "<h2>Nodes</h2>\n" + legend()
    yield from chart(list(_node_bars(report.nodes)), "allocated and free GPUs per node")
    yield from _table(tables.nodes(report), title=False)
    yield from _table(tables.namespaces(report))
    if report.owners:
        yield from _table(tables.owners(report))
    yield "</body></html>\n"


def write(report: Report, out: TextIO) -> None:
    for chunk in chunks(report):
        out.write(chunk)
