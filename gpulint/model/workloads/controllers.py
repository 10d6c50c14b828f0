"""What ML operators add to the pods they create, so that rules do not ask for it.

A rule that asks a workload for something (a memory-backed ``/dev/shm``, a GPU toleration, a
node selector) consults this one table first: when the workload's controller adds it to
every pod it makes, the manifest is right to leave it out. Each entry names the source that
shows the controller doing so; an operator that only copies what the user writes (LWS,
JobSet, the Kubeflow training operators, KServe's InferenceService, the NIM operator's
tolerations) is not listed for that.

Sources:
- KubeRay: ray-project/kuberay ray-operator/controllers/ray/common/pod.go: ``addEmptyDir(...,
  SharedMemoryVolumeName "shared-mem", SharedMemoryVolumeMountPath "/dev/shm",
  StorageMediumMemory)`` on the Ray container of every head and worker pod.
- KServe: an LLMInferenceService's template is merged onto its LLMInferenceServiceConfig
  templates (kserve/kserve config/llmisvc/config-llm-template.yaml and the prefill/decode
  templates beside it), which mount the memory-backed volume ``dshm``.
- Dynamo: ai-dynamo/dynamo deploy/cloud/operator/internal/dynamo/graph.go
  ``generateSharedMemoryVolumeAndMount``: an 8Gi ``emptyDir`` with medium Memory at
  ``/dev/shm`` for every component unless ``sharedMemory.disabled``
  (docs: "Operator Default Values Injection").
- NIM operator: NVIDIA/k8s-nim-operator api/apps/v1alpha1/nimservice_types.go ``GetVolumes``
  and ``GetVolumeMounts``: volume ``dshm`` (emptyDir, medium Memory) at ``/dev/shm``.
- Kubeflow Trainer: a TrainingRuntime or ClusterTrainingRuntime is a blueprint; each
  TrainJob's ``spec.trainer.resourcesPerNode`` replaces the resources of the trainer
  container, the container named ``node`` (kubeflow/trainer pkg/constants ``Node`` "the name of
  the Job and container for the trainer node"; docs/proposals/2170-kubeflow-trainer-v2 "how
  TrainingRuntime fields will be overridden with Trainer").
- KubeAI: substratusai/kubeai internal/modelcontroller/engine_vllm.go, engine_ollama.go,
  engine_infinity.go: every model server pod gets volume ``dshm`` (emptyDir, medium Memory) at
  ``/dev/shm``; gpulint reads a resource profile of its values as such a pod (model/kubeai.py).
- Kueue: kubernetes-sigs/kueue site/content/en/docs/concepts/resource_flavor.md: when it
  admits a workload (one labelled ``kueue.x-k8s.io/queue-name``), Kueue adds the
  ResourceFlavor's ``nodeLabels`` to the pods' node selector and its ``tolerations``.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from gpulint.core.record import record
from gpulint.model.kinds import table as workloads
from gpulint.model.kinds.table import api_group
from gpulint.model.values.gpu_resources import as_fraction

if TYPE_CHECKING:
    from gpulint.model.resource import PodSpec, Resource


class Adds(Enum):
    SHM = "a memory-backed /dev/shm"
    TOLERATIONS = "tolerations"
    NODE_SELECTION = "a node selector"


@record(frozen=True)
class Controller:
    """An ML operator and what it adds to the pods of the kinds it manages."""

    name: str
    group: str
    kinds: frozenset[str] | None  # None: every kind of the group
    adds: frozenset[Adds]
    label: str | None = None  # the workload label that hands it to the controller
    # Fields, on the pod spec's parent or above, whose true (or zero quantity) value turns the
    # addition off.
    opt_out: tuple[tuple[str, ...], ...] = ()


CONTROLLERS = (
    Controller("KubeRay", "ray.io", None, frozenset({Adds.SHM})),
    Controller(
        "KServe", "serving.kserve.io", frozenset({"LLMInferenceService"}), frozenset({Adds.SHM})
    ),
    Controller(
        "the Dynamo operator",
        "nvidia.com",
        frozenset({"DynamoGraphDeployment", "DynamoComponentDeployment"}),
        frozenset({Adds.SHM}),
        # v1alpha1 sharedMemory.disabled; v1beta1 sharedMemorySize "0" (deploy/operator/api/
        # v1beta1/dynamocomponentdeployment_types.go: `"0"` disables the shared-memory volume).
        opt_out=(("sharedMemory", "disabled"), ("sharedMemorySize",)),
    ),
    Controller(
        "the NIM operator", "apps.nvidia.com", frozenset({"NIMService"}), frozenset({Adds.SHM})
    ),
    Controller("KubeAI", "kubeai.org", frozenset({"ResourceProfile"}), frozenset({Adds.SHM})),
)
# Controllers picked by a label on the workload, whatever its kind.
LABELLED = (
    Controller(
        "Kueue",
        "kueue.x-k8s.io",
        None,
        frozenset({Adds.TOLERATIONS, Adds.NODE_SELECTION}),
        label="kueue.x-k8s.io/queue-name",
    ),
)


def _off(value: object) -> bool:
    return value is True or (
        not isinstance(value, bool) and value is not None and as_fraction(value) == 0
    )


def _opted_out(resource: Resource, pod: PodSpec, fields: tuple[tuple[str, ...], ...]) -> bool:
    """Whether one of ``fields`` is true (or a zero quantity) on an object above the pod spec
    (a Dynamo component's ``sharedMemory.disabled``, ``sharedMemorySize: "0"``)."""
    path = pod.path
    while path:
        path = path[:-1]
        if any(_off(workloads.get(resource.obj, path + field)) for field in fields):
            return True
    return False


def controller_adding(
    resource: Resource, what: Adds, pod: PodSpec | None = None
) -> Controller | None:
    """The controller that adds ``what`` to every pod of ``resource`` (or to ``pod``: its
    template's labels count too, as Kueue's pod integration reads them), if one does."""
    group = api_group(resource.api_version)
    for controller in CONTROLLERS:
        if what not in controller.adds or controller.group != group:
            continue
        if controller.kinds is not None and resource.kind not in controller.kinds:
            continue
        if pod is not None and _opted_out(resource, pod, controller.opt_out):
            continue
        return controller
    labels = dict(resource.labels)
    if pod is not None:
        template = pod.metadata.get("labels")
        labels.update(template if isinstance(template, dict) else {})
    for controller in LABELLED:
        if what in controller.adds and controller.label in labels:
            return controller
    return None


# (group, kinds, container name) -> the field of the instance that replaces the container's
# resources: the blueprint's resources are defaults, not what every pod gets.
_RESOURCE_BLUEPRINTS = (
    (
        "trainer.kubeflow.org",
        frozenset({"TrainingRuntime", "ClusterTrainingRuntime"}),
        "node",
        "each TrainJob's spec.trainer.resourcesPerNode",
    ),
)


def resources_replaced_by(resource: Resource, container_name: str) -> str | None:
    """What replaces this container's resources when the blueprint ``resource`` is used
    (see the module's sources), or None when the manifest's resources are the pod's."""
    group = api_group(resource.api_version)
    for blueprint_group, kinds, name, replacement in _RESOURCE_BLUEPRINTS:
        if group == blueprint_group and resource.kind in kinds and container_name == name:
            return replacement
    return None


def starts_a_rank_per_gpu(resource: Resource) -> bool:
    """Whether the operator starts one process per GPU of each pod: Kubeflow Trainer's torch
    policy, whose ``numProcPerNode`` defaults to ``auto`` (trainer.kubeflow.org/v1alpha1
    TorchMLPolicySource; its torch plugin sets PET_NPROC_PER_NODE, which torchrun and
    ``tune run`` read)."""
    if api_group(resource.api_version) != "trainer.kubeflow.org":
        return False
    spec = resource.obj.get("spec")
    policy = spec.get("mlPolicy") if isinstance(spec, dict) else None
    torch = policy.get("torch") if isinstance(policy, dict) else None
    if not isinstance(torch, dict):
        return False
    nproc = torch.get("numProcPerNode", "auto")
    return nproc == "auto" or (isinstance(nproc, int) and nproc > 1)
