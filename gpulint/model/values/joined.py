"""What the run adds to a GitOps release from outside its own document (issue 27).

A release's document names values written elsewhere (a Flux HelmRelease's ``valuesFrom``
ConfigMaps and Secrets, the OCIRepository or HelmChart of its ``chartRef``, a Helmfile
release's values files, a kustomize ``helmCharts`` entry's ``valuesFile``). The input
layer finds those and reads them (``inputs/gitops_values.py``) before the document is
linted, and the engine makes them the current document's :class:`Extras` while its
rules run (:func:`scope`), so the readers of ``model/values/releases.py`` give the rules
one view of the release, whichever rule, model reader or chart table asks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from gpulint.core.record import record
from gpulint.yaml.layered import Layer, Layered


@record(frozen=True)
class ChartRef:
    """The chart and version a Flux ``chartRef`` names through another object."""

    chart: str
    version: str | None
    place: Layer  # a point layer: the version (or, unset, the chart reference) where written


@record(frozen=True)
class Extra:
    """What the run adds to one release of a document.

    ``layers`` are the release's values, lowest precedence first: a :class:`Layer` read
    elsewhere, or the path (a tuple) of values the document itself holds. ``release`` is
    the release's path in the object (``("spec",)``, ``("releases", 2)``), ``owner`` the
    object's kind and name (a document may be a List)."""

    release: tuple
    owner: tuple[str, str]
    layers: tuple = ()
    chart: ChartRef | None = None
    label: str = ""
    text: str = ""  # the text of the values read elsewhere (the rules' triggers search it)
    # The URLs the run gives the chart's repository (a Flux HelmRepository's spec.url): one,
    # or several when the run holds several objects it may be; none when it holds none.
    repositories: tuple[str, ...] = ()


_CURRENT: ContextVar[tuple[tuple[Extra, ...], dict] | None] = ContextVar("extras", default=None)


@contextmanager
def scope(extras: tuple[Extra, ...]) -> Iterator[None]:
    """Within: ``extras`` are the current document's (each release's merged view built once)."""
    token = _CURRENT.set((extras, {}))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def of(obj: Any, release: tuple) -> Extra | None:
    """The current document's extra for the release at ``release`` of ``obj``."""
    current = _CURRENT.get()
    if current is None:
        return None
    owner = owner_of(obj)
    for extra in current[0]:
        if extra.release == release and extra.owner == owner:
            return extra
    return None


def owner_of(obj: Any) -> tuple[str, str]:
    if not isinstance(obj, dict):
        return "", ""
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return str(obj.get("kind") or ""), str(name or "")


def cached(key: str, build: Any) -> Layered:
    """The merged view ``key`` names, built once in the current document (every rule asks)."""
    current = _CURRENT.get()
    if current is None:
        return build()
    made = current[1].get(key)
    if made is None:
        made = current[1][key] = build()
    return made
