"""Suppression directives as facts: what the filter stage found, for the rules about them.

The filter stage (:mod:`gpulint.filter.suppress`) scans comments and annotations
into :class:`Directive` objects and marks the findings they silence; once all
files are read it hands the directives to the directive checks of GPU001-GPU003,
which report the ones that expired, give no reason or silence nothing.
"""

from __future__ import annotations

import datetime
from typing import ClassVar

from gpulint.core.findings import Finding, Location, ResourceRef
from gpulint.core.record import field, record
from gpulint.rules.anchor import Anchor

ANNOTATION_PREFIX = "ignore-check.gpulint.io/"
ANNOTATION_ALL = "gpulint.io/ignore-all"
ALL = "all"


@record
class Directive:
    """A suppression, from a comment or an annotation: what it silences, until when, why."""

    ALL: ClassVar[str] = ALL  # the selector of gpulint.io/ignore-all

    kind: str  # "comment" or "annotation"
    location: Location
    selectors: tuple[str, ...]  # codes or names as written, or ("all",)
    reason: str | None
    until: datetime.date | None = None
    lines: tuple[int, ...] = ()  # comment: the lines it covers
    resource: ResourceRef | None = None  # annotation: the object it sits on
    prefix: str = ""  # annotation: JSON pointer of the object or pod template
    # annotation: files the object's findings are reported in (rendered stream, origin file)
    files: tuple[str, ...] = ()
    # A comment in a rendered stream: a copy of a template's comment, never reported itself.
    quiet: bool = False
    used: set[str] = field(default_factory=set)  # selectors that matched a finding

    def covers(self, finding: Finding, same_source: bool) -> str | None:
        """The selector that silences ``finding`` here, if any."""
        if self.kind == "comment":
            loc = finding.location
            if loc.file != self.location.file or loc.line not in self.lines:
                return None
        else:
            if finding.resource != self.resource:
                return None
            if not (same_source or finding.location.file in self.files):
                return None
            pointer = finding.pointer
            if self.prefix and not (
                pointer == self.prefix or pointer.startswith(self.prefix + "/")
            ):
                return None
        for selector in self.selectors:
            if selector == ALL or selector.upper() == finding.code or selector == finding.name:
                return selector
        return None

    def expired(self, today: datetime.date) -> bool:
        return self.until is not None and self.until < today

    @property
    def anchor(self) -> Anchor:
        """Where a finding about the directive itself is reported."""
        return Anchor(self.location, "", self.resource, None, None)

    def describe(self) -> str:
        """How messages name it: the comment or annotation as written."""
        rules = ",".join(self.selectors)
        if self.kind == "comment":
            return f"suppression comment 'disable={rules}'"
        if self.selectors == (ALL,):
            return f"annotation '{ANNOTATION_ALL}'"
        return f"annotation '{ANNOTATION_PREFIX}{rules}'"
