"""
## What it checks
A GPU **server** whose pod sets no CPU or memory request or limit in any container
(nor pod-level `resources`): the pod is **BestEffort**. What a pod is for is read from
what it runs (`gpulint/model/workloads/purpose.py`): a server runs a model server (vLLM,
SGLang, TGI, Triton, Ollama, `trtllm-serve`, `llama-server`, TorchServe, TF Serving,
LMDeploy, a NIM image) or is kept running by its kind to serve (Deployment, StatefulSet,
LeaderWorkerSet, InferenceService, RayService...), or exposes ports or a readiness probe.
One finding per pod, at its first GPU container.

Left alone by default, because what eviction costs them depends on what they are for:
batch runs (Jobs, training jobs, bare Pods; the option `batch: true` reports them too),
benchmarks and cluster tests (`gpu_burn`, the nccl-tests binaries, `dcgmproftester`),
probes (`nvidia-smi`, a CUDA sample, `sleep`, the `pause` image, a GPU check script),
pods whose GPU images are loaded by hand into a development cluster (all
`imagePullPolicy: Never`), and pod templates found by shape in kinds gpulint does not
know (a part the operator completes, which may set the resources). **Burstable** pods (a
cpu or memory limit missing, or unequal to its request) are reported as notes only with
the option `burstable: true`. For a KServe `InferenceService`, whose webhook fills a cpu or
memory left out entirely with equal default request and limit, nothing is BestEffort; nor
is a Knative `Service`'s pod, to which Knative Serving adds a `queue-proxy` sidecar that
requests CPU (25m by default): it is Burstable.

Whatever the pod is for: a training job that scales on CPU or memory utilization (a
PyTorchJob's `elasticPolicy.metrics`) while its GPU containers request none of that
resource cannot autoscale (the autoscaler divides usage by the request).

## Why it matters
A BestEffort pod is the first the kubelet evicts under memory pressure, and its CPU
share is the smallest: a server holding GPUs dies or starves while it serves, and its
replacement reloads the model. A Burstable pod is evicted after BestEffort ones, and
only when it uses more than it requested; only a Guaranteed pod (every container's CPU
and memory limits equal to its requests) gets exclusive CPUs on the GPU's NUMA node from
the CPU manager's static policy, which not every cluster runs. An autoscaler reads a
resource's utilization as usage over request: with no request there is none, and the
HorizontalPodAutoscaler reports `missing request for cpu` and does not scale.

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
      ports:
        - containerPort: 8888
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
from gpulint.model.workloads.purpose import Purpose, local_images_only, pod_purpose
from gpulint.rules.api import (
    Container,
    Context,
    Option,
    PodSpec,
    Report,
    Resource,
    Rule,
    Severity,
)

rule = Rule(
    "GPU106",
    "gpu-container-resources-incomplete",
    Severity.WARNING,
    "A GPU server runs BestEffort (no CPU or memory set), or a GPU job cannot autoscale.",
    __doc__,
    options=(
        Option(
            "batch",
            bool,
            False,
            "Report BestEffort batch runs too (jobs, training, bare Pods), not only servers.",
        ),
        Option(
            "burstable",
            bool,
            False,
            "Report Burstable GPU pods as notes (a cpu or memory limit missing or unequal "
            "to its request): advice that pays off with the kubelet's static CPU manager.",
        ),
    ),
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


# Kinds whose pods a controller gives a container with a CPU request of its own: Knative
# Serving adds its queue-proxy sidecar to every revision's pod, requesting 25m of CPU unless
# `config-deployment` sets another (Knative docs, "Configure Deployment resources"), so the
# pod is Burstable whatever its own containers set.
GIVEN_A_REQUESTING_SIDECAR = {
    ("serving.knative.dev", "Service"),
    ("serving.knative.dev", "Configuration"),
    ("serving.knative.dev", "Revision"),
}


def _defaulted(resource: Resource) -> bool:
    group = api_group(resource.api_version)
    return (group, resource.kind) in DEFAULTED_BY_CONTROLLER


def _given_a_sidecar(resource: Resource) -> bool:
    return (api_group(resource.api_version), resource.kind) in GIVEN_A_REQUESTING_SIDECAR


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
    if resource.generic:
        return  # a pod template found by its shape may be a part its operator completes
    defaulted = _defaulted(resource)
    yield from _unscalable(resource)
    for pod in resource.pod_specs:
        purpose = pod_purpose(resource, pod)
        if purpose in (Purpose.PROBE, Purpose.BENCHMARK) or local_images_only(pod):
            continue  # nothing to evict or starve that matters; a development cluster
        if purpose is Purpose.BATCH and not ctx.option(rule, "batch"):
            continue
        best_effort = not defaulted and not _given_a_sidecar(resource) and _best_effort(pod)
        if best_effort:
            yield from _best_effort_report(resource, pod, purpose)
        elif ctx.option(rule, "burstable"):
            yield from _burstable_reports(resource, pod, defaulted)


def _gpu_holders(pod: PodSpec) -> list[Container]:
    return [c for c in pod.containers if c.gpus and not is_infra_container(c)]


def _best_effort_report(resource: Resource, pod: PodSpec, purpose: Purpose) -> Iterator[Report]:
    """One finding for the pod, at its first GPU container that runs its work (an app
    container or a sidecar; an init container when only init containers hold GPUs)."""
    holders = _gpu_holders(pod)
    if not holders:
        return
    working = [c for c in holders if not c.is_init or c.is_sidecar]
    first = (working or holders)[0]
    gpus = ", ".join(f"{n} {c}" for n, c in sorted(first.gpus.items()))
    replaced = resources_replaced_by(resource, first.name)
    what = "a server" if purpose is Purpose.SERVICE else "a batch run"
    message = (
        f"GPU container {first.name!r} ({gpus}): no container of the pod sets a CPU "
        f"or memory request or limit, so the pod ({what}) is BestEffort: the kubelet evicts it "
        "first under memory pressure and gives it the smallest CPU share"
    )
    if replaced:
        message += f" (unless {replaced} sets them: these are its defaults)"
    yield Report(
        first.path + ("resources", "limits"),
        message,
        container=first.name,
        severity=Severity.NOTE if replaced else None,
    )


def _burstable_reports(resource: Resource, pod: PodSpec, defaulted: bool) -> Iterator[Report]:
    for container in _gpu_holders(pod):
        missing, unequal = _problems(container, defaulted)
        if not missing and not unequal:
            continue
        gpus = ", ".join(f"{n} {c}" for n, c in sorted(container.gpus.items()))
        what = []
        if missing:
            what.append(f"has no {_join(missing)}")
        if unequal:
            what.append(f"has {_join(unequal)}")
        yield Report(
            container.path + ("resources", "limits"),
            f"GPU container {container.name!r} ({gpus}) {' and '.join(what)}; the pod is "
            "Burstable, not Guaranteed: it can be evicted when it uses more than it "
            "requests, and the CPU manager does not give it exclusive CPUs next to its GPUs",
            container=container.name,
            severity=Severity.NOTE,
        )


def _unscalable(resource: Resource) -> Iterator[Report]:
    """A training job that scales on CPU or memory utilization (a PyTorchJob's
    ``elasticPolicy.metrics``, an HPA's resource metrics) whose containers do not request
    that resource: the HPA cannot compute a utilization and never scales."""
    spec = resource.obj.get("spec")
    policy = spec.get("elasticPolicy") if isinstance(spec, dict) else None
    metrics = policy.get("metrics") if isinstance(policy, dict) else None
    if not isinstance(metrics, list):
        return
    holders = [c for pod in resource.pod_specs for c in _gpu_holders(pod)]
    for index, metric in enumerate(metrics):
        target = metric.get("resource") if isinstance(metric, dict) else None
        name = target.get("name") if isinstance(target, dict) else None
        if name not in ("cpu", "memory"):
            continue
        for container in holders:
            if name not in _section(container, "requests") and name not in _section(
                container, "limits"
            ):
                yield Report(
                    ("spec", "elasticPolicy", "metrics", index, "resource", "name"),
                    f"elasticPolicy scales on {name} utilization, but GPU container "
                    f"{container.name!r} requests no {name}: the autoscaler cannot compute a "
                    f"utilization and never scales the job; set {name} requests",
                    container=container.name,
                    at="value",
                )
                break  # one finding per metric
