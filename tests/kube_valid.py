"""Kubernetes objects checked against the API's OpenAPI schemas (kubernetes-validate).

The package bundles the schemas of each Kubernetes release in its wheel and validates
offline. Custom resources (ClusterPolicy, RayCluster...) and API versions no release
serves any more have no bundled schema: they are skipped, and said so.
"""

from __future__ import annotations

from typing import Any

import kubernetes_validate

from gpulint.core.sources import Source
from gpulint.yaml.parse import parse

VERSION = kubernetes_validate.latest_version()


def problems(text: str) -> tuple[list[str], list[str]]:
    """(why each invalid object is invalid, the kinds skipped for want of a schema)."""
    docs, errors = parse(Source("example.yaml", text))
    assert not errors, errors
    invalid: list[str] = []
    skipped: list[str] = []
    for doc in docs:
        for obj in _objects(doc.data):
            try:
                kubernetes_validate.validate(obj, VERSION, strict=True)
            except kubernetes_validate.SchemaNotFoundError:
                skipped.append(f"{obj['apiVersion']} {obj['kind']}")
            except kubernetes_validate.ValidationError as exc:
                path = "/".join(map(str, exc.path))
                invalid.append(f"{obj['kind']} {path}: {exc.message}")
    return invalid, skipped


def _objects(data: Any) -> list[dict]:
    if not isinstance(data, dict) or "apiVersion" not in data or "kind" not in data:
        return []
    items = data.get("items") if data.get("kind") == "List" else None
    if isinstance(items, list):
        return [data] + [o for item in items for o in _objects(item)]
    return [data]
