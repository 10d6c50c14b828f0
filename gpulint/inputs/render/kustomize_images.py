"""Which kustomization ``images:`` entry set the tag of a rendered image.

``kustomize build`` applies each kustomization's ``images:`` transformer to what its
bases produced, so the tag an image leaves the render with is the one the outermost
kustomization that names the image sets. The origin annotations say which file an
object came from, not which entry changed its image; this module reads the
``images:`` entries (name, newName, newTag, digest: kubectl.docs.kubernetes.io/references/
kustomize/kustomization/images/; kubernetes-sigs/kustomize ``api/filters/imagetag``) of
the built folder and of the local kustomizations it builds on
(outermost first) with their positions, so a rule can point at the entry where the
tag is written (``model/images.py``: :class:`TagOverride`, :func:`tag_override`).
"""

from __future__ import annotations

import os

from gpulint.core.findings import Location
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import load_document, refs_of
from gpulint.model.values.images import TagOverride
from gpulint.yaml import positions
from gpulint.yaml.parse import Document


def tag_overrides(folder: str) -> tuple[TagOverride, ...]:
    """The ``images:`` entries with a ``newTag`` of ``folder`` and of the local
    kustomizations it builds on, outermost first (a base reached twice counts once)."""
    found: list[TagOverride] = []
    seen: set[str] = set()
    queue = [os.path.normpath(os.path.abspath(folder))]
    while queue:
        current = queue.pop(0)  # breadth first: an overlay before its bases
        if current in seen or len(seen) > 100:
            continue
        seen.add(current)
        kfile = kustomization_file(current)
        doc = load_document(kfile) if kfile is not None else None
        if doc is not None:
            found.extend(_entries(doc))
        queue.extend(refs_of(current, doc.data if doc else {}).kustomizations)  # read once
    return tuple(found)


def _entries(doc: Document) -> list[TagOverride]:
    images = doc.data.get("images")
    found = []
    for i, entry in enumerate(images if isinstance(images, list) else []):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        tag = entry.get("newTag")
        if isinstance(tag, bool) or not isinstance(tag, str | int | float):
            continue
        new_name = entry.get("newName")
        name = new_name if isinstance(new_name, str) else str(entry["name"])
        span, _depth = positions.resolve(doc.node, ("images", i, "newTag"))
        found.append(TagOverride(name, str(tag), Location(doc.source.path, *span)))
    return found
