"""What kustomize's ``valuesMerge: merge`` adds of the inline values under a values file.

kustomize (``api/internal/builtins/HelmChartInflationGenerator.go``, ``replaceValuesInline``)
loads the ``valuesFile`` into a map and calls ``mergo.Merge(&fileValues, valuesInline)``:
with ``override`` it passes ``mergo.WithOverride``, with ``merge`` nothing, so the file's
values are kept and the inline ones only fill what the file lacks. kustomize's own test of
it (``TestHelmChartInflationGeneratorValuesMerge`` in ``plugin/builtin/
helmchartinflationgenerator/HelmChartInflationGenerator_test.go``, the chart's values.yaml
``{a: 1, b: 2, c: null, list: [a, b], map: {a: 4, b: 5, c: null}}`` under inline
``{a: 4, c: 3, list: [c], map: {a: 7, c: 6}}`` gives ``{a: 1, b: 2, c: 3, list: [a, b],
map: {a: 4, b: 5, c: 6}}``) fixes what this module reads:

- a key the file does not hold, or holds as null, takes the inline value;
- a mapping in both merges key by key, by the same rule;
- anything else the file holds is kept (a list is not merged: the file's list stays);
- an inline null adds nothing (mergo skips a nil source value).

Where the file holds an empty value that is not null (``false``, ``0``, ``""``, an empty
list, or an empty mapping under an inline scalar or list), mergo's answer depends on its
version: v0.3.7, which kustomize's ``api/go.mod`` once pinned, counts a map element (an
interface) empty only when nil, later versions look at the value itself. What the chart
gets is then not established, and :func:`fill` says so (None).
"""

from __future__ import annotations

from typing import Any

_UNSETTLED = object()  # mergo's versions disagree on the outcome


def fill(base: dict, over: dict) -> dict | None:
    """The part of ``over`` that mergo without override adds to ``base`` (as a mapping to
    merge over ``base`` the usual way), or None when that depends on mergo's version."""
    added = _fill(base, over)
    return None if added is _UNSETTLED else added


def _fill(base: dict, over: dict) -> Any:
    added: dict = {}
    for key, value in over.items():
        if value is None:
            continue  # a nil source value is skipped
        held = base.get(key)
        if held is None:
            added[key] = value  # absent or null in the file: the inline value fills it
        elif isinstance(held, dict) and isinstance(value, dict):
            below = _fill(held, value)
            if below is _UNSETTLED:
                return _UNSETTLED
            if below:
                added[key] = below
        elif _empty(held):
            return _UNSETTLED
    return added


def _empty(value: Any) -> bool:
    """Go's zero values, as a later mergo's ``isEmptyValue`` reads a YAML value."""
    if isinstance(value, bool):
        return value is False
    if isinstance(value, int | float):
        return value == 0
    return value in ("", [], {})
