"""The report as plain text tables, for a terminal or a CI log."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TextIO

from gpulint.allocation.model import Report, extras, held_text
from gpulint.core.findings import printable


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> Iterator[str]:
    """Columns padded to their widest cell; numbers right-aligned, the last column free."""
    cells = [[printable(str(c)) for c in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    numeric = [bool(rows) and all(isinstance(r[i], int) for r in rows) for i in range(len(header))]
    for row in cells:
        padded = [
            c.rjust(w) if numeric[i] else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        yield "  ".join(padded).rstrip() + "\n"


def _yes(flag: bool, why: str = "") -> str:
    return "yes" if flag else f"no ({why})" if why else "no"


def chunks(report: Report) -> Iterator[str]:
    yield f"GPU nodes: {len(report.nodes)}\n"
    yield from _table(
        ("NODE", "PRODUCT", "ALLOCATABLE", "ALLOCATED", "FREE", "SCHEDULABLE", "MIG / SHARED"),
        [
            (
                n.name,
                n.product,
                n.allocatable,
                n.allocated,
                n.free,
                _yes(n.schedulable, n.unschedulable_reason),
                extras(n),
            )
            for n in report.nodes
        ],
    )
    yield "\nProducts (largest_free: the most GPUs one pod can get on one schedulable node)\n"
    yield from _table(
        ("PRODUCT", "NODES", "ALLOCATABLE", "ALLOCATED", "FREE", "SCHEDULABLE FREE", "LARGEST"),
        [
            (
                p.product,
                p.nodes,
                p.allocatable,
                p.allocated,
                p.free,
                p.free_schedulable,
                p.largest_free,
            )
            for p in report.products
        ],
    )
    yield "\nNamespaces\n"
    yield from _table(
        ("NAMESPACE", "ALLOCATED", "PODS", "MIG / SHARED"),
        [(n.namespace, n.allocated, n.pods, held_text(n.resources)) for n in report.namespaces],
    )
    if report.owners:
        yield "\nOwners\n"
        yield from _table(
            ("NAMESPACE", "OWNER", "ALLOCATED", "PODS"),
            [(o.namespace, f"{o.kind}/{o.name}", o.allocated, o.pods) for o in report.owners],
        )
    yield f"\nPending GPU pods: {len(report.pending)}\n"
    if report.pending:
        yield from _table(
            ("NAMESPACE", "NAME", "GPUS", "PODS", "FITS", "REASON", "DETAIL"),
            [
                (p.namespace, p.name, p.gpus, p.pods, _yes(p.fits), p.reason, p.detail)
                for p in report.pending
            ],
        )
    for note in report.notes:
        yield f"\nnote: {printable(note)}\n"


def write(report: Report, out: TextIO) -> None:
    for chunk in chunks(report):
        out.write(chunk)
