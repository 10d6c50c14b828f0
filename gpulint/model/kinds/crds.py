"""Where operator CRDs keep their pod specs (the workload table's CRD entries).

Each entry follows the CRD's own API types (field names, defaults of replica
counts); ``docs/helm-and-kustomize.md`` lists them. Replica counts carry the
API default when a field is absent, so rules can speak of a job's total GPUs.
"""

from __future__ import annotations

from typing import Any

from gpulint.model.kinds import sites as workloads
from gpulint.model.kinds.sites import ANY_ITEM, ANY_KEY, Kinds, PodSite

KINDS = Kinds()  # this module's entries of the workload table (table.py)

# --- helpers ---


def _int(value: Any, default: int | None) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(value, 0)


def _item(obj: Any, path: tuple, bound: tuple) -> Any:
    return workloads.get(obj, workloads.bind(path, bound))


def _named(list_path: tuple, key: str = "name"):
    """Role from the ``name`` of the list item the spec pattern went through."""

    def label(obj: Any, bound: tuple) -> str | None:
        item = _item(obj, list_path + (ANY_ITEM,), bound)
        value = item.get(key) if isinstance(item, dict) else None
        return str(value) if value is not None else None

    return label


def _product(*fields: tuple[tuple, int]):
    """Pods = the product of fields, each with the default the API gives it."""

    def count(obj: Any, bound: tuple) -> int | None:
        total = 1
        for path, default in fields:
            value = _int(_item(obj, path, bound), default)
            total *= value if value is not None else default
        return total

    return count


# --- Kubeflow training operator (kubeflow.org) ---

# The replica map of each job kind; a role's ``replicas`` defaults to 1.
KUBEFLOW_JOBS = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
    "MXJob": "mxReplicaSpecs",
}
for _kind, _field in KUBEFLOW_JOBS.items():
    KINDS.add(
        _kind,
        PodSite(
            ("spec", _field, ANY_KEY, "template", "spec"),
            replicas=(("spec", _field, ANY_KEY, "replicas"),),
        ),
        group="kubeflow.org",
    )

KINDS.add("Notebook", PodSite(("spec", "template", "spec")), group="kubeflow.org")

# Katib: a trial is an embedded Job, Kubeflow job or JobSet; parallelTrialCount defaults to 3.
_TRIAL = ("spec", "trialTemplate", "trialSpec")
_PARALLEL_TRIALS = (("spec", "parallelTrialCount"), 3)
_katib_sites = [
    PodSite(
        _TRIAL + ("spec", "template", "spec"),
        replicas=(_PARALLEL_TRIALS[0], _TRIAL + ("spec", "parallelism")),
        count=_product(_PARALLEL_TRIALS, (_TRIAL + ("spec", "parallelism"), 1)),
        role="trial",
    ),
    PodSite(
        _TRIAL + ("spec", "replicatedJobs", ANY_ITEM, "template", "spec", "template", "spec"),
        replicas=(_PARALLEL_TRIALS[0], _TRIAL + ("spec", "replicatedJobs", ANY_ITEM, "replicas")),
        count=_product(
            _PARALLEL_TRIALS,
            (_TRIAL + ("spec", "replicatedJobs", ANY_ITEM, "replicas"), 1),
            (_TRIAL + ("spec", "replicatedJobs", ANY_ITEM, "template", "spec", "parallelism"), 1),
        ),
        label=_named(_TRIAL + ("spec", "replicatedJobs")),
    ),
]
for _field in KUBEFLOW_JOBS.values():
    _katib_sites.append(
        PodSite(
            _TRIAL + ("spec", _field, ANY_KEY, "template", "spec"),
            replicas=(_PARALLEL_TRIALS[0], _TRIAL + ("spec", _field, ANY_KEY, "replicas")),
            count=_product(_PARALLEL_TRIALS, (_TRIAL + ("spec", _field, ANY_KEY, "replicas"), 1)),
        )
    )
KINDS.add("Experiment", *_katib_sites, group="kubeflow.org")

# --- JobSet and Kubeflow Trainer runtimes ---


def _jobset_site(prefix: tuple) -> PodSite:
    jobs = prefix + ("replicatedJobs",)
    return PodSite(
        jobs + (ANY_ITEM, "template", "spec", "template", "spec"),
        replicas=(
            jobs + (ANY_ITEM, "replicas"),
            jobs + (ANY_ITEM, "template", "spec", "parallelism"),
        ),
        count=_product(
            (jobs + (ANY_ITEM, "replicas"), 1),
            (jobs + (ANY_ITEM, "template", "spec", "parallelism"), 1),
        ),
        label=_named(jobs),
    )


KINDS.add("JobSet", _jobset_site(("spec",)), group="jobset.x-k8s.io")
for _kind in ("TrainingRuntime", "ClusterTrainingRuntime"):
    KINDS.add(_kind, _jobset_site(("spec", "template", "spec")), group="trainer.kubeflow.org")

# --- LeaderWorkerSet: replicas groups of `size` pods (leader + size-1 workers) ---

_LWT = ("spec", "leaderWorkerTemplate")


def _lws_leaders(obj: Any, bound: tuple) -> int | None:
    return _int(workloads.get(obj, ("spec", "replicas")), 1)


def _lws_workers(obj: Any, bound: tuple) -> int | None:
    groups = _int(workloads.get(obj, ("spec", "replicas")), 1) or 0
    size = _int(workloads.get(obj, _LWT + ("size",)), 1) or 0
    # Without a leader template, the leader is made from the worker template too.
    has_leader = isinstance(workloads.get(obj, _LWT + ("leaderTemplate",)), dict)
    return groups * (max(size - 1, 0) if has_leader else size)


KINDS.add(
    "LeaderWorkerSet",
    PodSite(
        _LWT + ("leaderTemplate", "spec"),
        replicas=(("spec", "replicas"),),
        count=_lws_leaders,
        role="leader",
    ),
    PodSite(
        _LWT + ("workerTemplate", "spec"),
        replicas=(("spec", "replicas"), _LWT + ("size",)),
        count=_lws_workers,
        role="worker",
    ),
    group="leaderworkerset.x-k8s.io",
)

# --- Volcano ---

KINDS.add(
    "Job",
    PodSite(
        ("spec", "tasks", ANY_ITEM, "template", "spec"),
        replicas=(("spec", "tasks", ANY_ITEM, "replicas"),),
        label=_named(("spec", "tasks")),
    ),
    group="batch.volcano.sh",
)

# --- KubeRay (ray.io v1 and v1alpha1 share the shape) ---


def _ray_workers(groups: tuple):
    def count(obj: Any, bound: tuple) -> int | None:
        group = _item(obj, groups + (ANY_ITEM,), bound)
        if not isinstance(group, dict):
            return None
        # replicas defaults to minReplicas (both default to 0); numOfHosts to 1.
        replicas = _int(group.get("replicas"), None)
        if replicas is None:
            replicas = _int(group.get("minReplicas"), 0) or 0
        return replicas * (_int(group.get("numOfHosts"), 1) or 0)

    return count


def _ray_sites(cluster: tuple) -> list[PodSite]:
    groups = cluster + ("workerGroupSpecs",)
    return [
        PodSite(cluster + ("headGroupSpec", "template", "spec"), count=lambda o, b: 1, role="head"),
        PodSite(
            groups + (ANY_ITEM, "template", "spec"),
            replicas=(
                groups + (ANY_ITEM, "replicas"),
                groups + (ANY_ITEM, "minReplicas"),
                groups + (ANY_ITEM, "numOfHosts"),
            ),
            count=_ray_workers(groups),
            label=_named(groups, "groupName"),
            role="worker",
        ),
    ]


KINDS.add("RayCluster", *_ray_sites(("spec",)), group="ray.io")
KINDS.add(
    "RayJob",
    *_ray_sites(("spec", "rayClusterSpec")),
    PodSite(("spec", "submitterPodTemplate", "spec"), count=lambda o, b: 1, role="submitter"),
    group="ray.io",
)
KINDS.add("RayService", *_ray_sites(("spec", "rayClusterConfig")), group="ray.io")

# Where each Ray kind keeps its cluster spec (GPU901 reads rayStartParams beside the template).
RAY_CLUSTER_SPEC = {
    "RayCluster": ("spec",),
    "RayJob": ("spec", "rayClusterSpec"),
    "RayService": ("spec", "rayClusterConfig"),
}

# --- KServe (serving.kserve.io) ---

# A predictor is a PodSpec inline plus at most one framework container.
KSERVE_PREDICTOR_CONTAINERS = (
    "model",
    "sklearn",
    "xgboost",
    "tensorflow",
    "pytorch",
    "triton",
    "onnx",
    "huggingface",
    "pmml",
    "lightgbm",
    "paddle",
)
KSERVE_EXPLAINER_CONTAINERS = ("art", "alibi", "aix")


def _min_replicas(component: tuple):
    def count(obj: Any, bound: tuple) -> int | None:
        return _int(workloads.get(obj, component + ("minReplicas",)), 1)

    return count


def _kserve_component(name: str, framework: tuple[str, ...]) -> list[PodSite]:
    component = ("spec", name)
    return [
        PodSite(
            component,
            replicas=(component + ("minReplicas",),),
            count=_min_replicas(component),
            role=name,
            containers=tuple((key,) for key in framework),
        ),
        PodSite(component + ("workerSpec",), role=f"{name}-worker"),
    ]


# KFServing's serving.kubeflow.org/v1beta1 (0.5, 0.6) has KServe's shape: read it too, so the
# rules see its pods while GPU902 reports the group.
for _group in ("serving.kserve.io", "serving.kubeflow.org"):
    KINDS.add(
        "InferenceService",
        *_kserve_component("predictor", KSERVE_PREDICTOR_CONTAINERS),
        *_kserve_component("transformer", ()),
        *_kserve_component("explainer", KSERVE_EXPLAINER_CONTAINERS),
        group=_group,
    )
for _kind in ("ServingRuntime", "ClusterServingRuntime"):
    KINDS.add(
        _kind,
        PodSite(("spec",), role="runtime"),
        PodSite(("spec", "workerSpec"), role="worker"),
        group="serving.kserve.io",
    )


def _llm_sites() -> list[PodSite]:
    def replicas(*path: str):
        return lambda obj, bound: _int(workloads.get(obj, path), 1)

    return [
        PodSite(
            ("spec", "template"),
            replicas=(("spec", "replicas"),),
            count=replicas("spec", "replicas"),
            role="decode",
        ),
        PodSite(("spec", "worker"), role="decode-worker"),
        PodSite(
            ("spec", "prefill", "template"),
            replicas=(("spec", "prefill", "replicas"),),
            count=replicas("spec", "prefill", "replicas"),
            role="prefill",
        ),
        PodSite(("spec", "prefill", "worker"), role="prefill-worker"),
        PodSite(("spec", "router", "scheduler", "template"), role="scheduler"),
    ]


for _kind in ("LLMInferenceService", "LLMInferenceServiceConfig"):
    KINDS.add(_kind, *_llm_sites(), group="serving.kserve.io")

# --- Argo Workflows and Rollouts (argoproj.io) ---

# A workflow template runs one pod: `container`, `script` or a `containerSet`, with sidecars.
_ARGO_CONTAINERS = (("container",), ("script",), ("containerSet", "containers"), ("sidecars",))
# The controller names a template's container or script container `main`
# (argoproj/argo-workflows workflow/common/common.go MainContainerName); findings name the
# template too (`train/main`), since every template's container is `main`.
_ARGO_MAIN = ((("container",), "main"), (("script",), "main"))


def _argo_site(templates: tuple) -> PodSite:
    return PodSite(
        templates + (ANY_ITEM,),
        metadata=templates + (ANY_ITEM, "metadata"),
        containers=_ARGO_CONTAINERS,
        container_names=_ARGO_MAIN,
        label=_named(templates),
        qualify=True,
    )


for _kind in ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate"):
    KINDS.add(_kind, _argo_site(("spec", "templates")), group="argoproj.io")
KINDS.add("CronWorkflow", _argo_site(("spec", "workflowSpec", "templates")), group="argoproj.io")
KINDS.add(
    "Rollout",
    PodSite(("spec", "template", "spec"), replicas=(("spec", "replicas"),)),
    group="argoproj.io",
)

# --- Knative Serving ---

for _kind in ("Service", "Configuration"):
    KINDS.add(_kind, PodSite(("spec", "template", "spec")), group="serving.knative.dev")
KINDS.add("Revision", PodSite(("spec",), metadata=("metadata",)), group="serving.knative.dev")

# --- Any other kind ---

# Built-in API groups whose kinds are all in the table or hold no pod spec: never searched.
