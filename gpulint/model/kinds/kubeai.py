"""KubeAI's resource profiles: the pod settings of every Model that names the profile.

A KubeAI ``Model`` (kubeai.org/v1) holds no pod spec: it names ``resourceProfile:
<profile>:<count>`` (substratusai/kubeai api/v1/model_types.go), and the profiles live in the
KubeAI Helm chart's values, ``resourceProfiles`` (charts/kubeai/values.yaml; the type is
internal/config/system.go ``ResourceProfile``: ``imageName``, ``requests``, ``limits``,
``nodeSelector``, ``affinity``, ``tolerations``; newer releases add ``runtimeClassName``). The
model controller (internal/modelcontroller/model_controller.go ``applyResourceProfile``)
multiplies the profile's requests and limits by the count and puts them, with its node selector,
on the model server container; the engines' pod builders (engine_vllm.go, engine_ollama.go,
engine_infinity.go) add the profile's affinity, tolerations and runtime class and a memory-backed
``/dev/shm`` (``dshm``).

gpulint reads each profile of a KubeAI values file as one pod (kind ``ResourceProfile``, the
profile's name): its scheduling fields as the pod spec's, its requests and limits as the server
container's, so the GPU rules judge what every Model on the profile will get (for one unit of
the count).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.kinds.sites import Built, Kinds, PodSite

KINDS = Kinds()  # this module's entries of the workload table (table.py)

KIND = "ResourceProfile"
API_VERSION = "kubeai.org/values"  # not a served API: the chart's values, read as a kind
PROFILE_KEYS = frozenset(
    {
        "imageName",
        "requests",
        "limits",
        "nodeSelector",
        "affinity",
        "tolerations",
        "runtimeClassName",
    }
)
_CONTAINER = ("containers", 0)  # where the server container would sit in the profile's pod


def _is_profile_set(profiles: Any) -> bool:
    if not isinstance(profiles, dict) or not profiles:
        return False
    if not all(isinstance(p, dict) and set(p) <= PROFILE_KEYS for p in profiles.values()):
        return False
    return any("requests" in p or "limits" in p for p in profiles.values())


def profiles_of(data: Any) -> Iterator[tuple[tuple, str, dict]]:
    """(path in the document, name, profile) of each profile of a KubeAI values document (or
    of an umbrella chart's values holding KubeAI's under ``kubeai:``)."""
    if not isinstance(data, dict) or ("apiVersion" in data and "kind" in data):
        return
    for prefix in ((), ("kubeai",)):
        values = data.get(prefix[0]) if prefix else data
        profiles = values.get("resourceProfiles") if isinstance(values, dict) else None
        if isinstance(profiles, dict) and _is_profile_set(profiles):
            for name, profile in profiles.items():
                yield prefix + ("resourceProfiles", name), str(name), profile


def _profile_pod(obj: Any, path: tuple) -> Built | None:
    if not isinstance(obj, dict):
        return None
    container: dict = {"name": "server"}
    resources = {k: obj[k] for k in ("requests", "limits") if isinstance(obj.get(k), dict)}
    if resources:
        container["resources"] = resources
    spec = {k: v for k, v in obj.items() if k not in ("requests", "limits", "imageName")}
    redirects = ((_CONTAINER + ("resources",), ()), (_CONTAINER, ()))
    return Built((), spec, ((_CONTAINER, container),), redirects)


KINDS.add(KIND, PodSite((), count=lambda o, b: 1, build=_profile_pod), group="kubeai.org")
