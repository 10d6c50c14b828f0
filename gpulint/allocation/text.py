"""The report as plain text tables, for a terminal or a CI log."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from gpulint.allocation import tables
from gpulint.allocation.model import Report
from gpulint.allocation.tables import Table
from gpulint.core.findings import printable


def _table(table: Table) -> Iterator[str]:
    """Columns padded to their widest cell; numbers right-aligned."""
    yield f"{printable(table.title)}\n"
    if not table.rows:
        return
    cells = [[printable(str(c)) for c in row] for row in [table.header, *table.rows]]
    cells[0] = [c.upper() for c in cells[0]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.header))]
    numeric = [all(isinstance(r[i], int) for r in table.rows) for i in range(len(table.header))]
    for row in cells:
        padded = [
            c.rjust(w) if numeric[i] else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        yield "  ".join(padded).rstrip() + "\n"


def chunks(report: Report) -> Iterator[str]:
    sections = [tables.nodes, tables.products, tables.namespaces, tables.owners, tables.pending]
    for index, section in enumerate(sections):
        yield "\n" if index else ""
        yield from _table(section(report))
    for note in report.notes:
        yield f"\nnote: {printable(note)}\n"


def write(report: Report, out: TextIO) -> None:
    for chunk in chunks(report):
        out.write(chunk)
