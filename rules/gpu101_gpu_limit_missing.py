"""
## What it checks
A container (init and ephemeral containers included) that lists a GPU resource
(`nvidia.com/gpu`, `nvidia.com/gpu.shared`, `nvidia.com/mig-<profile>`,
`amd.com/gpu`, `gpu.intel.com/*`) under `resources.requests` but not under
`resources.limits`.

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

from gpulint.fix import helpers
from gpulint.model import shapes
from gpulint.model.gpu import gpu_entries
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU101",
    "gpu-limit-missing",
    Severity.ERROR,
    "A GPU resource is requested without a limit; the API server rejects the pod.",
    __doc__,
    fix="safe",
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        requests = gpu_entries(container.data, "requests")
        limits = gpu_entries(container.data, "limits")
        if shapes.malformed(container.data, "resources", "limits"):
            continue  # GPU011 reports the limits that cannot be decoded: one cause, one finding
        for name in requests:
            if name not in limits:
                yield Report(
                    container.path + ("resources", "requests", name),
                    f"{name} is requested ({requests[name]}) but has no limit; "
                    "the API server rejects the pod: "
                    '"Limit must be set for non overcommitable resources"',
                    container=container.name,
                    fix=helpers.copy_request_to_limit(container.path, name, requests[name]),
                )
