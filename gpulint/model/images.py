"""Container image references: registry, repository, tag, digest.

Follows the reference grammar of distribution/reference: the first
component is a registry when it has a ``.`` or ``:`` or is ``localhost``;
a tag follows the last ``:`` after the last ``/``; a digest follows ``@``.
"""

from __future__ import annotations

from gpulint.model import placeholders
from gpulint.record import record

# Beyond the placeholders the shared recogniser names, characters no image reference holds
# (a half-written `<registry`, `${`, `%`): not a reference yet, so nothing to judge.
_NOT_IN_A_REFERENCE = frozenset("$<>%{}")


@record(frozen=True)
class ImageRef:
    """A container image reference split into registry, repository, tag and digest."""

    registry: str | None
    repository: str
    tag: str | None
    digest: str | None

    @property
    def pinned(self) -> bool:
        """A digest, or a tag other than ``latest``."""
        return self.digest is not None or (self.tag is not None and self.tag != "latest")


def is_placeholder(image: str) -> bool:
    return placeholders.is_placeholder(image) or not _NOT_IN_A_REFERENCE.isdisjoint(image)


def parse_image(image: str) -> ImageRef | None:
    """None for an empty reference or one still holding a template placeholder."""
    text = image.strip()
    if not text or is_placeholder(text) or any(c.isspace() for c in text):
        return None
    name, digest = text, None
    if "@" in name:
        name, digest = name.split("@", 1)
        digest = digest or None
    tag = None
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :] or None
    registry = None
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, name = first, rest
    return ImageRef(registry, name, tag, digest)
