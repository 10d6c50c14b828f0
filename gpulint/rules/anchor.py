"""A place resolved for reporting later: what cross-file rules keep in their facts."""

from __future__ import annotations

from gpulint.core.findings import Location, ResourceRef
from gpulint.core.record import record


@record(frozen=True, slots=True)
class Anchor:
    """A resolved place to report from a cross-file rule (picklable, tree-free)."""

    location: Location
    pointer: str
    resource: ResourceRef | None
    container: str | None
    template: str | None
    template_location: Location | None = None
