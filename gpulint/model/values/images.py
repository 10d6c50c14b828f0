"""Container image references: registry, repository, tag, digest.

Follows the reference grammar of distribution/reference: the first
component is a registry when it has a ``.`` or ``:`` or is ``localhost``;
a tag follows the last ``:`` after the last ``/``; a digest follows ``@``.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from gpulint.core.findings import Location
from gpulint.core.record import record
from gpulint.model.values import placeholders

# Beyond the placeholders the shared recogniser names, characters no image reference holds
# (a half-written `<registry`, `${`, `%`): not a reference yet, so nothing to judge.
_NOT_IN_A_REFERENCE = frozenset("$<>%{}")
_WORD = re.compile(r"[-_.]")


@record(frozen=True)
class ImageRef:
    """A container image reference split into registry, repository, tag and digest."""

    registry: str | None
    repository: str
    tag: str | None
    digest: str | None

    @property
    def pinned(self) -> bool:
        """A digest, or a tag that names a version: it holds a digit and no word
        ``latest`` (``nightly``, ``main``, ``serving-gpu``, ``latest-intel`` move)."""
        if self.digest is not None:
            return True
        if self.tag is None or not any(c.isdigit() for c in self.tag):
            return False
        return "latest" not in _WORD.split(self.tag.lower())


@record(frozen=True, slots=True)
class TagOverride:
    """A kustomization ``images:`` entry that sets the tag of an image the render holds
    (read by ``inputs/render/kustomize_images.py``, carried on the rendered source)."""

    name: str  # the image name the entry leaves (its newName, else its name)
    tag: str  # its newTag
    where: Location  # the entry's newTag, where a pin belongs


def tag_override(ref: ImageRef, doc: Any) -> TagOverride | None:
    """The kustomization entry that set ``ref``'s tag in the render ``doc`` came from:
    the first (outermost kustomization first) whose name is the reference's, if its tag
    is the reference's."""
    overrides: tuple[TagOverride, ...] = doc.source.meta.get("tag_overrides", ())
    name = f"{ref.registry}/{ref.repository}" if ref.registry else ref.repository
    for entry in overrides:
        if entry.name == name:
            return entry if entry.tag == ref.tag else None
    return None


def is_placeholder(image: str) -> bool:
    return placeholders.is_placeholder(image) or not _NOT_IN_A_REFERENCE.isdisjoint(image)


# Pods of one run name few images, each many times (every rule that reads images asks).
@functools.lru_cache(maxsize=4096)
def parse_image(image: str) -> ImageRef | None:
    """None for an empty reference or one still holding a template placeholder."""
    text = image.strip()
    if not text or is_placeholder(text) or len(text.split()) != 1:
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


# Docker Hub's names: distribution/reference's ``normalize.go`` (legacyDefaultDomain
# ``index.docker.io``, defaultDomain ``docker.io``, officialRepoPrefix ``library/``) and
# the host its API answers on (moby ``registry/config.go``, DefaultRegistryHost).
_DOCKER_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io")


def canonical_repository(ref: ImageRef) -> str:
    """``registry/path`` of an image's repository in lower case, Docker Hub's written out
    (``acme/app`` -> ``docker.io/acme/app``, ``ubuntu`` -> ``docker.io/library/ubuntu``),
    so that two spellings of one repository compare equal."""
    registry = (ref.registry or "docker.io").lower()
    path = ref.repository.lower()
    if registry in _DOCKER_HUB:
        registry = "docker.io"
        if "/" not in path:
            path = "library/" + path
    return f"{registry}/{path}"


def is_pause_image(image: str) -> bool:
    """``registry.k8s.io/pause:3.9`` and its mirrors: the pod sandbox's do-nothing image."""
    ref = parse_image(image)
    return ref is not None and ref.repository.rsplit("/", 1)[-1] == "pause"
