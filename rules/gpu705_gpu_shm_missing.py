"""
## What it checks
A multi-GPU or distributed GPU pod whose GPU containers mount nothing at
`/dev/shm`. Any volume mounted there replaces the 64 MiB default: a
memory-backed `emptyDir`, and also a disk-backed one (shared memory is then
files on the node's disk, which `shm_open` and NCCL map just the same, bounded
by its `sizeLimit`). In any pod that holds GPUs, a `/dev/shm` mount the API
server refuses is an error: the same `mountPath` twice in one container
(`must be unique`), or, in the built-in kinds, a volume the pod does not
define (`Not found`; an operator's kind may add volumes of its own). A pod
counts as such when it holds more than one GPU (device plugin resources, or
the devices of DRA claims the run defines), when a container runs a
distributed launcher (`torchrun`, `deepspeed`, `mpirun`...) or a tensor/pipeline-parallel server
(`--tensor-parallel-size 2`...), or when it is a replicated role (more than
one replica) of a distributed-training kind (Kubeflow `PyTorchJob`, `MPIJob`,
`TrainJob`..., `JobSet`, Volcano `Job`). Pods with `hostIPC: true` use the
node's `/dev/shm` and pass. Kinds whose controller mounts a memory-backed
`/dev/shm` itself are not checked (the table in `gpulint/model/workloads/controllers.py`,
with its sources): KubeRay's Ray pods, KServe's `LLMInferenceService` (from its
`LLMInferenceServiceConfig` templates), the Dynamo operator's
`DynamoGraphDeployment` and `DynamoComponentDeployment`, the NIM operator's
`NIMService`, KubeAI's model pods (read from its resource profiles); a Dynamo component
that sets `sharedMemory.disabled` or `sharedMemorySize: "0"` is checked.
Containers that only probe the GPU or wait (`nvidia-smi`, a CUDA sample,
`sleep`) and pods that probe or benchmark the GPUs (MPI workers whose launcher
runs `nvbandwidth`, `gpu_burn`: `gpulint/model/workloads/purpose.py`) are left
alone, and so, in a pod that is multi-GPU only by its count, is a container
that holds one GPU of them: nothing shares its GPU.

It is a warning where several ranks certainly share the pod: it holds more than
one GPU and runs a distributed launcher or a split model, or is the worker of
an MPIJob with `slotsPerWorker` above 1 (mpirun starts that many ranks in
each worker), or is a Kubeflow
Trainer runtime whose torch policy starts one process per GPU (`numProcPerNode`
`auto`, its default): NCCL's shared-memory transport between those ranks lives
in `/dev/shm`. Otherwise (one GPU per pod, or several GPUs driven by one
process as far as the manifest says) only DataLoader workers would need more
than 64 MiB, which the manifest cannot tell: a note, reported only with the
option `single-rank: true`.

## Why it matters
A container's `/dev/shm` is 64 MiB unless something bigger is mounted there,
and Kubernetes has no `shm-size` setting. PyTorch DataLoader workers pass
batches through shared memory and NCCL uses it between the GPUs of one pod;
both die with `Bus error` or `ERROR: Unexpected bus error encountered in
worker. This might be caused by insufficient shared memory (shm)`
once the 64 MiB run out, often hours into a run.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer  # <- GPU705
          image: nvcr.io/nvidia/pytorch:24.05-py3
          command: [torchrun, --nproc-per-node=4, train.py]
          resources:
            limits:
              nvidia.com/gpu: 4
```

## Passing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          command: [torchrun, --nproc-per-node=4, train.py]
          resources:
            limits:
              nvidia.com/gpu: 4
          volumeMounts:
            - name: dshm
              mountPath: /dev/shm
      volumes:
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: 16Gi
```

## How to fix
Add a volume `emptyDir: {medium: Memory, sizeLimit: <size>}` and mount it at
`/dev/shm` in the GPU containers. Its usage counts against the pod's memory
limit, so size the limit for it.
`gpulint check --fix --unsafe-fixes` adds a volume `dshm` (`emptyDir: {medium:
Memory}`, no size limit) and the mount (unsafe: what the pod writes there
counts against its memory; add the `sizeLimit` yourself).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.holding import Held, container_holding, pod_holding
from gpulint.model.gpu.infra import is_infra_container, is_infra_pod
from gpulint.model.kinds.table import api_group
from gpulint.model.serving.parallelism import command_line
from gpulint.model.values.placeholders import is_placeholder
from gpulint.model.workloads.controllers import Adds, controller_adding, starts_a_rank_per_gpu
from gpulint.model.workloads.probe import is_probe
from gpulint.model.workloads.purpose import Purpose, pod_purpose
from gpulint.rules.api import (
    Container,
    Context,
    FixSafety,
    Option,
    PodSpec,
    Report,
    Resource,
    Rule,
    Severity,
)
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU705",
    "gpu-shm-missing",
    Severity.WARNING,
    "A multi-GPU or distributed pod has only the 64 MiB default /dev/shm.",
    __doc__,
    fix=FixSafety.UNSAFE,
    options=(
        Option(
            "single-rank",
            bool,
            False,
            "Report, as notes, pods where no two ranks are known to share the pod (one GPU, or "
            "several driven by one process): only DataLoader workers could fill /dev/shm there.",
        ),
    ),
    pods_only=True,
)

SHM = "/dev/shm"
# API group -> kinds whose roles are ranks of one distributed training job.
DISTRIBUTED_TRAINING = {
    "kubeflow.org": {"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "MXJob"},
    "trainer.kubeflow.org": {"TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"},
    "jobset.x-k8s.io": {"JobSet"},
    "batch.volcano.sh": {"Job"},
}


def _distributed(pod: PodSpec, resource: Resource) -> str | None:
    for container in pod.containers:
        line = command_line(container)
        if line.launcher is not None:
            return f"container {container.name!r} runs {line.launcher}"
        found = line.parallelism
        if found is not None and found.total > 1:
            return f"container {container.name!r} runs {found.describe()}"
    if (
        resource.kind in DISTRIBUTED_TRAINING.get(api_group(resource.api_version), ())
        and (pod.replicas or 0) > 1
    ):
        role = f" role {pod.role!r}" if pod.role else ""
        return f"{resource.kind}{role} runs {pod.replicas} replicas"
    return None


def _reason(pod: PodSpec, resource: Resource, held: Held) -> tuple[str, bool] | None:
    """Why the pod needs a large /dev/shm, and whether that is only its GPU count."""
    distributed = _distributed(pod, resource)
    gpus = held.count
    if gpus is not None and gpus > 1:
        return f"the pod holds {gpus} GPUs", distributed is None
    return (distributed, False) if distributed else None


def _ranks_share_the_pod(pod: PodSpec, resource: Resource, held: Held) -> bool:
    """Several GPUs and a multi-process launcher or a split model in one pod: its ranks
    talk through this pod's /dev/shm (NCCL's shared-memory transport and proxy buffers)."""
    if held.count is None or held.count <= 1:
        return False
    return (
        starts_a_rank_per_gpu(resource)
        or _mpi_slots(resource) > 1
        or any(command_line(c).is_distributed for c in pod.containers)
    )


def _mpi_slots(resource: Resource) -> int:
    """An MPIJob's ``slotsPerWorker``: the ranks mpirun starts in each worker pod (Kubeflow
    mpi-operator, v2beta1 and the training operator's v1; 1 when unset)."""
    if resource.kind != "MPIJob" or api_group(resource.api_version) != "kubeflow.org":
        return 1
    spec = resource.obj.get("spec")
    slots = spec.get("slotsPerWorker") if isinstance(spec, dict) else None
    return slots if isinstance(slots, int) and not isinstance(slots, bool) else 1


# The groups whose pod templates the API server validates as it admits the object.
_VALIDATED_GROUPS = frozenset({"", "apps", "batch"})


def _rejections(resource: Resource, pod: PodSpec) -> Iterator[Report]:
    """A /dev/shm mount the API server refuses (ValidateVolumeMounts, k8s.io/kubernetes
    pkg/apis/core/validation): mounted twice in one container, or naming a volume the pod
    does not define (only for the built-in kinds: an operator may add volumes of its own,
    as Argo Workflows adds the workflow's)."""
    volumes = pod.spec.get("volumes")
    if not isinstance(volumes, list | None):
        return  # a malformed pod spec: GPU011's
    names = {
        v["name"] for v in volumes or () if isinstance(v, dict) and isinstance(v.get("name"), str)
    }
    validated = api_group(resource.api_version) in _VALIDATED_GROUPS
    for container in pod.containers:
        mounts = container.data.get("volumeMounts")
        seen: set[str] = set()  # the API server compares the strings as written
        for index, mount in enumerate(mounts if isinstance(mounts, list) else ()):
            path = mount.get("mountPath") if isinstance(mount, dict) else None
            if not isinstance(path, str) or path.rstrip("/") != SHM:
                continue
            at = container.path + ("volumeMounts", index)
            if path in seen:
                yield Report(
                    at + ("mountPath",),
                    f"container {container.name!r} mounts {path} a second time; the API server "
                    f'rejects the pod: "mountPath: Invalid value: "{path}": must be unique"',
                    container=container.name,
                    at="value",
                    severity=Severity.ERROR,
                )
            seen.add(path)
            name = mount.get("name")
            if (
                validated
                and isinstance(name, str)
                and not is_placeholder(name)
                and (name not in names)
            ):
                yield Report(
                    at + ("name",),
                    f"container {container.name!r} mounts volume {name!r} at {SHM}, which the "
                    f'pod does not define; the API server rejects the pod: "name: Not found: '
                    f'"{name}""',
                    container=container.name,
                    at="value",
                    severity=Severity.ERROR,
                )


def _shm_volume(pod: PodSpec, container: Container) -> tuple[bool, str]:
    """(something replaces the 64 MiB default, what is mounted) for the container's /dev/shm."""
    mounts = container.data.get("volumeMounts")
    name = None
    if isinstance(mounts, list):
        for mount in mounts:
            path = mount.get("mountPath") if isinstance(mount, dict) else None
            if isinstance(path, str) and path.rstrip("/") == SHM:
                name = mount.get("name")
    if name is None:
        return False, "nothing is mounted there"
    volumes = pod.spec.get("volumes")
    for volume in volumes if isinstance(volumes, list) else ():
        if not isinstance(volume, dict) or volume.get("name") != name:
            continue
        # An emptyDir, memory- or disk-backed (files on the node's disk map as well), a
        # hostPath /dev/shm or another volume chosen on purpose.
        return True, ""
    return True, ""  # not defined here: rejected (_rejections) or added by an operator


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for pod in resource.pod_specs:
        if controller_adding(resource, Adds.SHM, pod) is not None:
            continue  # KubeRay, the Dynamo and NIM operators... mount it themselves
        held = pod_holding(pod, ctx.profile)
        if not held.any:
            continue
        rejected = list(_rejections(resource, pod))
        if rejected:
            yield from rejected
            continue  # the pod is never created: its /dev/shm size is moot
        if is_infra_pod(pod) or pod.spec.get("hostIPC") is True:
            continue
        if pod_purpose(resource, pod) in (Purpose.PROBE, Purpose.BENCHMARK):
            continue  # a probe or a bandwidth test: no DataLoader, no training ranks
        found = _reason(pod, resource, held)
        if found is None:
            continue
        reason, by_count = found
        # A warning where ranks certainly share this pod's /dev/shm; otherwise only
        # DataLoader workers would need it, which the manifest cannot tell: advice, on request.
        severity = None if _ranks_share_the_pod(pod, resource, held) else Severity.NOTE
        if severity is Severity.NOTE and not ctx.option(rule, "single-rank"):
            continue
        for container in pod.regular_containers():
            if is_infra_container(container) or is_probe(container):
                continue  # a probe (nvidia-smi, sleep) puts nothing in /dev/shm
            holding = container_holding(container, ctx.profile)
            if not holding.any and not command_line(container).is_distributed:
                continue
            if by_count and holding.count == 1:
                continue  # one GPU of several in the pod: nothing shares this one's GPU
            ok, what = _shm_volume(pod, container)
            if ok:
                continue
            yield Report(
                container.path + ("name",),
                f"{reason}, but container {container.name!r} has the 64 MiB default {SHM} "
                f"({what}); DataLoader workers and NCCL fail with bus errors; mount an "
                "emptyDir with medium: Memory at /dev/shm",
                container=container.name,
                severity=severity,
                fix=builders.shm_volume(pod, container),
            )
