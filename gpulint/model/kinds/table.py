"""Where pod specs live, kind by kind: the built-in kinds, then the CRDs of ``crds.py``,
the operator-assembled pods of ``assembled.py`` and KubeAI's of ``kubeai.py``, in that
order (a group-specific entry wins over one for any group). The patterns and their
vocabulary are in ``sites.py``.

Every entry of those three modules names an API group of its own, never a built-in
kind's (tests/model/test_crds.py), so an object of a built-in kind's group is looked up
in the built-in kinds alone: a run whose objects are all of those groups (Deployments,
Jobs, Pods...) never imports the three modules (~2.2 ms of a one-file run, with the
~90 records their entries make).
"""

from __future__ import annotations

from functools import cache

from gpulint.model.kinds.sites import (
    ANY_ITEM,
    ANY_KEY,
    Built,
    Kinds,
    PodSite,
    WorkloadKind,
    api_group,
    bind,
    get,
    match,
)

__all__ = ["ANY_ITEM", "ANY_KEY", "Built", "PodSite", "TEMPLATE_KINDS", "WorkloadKind"]
__all__ += ["api_group", "bind", "get", "lookup", "match"]

# Kinds that are templates other objects instantiate: they run no pods of their own, so
# their replica counts are defaults, not demand (GPU211 skips them; GPU210 still applies).
TEMPLATE_KINDS = frozenset(
    {
        "PodTemplate",
        "TrainingRuntime",
        "ClusterTrainingRuntime",
        "ServingRuntime",
        "ClusterServingRuntime",
        "LLMInferenceServiceConfig",
    }
)

_BUILTIN = Kinds()

_TEMPLATE = ("spec", "template", "spec")

_BUILTIN.add("Pod", PodSite(("spec",), metadata=("metadata",)), group="")
_BUILTIN.add("PodTemplate", PodSite(("template", "spec")), group="")
_BUILTIN.add("Deployment", PodSite(_TEMPLATE, replicas=(("spec", "replicas"),)), group="apps")
_BUILTIN.add("ReplicaSet", PodSite(_TEMPLATE, replicas=(("spec", "replicas"),)), group="apps")
_BUILTIN.add("StatefulSet", PodSite(_TEMPLATE, replicas=(("spec", "replicas"),)), group="apps")
_BUILTIN.add("DaemonSet", PodSite(_TEMPLATE), group="apps")
_BUILTIN.add(
    "ReplicationController", PodSite(_TEMPLATE, replicas=(("spec", "replicas"),)), group=""
)
_BUILTIN.add("Job", PodSite(_TEMPLATE, replicas=(("spec", "parallelism"),)), group="batch")
_BUILTIN.add(
    "CronJob",
    PodSite(
        ("spec", "jobTemplate", "spec", "template", "spec"),
        replicas=(("spec", "jobTemplate", "spec", "parallelism"),),
    ),
    group="batch",
)


def _table(*groups: list[WorkloadKind]) -> dict[str, list[WorkloadKind]]:
    table: dict[str, list[WorkloadKind]] = {}
    for entry in (e for group in groups for e in group):
        entries = table.setdefault(entry.kind, [])
        if entry.group is None:
            entries.append(entry)
        else:
            entries.insert(0, entry)
    return table


_BUILTIN_GROUPS = frozenset(entry.group for entry in _BUILTIN)  # "", apps, batch
_BUILTIN_TABLE = _table(_BUILTIN)


@cache
def _whole_table() -> dict[str, list[WorkloadKind]]:
    """The built-in kinds and those of the CRD modules, imported when first needed (LAZY
    in tests/project/test_import_contract.py)."""
    from gpulint.model.kinds import assembled, crds, kubeai

    return _table(_BUILTIN, crds.KINDS, assembled.KINDS, kubeai.KINDS)


def lookup(kind: str, api_version: str) -> WorkloadKind | None:
    group = api_group(api_version)
    table = _BUILTIN_TABLE if group in _BUILTIN_GROUPS else _whole_table()
    entries = table.get(kind)
    if not entries:
        return None
    for entry in entries:
        if entry.group is None or entry.group == group:
            return entry
    return None
