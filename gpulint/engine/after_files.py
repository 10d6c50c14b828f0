"""What happens once every file is read: the cross-file rules decide per deployable unit,
one finding per rule, place and message, and the count of findings held back for want
of cluster facts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.findings import Finding, HeldBack
from gpulint.core.settings import Settings
from gpulint.inputs.discover import Target
from gpulint.inputs.units import GLOBAL, unit_of
from gpulint.rules.rule import Rule


def unique(findings: list[Finding]) -> list[Finding]:
    """One finding per rule, place and message: a file that two kustomizations (or a
    chart and its rendering) both include is read twice but reported once, whatever
    name each render gave the object."""
    seen: set[tuple] = set()
    unique = []
    for finding in findings:
        key = (finding.code, finding.location, finding.message, finding.container)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


def unit_keys(targets: list[Target], settings: Settings) -> dict[Target, str | None]:
    """The deployable unit of each target (inputs/units.py)."""
    inventory = frozenset(settings.cluster.files)
    return {t: unit_of(t, settings.units, inventory, settings.named_files) for t in targets}


def facts_per_unit(
    unit_facts: dict[str | None, dict[str, list[Any]]], code: str
) -> Iterator[list[Any]]:
    """One rule's facts per deployable unit, the --cluster inventory's joined to each:
    a cross-file rule never pairs facts of unrelated units."""
    shared = unit_facts.get(GLOBAL, {}).get(code, [])
    called = False
    for unit, facts in unit_facts.items():
        if unit is not GLOBAL and facts.get(code):
            called = True
            yield shared + facts[code]
    if not called:
        yield shared


def held_back(findings: list[Finding], rules: list[Rule]) -> list[HeldBack]:
    """Per rule and missing facts, how many findings (not suppressed) were held back."""
    counts: dict[tuple[str, tuple[str, ...]], int] = {}
    for finding in findings:
        if finding.held and finding.suppression is None:
            key = (finding.code, finding.held)
            counts[key] = counts.get(key, 0) + 1
    names = {r.code: r.name for r in rules}
    return [
        HeldBack(code, names.get(code, ""), needs, n) for (code, needs), n in sorted(counts.items())
    ]
