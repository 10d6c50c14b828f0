"""The report as JSON: ``nodes``, ``products``, ``namespaces``, ``pending`` with the keys
the issue fixes (and a few more), ``owners`` and ``notes``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from gpulint.allocation.model import Report, Usage


def _usage(usages: Iterable[Usage]) -> dict[str, dict[str, int]]:
    return {
        u.resource: {"allocatable": u.allocatable, "allocated": u.allocated, "free": u.free}
        for u in usages
    }


def document(report: Report) -> dict[str, Any]:
    return {
        "nodes": [
            {
                "name": n.name,
                "product": n.product,
                "allocatable": n.allocatable,
                "allocated": n.allocated,
                "free": n.free,
                "schedulable": n.schedulable,
                "unschedulable_reason": n.unschedulable_reason or None,
                "mig": _usage(n.mig),
                "shared": _usage(n.shared),
                "sharing": n.sharing,
                "replicas": n.replicas,
                "resources": _usage(n.resources),
            }
            for n in report.nodes
        ],
        "products": [
            {
                "product": p.product,
                "nodes": p.nodes,
                "allocatable": p.allocatable,
                "allocated": p.allocated,
                "free": p.free,
                "free_schedulable": p.free_schedulable,
                "largest_free": p.largest_free,
            }
            for p in report.products
        ],
        "namespaces": [
            {
                "namespace": ns.namespace,
                "allocated": ns.allocated,
                "pods": ns.pods,
                "resources": dict(ns.resources),
            }
            for ns in report.namespaces
        ],
        "owners": [
            {
                "namespace": o.namespace,
                "kind": o.kind,
                "name": o.name,
                "allocated": o.allocated,
                "pods": o.pods,
            }
            for o in report.owners
        ],
        "pending": [
            {
                "namespace": p.namespace,
                "name": p.name,
                "gpus": p.gpus,
                "fits": p.fits,
                "reason": p.reason or None,
                "detail": p.detail or None,
                "resources": dict(p.resources),
                "pods": p.pods,
                "source": p.source,
            }
            for p in report.pending
        ],
        "notes": list(report.notes),
    }


def write(report: Report, out: TextIO) -> None:
    # iterencode underneath: the text is written in pieces, never held whole
    json.dump(document(report), out, indent=2)
    out.write("\n")
