"""Objects that look like GPU workloads but that gpulint could not read as pods.

An object from which no pod spec was read (a kind outside the workload table whose generic
search found none, or a table kind whose pods live elsewhere, such as an llm-d ModelService
overlaying a base config), yet that names a GPU resource (``nvidia.com/gpu: 1`` as a mapping
key, as resource lists write it), holds its pods in a shape gpulint does not know:
``--verbose`` lists each, so a clean run is not mistaken for a checked one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.kinds.generic import BUILTIN_GROUPS
from gpulint.model.kinds.table import api_group
from gpulint.model.resource import Resource
from gpulint.model.values.gpu_resources import as_fraction, is_gpu_resource

# Kinds that name GPU resources without keeping a pod, and that rules read as what they are:
# the GPU Operator's policies, Karpenter's node pools, Kueue's quotas and flavors.
_READ_OTHERWISE = {
    ("nvidia.com", "ClusterPolicy"),
    ("nvidia.com", "NVIDIADriver"),
    ("karpenter.sh", "NodePool"),
    ("karpenter.sh", "NodeClaim"),
    ("kueue.x-k8s.io", "ClusterQueue"),
    ("kueue.x-k8s.io", "ResourceFlavor"),
    ("kueue.x-k8s.io", "LocalQueue"),
}


def _mentions(node: Any, path: tuple, depth: int) -> Iterator[tuple]:
    if depth > 40:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            # A resource list's entry: a GPU resource name with a quantity (a node label of the
            # same prefix, gpu.intel.com/product: "...", is not a request).
            if isinstance(key, str) and is_gpu_resource(key) and as_fraction(value) is not None:
                yield path + (key,)
                return
            yield from _mentions(value, path + (key,), depth + 1)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _mentions(item, path + (index,), depth + 1)


def unread_gpu_mention(resource: Resource) -> tuple | None:
    """The path of the first GPU resource name in an object gpulint read no pod from, if any."""
    group = api_group(resource.api_version)
    if group in BUILTIN_GROUPS or (group, resource.kind) in _READ_OTHERWISE:
        return None
    if resource.pod_specs:
        return None
    spec = {k: v for k, v in resource.obj.items() if k not in ("metadata", "status")}
    return next(_mentions(spec, (), 0), None)
