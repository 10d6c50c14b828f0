"""GPUs held by running pods, added up per node, namespace and owner in one pass over the
pod dump (a large cluster's dump runs to hundreds of megabytes: it is read once)."""

from __future__ import annotations

from collections.abc import Mapping

from gpulint.allocation.model import NamespaceRow, OwnerRow, whole_gpus
from gpulint.model.values.gpu_resources import add_counts


class Tally:
    """What bound, unfinished pods hold: per node (for the scheduler's free space), per
    namespace and per controller owner (for who holds them)."""

    def __init__(self) -> None:
        self.usage: dict[str, dict[str, int]] = {}
        self._namespaces: dict[str, tuple[dict[str, int], list[int]]] = {}
        self._owners: dict[tuple[str, str, str], tuple[dict[str, int], list[int]]] = {}

    def add(
        self, node: str, namespace: str, owner: tuple[str, str] | None, gpus: Mapping[str, int]
    ) -> None:
        add_counts(self.usage.setdefault(node, {}), gpus)
        held, count = self._namespaces.setdefault(namespace, ({}, [0]))
        add_counts(held, gpus)
        count[0] += 1
        if owner is not None:
            held, count = self._owners.setdefault((namespace, *owner), ({}, [0]))
            add_counts(held, gpus)
            count[0] += 1

    def namespace_rows(self) -> tuple[NamespaceRow, ...]:
        return tuple(
            NamespaceRow(ns, whole_gpus(held), count[0], tuple(sorted(held.items())))
            for ns, (held, count) in sorted(self._namespaces.items())
        )

    def owner_rows(self) -> tuple[OwnerRow, ...]:
        return tuple(
            OwnerRow(ns, kind, name, whole_gpus(held), count[0])
            for (ns, kind, name), (held, count) in sorted(self._owners.items())
        )
