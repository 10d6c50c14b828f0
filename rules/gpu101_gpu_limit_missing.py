"""
## What it checks
A container (init and ephemeral containers included) that lists a GPU resource
(`nvidia.com/gpu`, `nvidia.com/gpu.shared`, `nvidia.com/mig-<profile>`,
`amd.com/gpu`, `gpu.intel.com/*`) under `resources.requests` but not under
`resources.limits`.

A KServe `InferenceService` whose predictor `model` names its `runtime`, and the
`ServingRuntime` (or `ClusterServingRuntime`) of that name in the same deployable unit, are
judged together: KServe builds the pod's container by merging the `model` container over the
runtime's (a strategic merge: `requests` and `limits` merge key by key), so a limit set in either
half covers a request in the other. The runtime is reported when no InferenceService of the unit
uses it, or when one that does still leaves the request without a limit; an InferenceService
whose own request has a limit in neither half is reported instead of the runtime (its value wins
the merge: one container, one finding). Without the partner in the run each half is
judged alone. These merged findings carry no `--fix`.

## Why it matters
GPUs are extended resources, which Kubernetes never overcommits. The API server
rejects the pod with `Limit must be set for non overcommitable resources`; a
Deployment or Job then creates no pods at all and only its events say why.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1  # <- GPU101
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Set the GPU count under `resources.limits`. A limit alone is enough: Kubernetes
copies it into the request. If you keep the request, it must equal the limit.
`gpulint check --fix` copies the request into `limits` (a safe fix: the API
server accepts only that value).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.values import shapes
from gpulint.model.values.gpu_resources import gpu_entries
from gpulint.model.workloads.kserve import is_merged_runtime_container, runtime_named
from gpulint.rules.api import (
    Anchor,
    Container,
    Context,
    FixSafety,
    Report,
    Resource,
    Rule,
    Severity,
    record,
)
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU101",
    "gpu-limit-missing",
    Severity.ERROR,
    "A GPU resource is requested without a limit; the API server rejects the pod.",
    __doc__,
    fix=FixSafety.SAFE,
    pods_only=True,
)


REJECTED = 'the API server rejects the pod: "Limit must be set for non overcommitable resources"'


def _paired(resource: Resource, container: Container) -> bool:
    """A half of a KServe predictor container: judged with its partner by the finalizer."""
    return runtime_named(resource, container) is not None or is_merged_runtime_container(
        resource, container
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        requests = gpu_entries(container.data, "requests")
        limits = gpu_entries(container.data, "limits")
        if shapes.malformed(container.data, "resources", "limits"):
            continue  # GPU011 reports the limits that cannot be decoded: one cause, one finding
        if _paired(resource, container):
            continue  # the finalizer judges the merged container
        for name in requests:
            if name not in limits:
                yield Report(
                    container.path + ("resources", "requests", name),
                    f"{name} is requested ({requests[name]}) but has no limit; {REJECTED}",
                    container=container.name,
                    fix=builders.copy_request_to_limit(container.path, name, requests[name]),
                )


@record(frozen=True, slots=True)
class Half:
    """One half of a KServe predictor container: its GPU requests (with places) and limits."""

    runtime: bool  # a ServingRuntime/ClusterServingRuntime container, else an isvc's model
    cluster: bool  # a ClusterServingRuntime (no namespace)
    name: str  # the runtime's name, or the runtime the InferenceService names
    namespace: str | None
    label: str  # "ServingRuntime vllm", "InferenceService llm"
    requests: tuple[tuple[str, str, Anchor], ...]
    limits: frozenset[str]
    anchor: Anchor  # the container, for related places


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found = []
    for container in resource.containers:
        if not _paired(resource, container):
            continue
        if shapes.malformed(container.data, "resources", "limits"):
            continue
        requests = gpu_entries(container.data, "requests")
        limits = gpu_entries(container.data, "limits")
        runtime = is_merged_runtime_container(resource, container)
        places = tuple(
            (
                name,
                str(value),
                ctx.anchor(
                    resource, container.path + ("resources", "requests", name), container.name
                ),
            )
            for name, value in requests.items()
        )
        found.append(
            Half(
                runtime,
                resource.kind == "ClusterServingRuntime",
                resource.name if runtime else str(runtime_named(resource, container)),
                resource.namespace,
                f"{resource.kind} {resource.name}",
                places,
                frozenset(limits),
                ctx.anchor(resource, container.path, container.name),
            )
        )
    return found


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    runtimes = {
        (h.cluster, None if h.cluster else h.namespace, h.name): h for h in found if h.runtime
    }
    users: dict[tuple, list[Half]] = {key: [] for key in runtimes}
    for isvc in (h for h in found if not h.runtime):
        # The InferenceService's namespace first, then the cluster-wide runtime (GetServingRuntime).
        key = next(
            (
                k
                for k in ((False, isvc.namespace, isvc.name), (True, None, isvc.name))
                if k in runtimes
            ),
            None,
        )
        partner = runtimes[key] if key is not None else None
        if key is not None:
            users[key].append(isvc)
        for name, value, anchor in isvc.requests:
            if name in isvc.limits or (partner is not None and name in partner.limits):
                continue
            if partner is None:
                yield Report.placed(
                    anchor, f"{name} is requested ({value}) but has no limit; {REJECTED}"
                )
                continue
            yield Report.placed(
                anchor,
                f"{name} is requested ({value}) but has no limit, neither here nor in "
                f"{partner.label}, whose container KServe merges this one into; {REJECTED}",
                [(partner.anchor, f"{partner.label}: the runtime container, no {name} limit")],
            )
    for key, using in users.items():
        runtime = runtimes[key]
        for name, value, anchor in runtime.requests:
            if name in runtime.limits:
                continue
            short = [u for u in using if name not in u.limits]
            if using and not short:
                continue  # every InferenceService of the run that uses it sets the limit
            # One finding for one merged container: an InferenceService requesting it too is
            # reported itself (its value wins the merge), naming this runtime.
            short = [u for u in short if name not in {r[0] for r in u.requests}]
            if using and not short:
                continue
            if not using:
                yield Report.placed(
                    anchor, f"{name} is requested ({value}) but has no limit; {REJECTED}"
                )
                continue
            yield Report.placed(
                anchor,
                f"{name} is requested ({value}) but has no limit, and {short[0].label}, which "
                f"runs on this runtime, sets none either; {REJECTED}",
                [(short[0].anchor, f"{short[0].label}: its model container, no {name} limit")],
            )
