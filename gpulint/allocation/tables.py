"""The report's sections as tables, once for every writer (text pads them, HTML marks them
up): a cell is a number, a text or a :class:`Flag`."""

from __future__ import annotations

from gpulint.allocation.model import Report, extras, held_text
from gpulint.core.record import record


@record(frozen=True, slots=True)
class Flag:
    """A yes/no cell, with why not."""

    ok: bool
    why: str = ""

    def __str__(self) -> str:
        if self.ok:
            return "yes"
        return f"no ({self.why})" if self.why else "no"


Cell = int | str | Flag


@record(frozen=True, slots=True)
class Table:
    """One section: its title, column names and rows."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


def nodes(report: Report) -> Table:
    return Table(
        f"GPU nodes ({len(report.nodes)})",
        ("node", "product", "allocatable", "allocated", "free", "schedulable", "MIG / shared"),
        tuple(
            (n.name, n.product, n.allocatable, n.allocated, n.free,
             Flag(n.schedulable, n.unschedulable_reason), extras(n))
            for n in report.nodes
        ),
    )  # fmt: skip


def products(report: Report) -> Table:
    return Table(
        "Products (largest free: the most GPUs one new pod can get on one schedulable node)",
        ("product", "nodes", "allocatable", "allocated", "free", "schedulable free",
         "largest free"),
        tuple(
            (p.product, p.nodes, p.allocatable, p.allocated, p.free, p.free_schedulable,
             p.largest_free)
            for p in report.products
        ),
    )  # fmt: skip


def namespaces(report: Report) -> Table:
    return Table(
        "Namespaces",
        ("namespace", "allocated", "pods", "MIG / shared"),
        tuple(
            (n.namespace, n.allocated, n.pods, held_text(n.resources)) for n in report.namespaces
        ),
    )


def owners(report: Report) -> Table:
    return Table(
        "Owners",
        ("namespace", "owner", "allocated", "pods"),
        tuple((o.namespace, f"{o.kind}/{o.name}", o.allocated, o.pods) for o in report.owners),
    )


def pending(report: Report) -> Table:
    return Table(
        f"Pending GPU pods ({len(report.pending)})",
        ("namespace", "name", "GPUs", "pods", "fits", "reason", "detail"),
        tuple(
            (p.namespace, p.name, p.gpus, p.pods, Flag(p.fits), p.reason, p.detail)
            for p in report.pending
        ),
    )
