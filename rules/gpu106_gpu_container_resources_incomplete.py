"""
## What it checks
A container holding GPUs whose CPU and memory are not fully set for the
Guaranteed QoS class: a `cpu` or `memory` limit is missing, or a request
differs from its limit. (A request may be left out: Kubernetes copies the
limit into it.) The message says which of the cpu/memory requests and limits
are missing or unequal, and which QoS class the pod gets instead. Two tiers:
a pod with no CPU or memory request or limit anywhere (no container, no
pod-level `resources`) is **BestEffort**, a warning; a pod that sets some but
not all is **Burstable**, a note. A pod whose GPU containers only probe the
GPU or wait (`nvidia-smi`, a CUDA sample such as `vectorAdd`, `sleep`, a Python
GPU check script such as `python gpu-test.py` whose name holds a check word and a
device word; an MPI worker that only runs `sshd` is what its launcher's `mpirun`
runs there) is left
alone: it has no work for eviction or CPU starvation to spoil. BestEffort is a
note, not a warning, for a bare Pod that runs once (`restartPolicy: Never` or
`OnFailure`: a smoke test or an example, not a workload a controller keeps
running), and for a blueprint whose resources each instance replaces (the
trainer container `node` of a Kubeflow Trainer runtime, which every TrainJob's
`trainer.resourcesPerNode` overrides). For a KServe
`InferenceService`, whose webhook fills a cpu or memory left out entirely with
equal default request and limit, only half-set or unequal values are reported.

## Why it matters
Only a pod whose every container has CPU and memory limits equal to its
requests is **Guaranteed**. A BestEffort GPU pod is the first the kubelet
evicts under memory pressure, and its CPU share is the smallest, so an
expensive GPU job dies or starves on its data loading. A Burstable pod is
evicted after BestEffort ones, and only when it uses more than it requested.
The kubelet's CPU manager (static policy) and topology manager give exclusive
CPUs on the GPU's NUMA node only to Guaranteed pods with whole-number CPU
requests; any other GPU pod shares CPUs across sockets with everything else.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  replicas: 1
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            requests:
              cpu: "4"
            limits:  # <- GPU106
              nvidia.com/gpu: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: notebook
spec:
  containers:
    - name: jupyter
      image: quay.io/jupyter/pytorch-notebook:cuda12-2024-10-07
      resources:
        limits:  # <- GPU106
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  replicas: 1
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            limits:
              cpu: "4"
              memory: 32Gi
              nvidia.com/gpu: 1
```

## How to fix
Set `cpu` and `memory` limits on every GPU container (and keep any requests
equal to them); use whole CPUs (`"4"`, not `"3500m"`) so the CPU manager can
pin cores next to the GPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.kinds.table import api_group
from gpulint.model.values.gpu_resources import as_fraction
from gpulint.model.workloads.controllers import resources_replaced_by
from gpulint.model.workloads.probe import is_one_off_pod, is_probe_pod
from gpulint.rules.api import Container, Context, PodSpec, Report, Resource, Rule, Severity

rule = Rule(
    "GPU106",
    "gpu-container-resources-incomplete",
    Severity.WARNING,
    "A GPU pod is not Guaranteed: BestEffort (no CPU or memory set) or Burstable.",
    __doc__,
)


def _section(container: Container, name: str) -> dict[str, Any]:
    resources = container.data.get("resources")
    found = resources.get(name) if isinstance(resources, dict) else None
    return found if isinstance(found, dict) else {}


# Kinds whose admission webhook fills a missing cpu/memory request and limit with equal
# defaults (KServe's InferenceService defaulter: the inferenceservice-config resource defaults).
# Dynamo's operator filled cpu/memory defaults into every component before its v1beta1 rework
# (ai-dynamo/dynamo deploy/cloud/operator/internal/controller/
# dynamocomponentdeployment_controller.go getResourcesConfig: requests 300m/500Mi, limits
# 500m/1Gi) and fills none since: what the pod gets depends on the operator's release, so only
# what the manifest itself half-sets is judged.
DEFAULTED_BY_CONTROLLER = {
    ("serving.kserve.io", "InferenceService"),
    ("nvidia.com", "DynamoGraphDeployment"),
    ("nvidia.com", "DynamoComponentDeployment"),
}


def _defaulted(resource: Resource) -> bool:
    group = api_group(resource.api_version)
    return (group, resource.kind) in DEFAULTED_BY_CONTROLLER


def _problems(container: Container, defaulted: bool) -> tuple[list[str], list[str]]:
    """(missing entries, unequal request/limit pairs) for cpu and memory."""
    requests, limits = _section(container, "requests"), _section(container, "limits")
    missing, unequal = [], []
    for name in ("cpu", "memory"):
        if defaulted and name not in limits and name not in requests:
            continue
        if name not in limits:
            if name not in requests:
                missing.append(f"{name} request")
            missing.append(f"{name} limit")
            continue
        if name in requests:
            request, limit = as_fraction(requests[name]), as_fraction(limits[name])
            if request is not None and limit is not None and request != limit:
                unequal.append(f"{name} request {requests[name]} != limit {limits[name]}")
    return missing, unequal


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sets_cpu_or_memory(resources: Any) -> bool:
    if not isinstance(resources, dict):
        return False
    for part in ("requests", "limits"):
        values = resources.get(part)
        if isinstance(values, dict) and ("cpu" in values or "memory" in values):
            return True
    return False


def _best_effort(pod: PodSpec) -> bool:
    """No CPU or memory request or limit in the pod: the kubelet's QoS class BestEffort
    (pkg/apis/core/helper/qos: only cpu and memory count; pod-level resources too)."""
    if _sets_cpu_or_memory(pod.spec.get("resources")):
        return False
    return not any(
        _sets_cpu_or_memory(c.data.get("resources"))
        for c in pod.containers
        if c.section != "ephemeralContainer"
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    defaulted = _defaulted(resource)
    for pod in resource.pod_specs:
        if is_probe_pod(pod, resource):
            continue  # nvidia-smi or sleep: nothing to evict or starve
        best_effort = not defaulted and _best_effort(pod)
        yield from _pod_reports(resource, pod, defaulted, best_effort)


def _pod_reports(
    resource: Resource, pod: PodSpec, defaulted: bool, best_effort: bool
) -> Iterator[Report]:
    one_off = is_one_off_pod(resource)
    for container in pod.containers:
        if not container.gpus or is_infra_container(container):
            continue
        missing, unequal = _problems(container, defaulted)
        if not missing and not unequal:
            continue
        gpus = ", ".join(f"{n} {c}" for n, c in sorted(container.gpus.items()))
        what = []
        if missing:
            what.append(f"has no {_join(missing)}")
        if unequal:
            what.append(f"has {_join(unequal)}")
        replaced = resources_replaced_by(resource, container.name)
        warn = best_effort and not one_off and not replaced
        severity = Severity.WARNING if warn else Severity.NOTE
        if best_effort:
            message = (
                f"GPU container {container.name!r} ({gpus}): no container of the pod sets a CPU "
                "or memory request or limit, so the pod is BestEffort: the kubelet evicts it "
                "first under memory pressure and gives it the smallest CPU share"
            )
            if replaced:
                message += f" (unless {replaced} sets them: these are its defaults)"
            elif one_off:
                message += " (a one-off Pod: it matters if the run is long)"
        else:
            message = (
                f"GPU container {container.name!r} ({gpus}) {' and '.join(what)}; the pod is "
                "Burstable, not Guaranteed: it can be evicted when it uses more than it "
                "requests, and the CPU manager does not give it exclusive CPUs next to its GPUs"
            )
        yield Report(
            container.path + ("resources", "limits"),
            message,
            container=container.name,
            severity=severity,
        )
