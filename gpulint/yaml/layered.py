"""A chart's values gathered from several places, as one path step (issue 27).

A release's values may be written in several places that the GitOps tool merges before
Helm sees them: a Flux HelmRelease's ``valuesFrom`` ConfigMaps and Secrets under its inline
``values``, an Argo CD source's ``helm.parameters`` over its ``valuesObject``, a Helmfile
release's values files and mappings, a kustomize ``helmCharts`` entry's ``valuesFile``
under its ``valuesInline``. The rules judge the values the chart gets, so they read one
mapping, merged as the tool merges (each layer over the ones before it, lowest
precedence first); a finding belongs where the value it is about is written.

:class:`Layered` is that mapping as a step of a path (like ``embedded.INSIDE``): the
model reads ``(step, "migStrategy")`` as ``migStrategy`` of the merged values
(``model/values/paths.at_path``), and positions resolve it in the layer that wrote the
value (``positions.place_with_value``): the host document's own YAML at its line, or a
place in another file, resolved when that file was read (:class:`Spot`). A path that
goes past what exists resolves to the deepest part that does, in the layer that wrote
that part, as ``positions.resolve`` does in one document.

Merging is Helm's (``pkg/cli/values``, ``mergeMaps``, which Flux, Helmfile and Argo CD use
for values files): a mapping over a mapping merges key by key, anything else replaces
(lists too; a null stays null). A *point* layer sets one value at a path, as Helm's
``--set`` does (``strvals``): missing mappings on the way are made, a list index sets that
item and pads the list with nulls.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from gpulint.core.findings import Location
from gpulint.core.record import record
from gpulint.yaml.embedded import INSIDE, mapping_in


@record(frozen=True, slots=True)
class Spot:
    """Where one part of a layer written in another document is: its entry (``key``) and
    its value, and the JSON pointer of its path in that document."""

    key: Location
    value: Location
    pointer: str


@record(frozen=True)
class Layer:
    """One place that writes values of a release, in the merged values at ``at``.

    In the host document (the one that holds the release): ``host`` is the path of
    ``values`` there (``host_key``: for a point layer, the path of what names ``at``, an
    Argo CD parameter's ``name``). In another document: ``spots`` maps each path of
    ``values`` (``INSIDE`` steps left out) to its :class:`Spot`; ``template`` is the file
    a renderer's output came from, and ``mapped`` says the spots are in it."""

    values: Any
    at: tuple = ()
    point: bool = False  # sets one value at ``at`` (a parameter, a --set)
    host: tuple | None = None
    host_key: tuple | None = None
    spots: Mapping[tuple, Spot] | None = None
    template: str | None = None
    mapped: bool = False
    label: str = ""  # what the layer is, for --verbose ("ConfigMap gpu/plugin-values")


@record
class _Index:
    """Where a release's layers write: which of them can own a finding's path."""

    mappings: list[int]  # layers of whole values (files, inline mappings)
    point_at: dict[tuple, list[int]]  # point layers by the path they set
    point_under: dict[tuple, int]  # the last point layer whose path starts with the key


# positions.place_with_value for the host document (passed in: positions imports this module)
HostPlace = Callable[[tuple, str], tuple]


class Layered:
    """The merged values of one release, as a path step. Equal (and hashed) by ``key``,
    which names the release in its document, so every reader of one document gets the
    same step."""

    __slots__ = ("key", "release", "layers", "values", "label", "anchor", "_index")

    def __init__(
        self,
        key: str,
        release: tuple,
        layers: tuple[Layer, ...],
        label: str,
        anchor: tuple = (),
    ) -> None:
        self.key = key
        self.release = release  # the release's path in the host object ("spec",), ...
        self.layers = layers  # lowest precedence first
        self.label = label
        self.values = merged(layers)
        # The steps a values path puts before this one (``release`` for a release's values:
        # readers that tell releases apart by their path's start see the release there).
        self.anchor = anchor
        self._index: _Index | None = None  # built when a finding is first placed

    def __eq__(self, other: object) -> bool:
        return type(other) is Layered and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Layered({self.key!r})"

    def __str__(self) -> str:
        return self.label

    def owner(self, sub: tuple) -> tuple[Layer, tuple, bool]:
        """The layer that wrote what ``sub`` reports, the path of the deepest part of
        ``sub`` that exists relative to that layer's values, and whether that part is all
        of ``sub``. A mapping only a point layer's path makes (``a.b`` of a parameter
        ``a.b.c``) is that layer's, at what names it (the path ``_NAMED``)."""
        found = _existing(self.values, sub)
        exact = len(found) == len(_plain(sub))
        index = self._index or self._indexed()
        # Only the mapping layers and the point layers set at a prefix of ``found`` can hold
        # it: a release may have thousands of parameters, and a finding each.
        candidates = set(index.mappings)
        for end in range(len(found) + 1):
            candidates.update(index.point_at.get(found[:end], ()))
        for i in sorted(candidates, reverse=True):
            rest = _below(self.layers[i], found)
            if rest is not None:
                return self.layers[i], rest, exact
        last = index.point_under.get(found) if found else None
        if last is not None:  # a container only a point layer's path makes (a parameter a.b.c: a.b)
            return self.layers[last], _NAMED, False
        roots = [layer for layer in self.layers if not layer.point] or list(self.layers)
        return roots[-1], (), exact

    def _indexed(self) -> _Index:
        index = _Index([], {}, {})
        for i, layer in enumerate(self.layers):
            if not layer.point:
                index.mappings.append(i)
                continue
            index.point_at.setdefault(layer.at, []).append(i)
            for end in range(1, len(layer.at) + 1):
                index.point_under[layer.at[:end]] = i  # the last layer under each prefix
        self._index = index
        return index

    def place(self, before: tuple, sub: tuple, at: str, host_place: HostPlace) -> tuple:
        """(location, pointer, template, template location, value source) of ``sub``, as
        ``positions.place_with_value`` gives them; ``before`` is the path to the step (the
        object's place in its document, then the step's ``anchor``)."""
        if self.anchor and before[len(before) - len(self.anchor) :] == self.anchor:
            before = before[: len(before) - len(self.anchor)]
        layer, rest, exact = self.owner(sub)
        if layer.host is not None:
            if rest is _NAMED:
                return host_place(before + (layer.host_key or layer.host), at)
            # past what exists: the deepest part, as an entry (positions.resolve's rule)
            return host_place(before + layer.host + rest, at if exact else "key")
        spots = layer.spots or {}
        spot = spots.get(rest if rest is not _NAMED else ()) or spots.get(())
        if spot is None:  # nothing of the layer could be placed: should not happen
            raise LookupError(f"no place for {sub!r} in {self.key}")
        location = spot.value if at == "value" and exact and rest is not _NAMED else spot.key
        return location, spot.pointer, layer.template, location if layer.mapped else None, None


_NAMED: tuple = ("\0named",)  # sentinel: the path a point layer names, not a value


def _plain(path: tuple) -> tuple:
    return tuple(step for step in path if step != INSIDE)


def _existing(values: Any, path: tuple) -> tuple:
    """The longest start of ``path`` (``INSIDE`` steps left out) that exists in ``values``;
    a step past a string that holds a YAML mapping reads inside it."""
    found: list = []
    node = values
    for step in path:
        if step == INSIDE:
            continue
        if isinstance(node, str):
            node = mapping_in(node)
        held = isinstance(node, dict) and step in node
        listed = isinstance(node, list) and type(step) is int and 0 <= step < len(node)
        if not (held or listed):
            break
        node = node[step]
        found.append(step)
    return tuple(found)


def _below(layer: Layer, found: tuple) -> tuple | None:
    """``found`` relative to ``layer``'s values when the layer itself holds all of it."""
    at = layer.at
    if found[: len(at)] != at:
        return None
    rest = found[len(at) :]
    if layer.point:
        return rest if _existing(layer.values, rest) == rest else None
    if not rest and not at:
        return None  # the root: every mapping layer has one; the caller chooses
    return rest if _existing(layer.values, rest) == rest else None


# Nulls a release's list indexes may pad its values with, all together. strvals bounds
# each index (65,536), not their sum: 3,000 parameters `aN[65536]` in a 143 KB file held
# 1.5 GB. A point layer that would pad past it is not read.
MAX_PADDING = 65_536


def merged(layers: tuple[Layer, ...]) -> Any:
    """The layers merged, lowest precedence first (Helm's mergeMaps; point layers as --set).

    Built in place: every value here is a copy (a layer's values are copied as they are
    merged), so a set changes nothing a caller holds and costs the path's length, not the
    size of what was merged so far."""
    result: Any = {}
    padding = MAX_PADDING  # what the layers may still pad with
    for layer in layers:
        if layer.at:
            nulls = _nulls(result, layer.at)
            if nulls > padding:
                continue  # not read: see MAX_PADDING
            padding -= nulls
        value = copy.deepcopy(layer.values)
        if layer.point:
            result = _set(result, layer.at, value)
        elif not layer.at:
            result = _merge(result, value) if isinstance(value, dict) else result
        else:
            current = _get(result, layer.at)
            combined = _merge(current, value) if isinstance(current, dict) else value
            result = _set(result, layer.at, combined)
    return result


def _nulls(values: Any, path: tuple) -> int:
    """How many nulls setting ``path`` in ``values`` pads lists with."""
    count = 0
    for step in path:
        if type(step) is int:
            have = len(values) if isinstance(values, list) else 0
            count += max(step - have, 0)
            values = values[step] if step < have else None
        else:
            values = values.get(step) if isinstance(values, dict) else None
    return count


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _get(values: Any, path: tuple) -> Any:
    for step in path:
        if isinstance(values, dict):
            values = values.get(step)
        elif isinstance(values, list) and type(step) is int and 0 <= step < len(values):
            values = values[step]
        else:
            return None
    return values


def _set(values: Any, path: tuple, value: Any) -> Any:
    """``values`` with ``value`` set at ``path``, in place (strvals: a list index pads with
    nulls)."""
    if not path:
        return value
    step, rest = path[0], path[1:]
    if type(step) is int:
        items = values if isinstance(values, list) else []
        if step >= len(items):
            items.extend([None] * (step + 1 - len(items)))
        items[step] = _set(items[step], rest, value)
        return items
    out = values if isinstance(values, dict) else {}
    out[step] = _set(out.get(step), rest, value)
    return out


def steps_in(path: tuple) -> int | None:
    """The index of the first :class:`Layered` step of ``path``, else None."""
    for index, step in enumerate(path):
        if type(step) is Layered:
            return index
    return None
