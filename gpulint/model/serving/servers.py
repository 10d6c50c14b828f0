"""Which workloads serve requests, and which node selectors land them on shared GPUs.

GPU601 (a latency-sensitive server on time-sliced or MPS GPUs) asks both; the cross-file
facts (gpulint/rules/facts.py) record them per GPU use.
"""

from __future__ import annotations

from gpulint.model.gpu.mig import PRODUCT_LABEL
from gpulint.model.resource import PodSpec, Resource

SHARING_LABEL = "nvidia.com/gpu.sharing-strategy"
SHARING_VALUES = ("time-slicing", "mps")
SERVING_KINDS = frozenset(
    {
        "Deployment",
        "StatefulSet",
        "ReplicaSet",
        "ReplicationController",
        "LeaderWorkerSet",
        "InferenceService",
        "ServingRuntime",
        "ClusterServingRuntime",
        "LLMInferenceService",
        "InferenceGraph",
        "RayService",
        "NIMService",
        "Service",  # Knative Serving (a core Service has no pod spec)
        "Rollout",
        "ModelService",  # llm-d
        "ResourceProfile",  # KubeAI's model server pods (values read as a kind)
        "DynamoGraphDeployment",
        "DynamoComponentDeployment",
        "SeldonDeployment",
        "Notebook",  # Kubeflow: kept running while someone works in it
    }
)
# Controllers that keep any program running: their kind says a pod is long-lived, not
# that it answers requests (a Deployment may loop a training script).
GENERIC_CONTROLLERS = frozenset(
    {"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Rollout"}
)
BATCH_KINDS = frozenset(
    {
        "Job",
        "CronJob",
        "PyTorchJob",
        "TFJob",
        "MPIJob",
        "XGBoostJob",
        "PaddleJob",
        "JAXJob",
        "TrainJob",
        "TrainingRuntime",
        "ClusterTrainingRuntime",
        "JobSet",
        "RayJob",
        "Workflow",
        "WorkflowTemplate",
        "ClusterWorkflowTemplate",
        "CronWorkflow",
        "Experiment",
    }
)


def is_serving(resource: Resource, pod: PodSpec) -> bool:
    """A serving kind, or (for kinds of neither list) a pod with a readiness probe or ports."""
    kind = pod.workload_kind or resource.kind
    if kind in SERVING_KINDS:
        return True
    if kind in BATCH_KINDS or kind == "DaemonSet":
        return False
    return any(
        c.data.get("readinessProbe") or c.data.get("ports") for c in pod.regular_containers()
    )


def sharing_selector(requirements: list) -> tuple[tuple, str] | None:
    """(path in the pod spec, text) of a requirement that lands the pod on shared GPUs."""
    for req in requirements:
        if req.key == SHARING_LABEL:
            if req.operator == "In" and req.values and all(v in SHARING_VALUES for v in req.values):
                return req.path, f"{SHARING_LABEL}={'|'.join(req.values)}"
            if req.operator == "NotIn" and "none" in req.values:
                return req.path, f"{SHARING_LABEL} not none"
        shared_products = req.values and all(v.endswith("-SHARED") for v in req.values)
        if req.key == PRODUCT_LABEL and req.operator == "In" and shared_products:
            return req.path, f"{PRODUCT_LABEL}={'|'.join(req.values)}"
    return None
