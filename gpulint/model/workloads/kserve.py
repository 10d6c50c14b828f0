"""KServe's predictor container: a ServingRuntime's container with the InferenceService's
``model`` container merged over it.

Source: kserve/kserve pkg/controller/v1beta1/inferenceservice/components/predictor.go and
pkg/controller/v1beta1/inferenceservice/utils/utils.go ``MergeRuntimeContainers``: when the
predictor's ``model`` names a ``runtime``, KServe fetches that ServingRuntime (the
InferenceService's namespace) or else the ClusterServingRuntime of that name, and builds the pod's
container with a strategic merge patch of the ``model`` container over the runtime's container
(``resources.requests``/``limits`` maps merge key by key; the InferenceService's values win).
Which runtime container: ``Containers[0]`` in older releases, the one named ``kserve-container``
in newer ones; gpulint pairs them only where both rules pick the same container (the only one, or
a first one named ``kserve-container``). A runtime chosen by ``modelFormat`` auto-selection is
not paired: which runtime wins depends on what the cluster has.
"""

from __future__ import annotations

from gpulint.model.kinds.table import api_group
from gpulint.model.resource import Container, Resource
from gpulint.model.values.placeholders import is_placeholder

KSERVE = "serving.kserve.io"
RUNTIME_KINDS = frozenset({"ServingRuntime", "ClusterServingRuntime"})
KSERVE_CONTAINER = "kserve-container"
_MODEL = ("spec", "predictor", "model")


def runtime_named(resource: Resource, container: Container) -> str | None:
    """The runtime an InferenceService's predictor ``model`` container names, if it does."""
    if resource.kind != "InferenceService" or api_group(resource.api_version) != KSERVE:
        return None
    if tuple(container.path) != _MODEL:
        return None
    name = container.data.get("runtime")
    if not isinstance(name, str) or not name or is_placeholder(name):
        return None
    return name


def is_merged_runtime_container(resource: Resource, container: Container) -> bool:
    """Whether this is the ServingRuntime container KServe merges a predictor's model into."""
    if resource.kind not in RUNTIME_KINDS or api_group(resource.api_version) != KSERVE:
        return False
    if container.section != "container" or tuple(container.path) != ("spec", "containers", 0):
        return False
    regular = container.pod.regular_containers()
    return len(regular) == 1 or container.name == KSERVE_CONTAINER
