"""
## What it checks
A pod template that requests no GPU but can only run on GPU nodes: its
`nodeSelector`, or every term of its required node affinity, requires a label
that only GPU nodes carry (`nvidia.com/gpu.product`, `nvidia.com/gpu.present`,
`cloud.google.com/gke-accelerator`, `karpenter.k8s.aws/instance-gpu-name`,
`feature.node.kubernetes.io/pci-10de.present` and the like) with `In`, `Exists`
or `Gt`. Selecting such a label with `DoesNotExist`, `NotIn` or a `false` value
keeps pods away from GPU nodes and is fine. Pods that get a GPU through a
Dynamic Resource Allocation claim, a GPU-share annotation or a GPU-sharing
resource are not reported; DaemonSets and GPU infrastructure are exempt.

## Why it matters
A pod pinned to GPU nodes without requesting a GPU either stays `Pending`
(GPU nodes are tainted and it has no toleration) or, once it tolerates the
taint, occupies a GPU node without using its GPUs. Often the GPU limit was
simply forgotten, and the process then finds no GPU at run time.

## Failing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: preprocess
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4  # <- GPU204
      containers:
        - name: tokenize
          image: ghcr.io/example/tokenize:2.0.1
          resources:
            limits:
              cpu: "4"
              memory: 8Gi
```

## Passing example
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: preprocess
spec:
  template:
    spec:
      restartPolicy: Never
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - key: nvidia.com/gpu.present
                    operator: DoesNotExist
      containers:
        - name: tokenize
          image: ghcr.io/example/tokenize:2.0.1
          resources:
            limits:
              cpu: "4"
              memory: 8Gi
```

## How to fix
If the container needs a GPU, add `nvidia.com/gpu` to its `resources.limits`.
If it does not, remove the GPU node selector or affinity.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.access import other_gpu_use
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.gpu.labels import gpu_node_pin
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU204",
    "gpu-node-selected-without-gpu",
    Severity.WARNING,
    "A workload that requests no GPU can only run on GPU nodes.",
    __doc__,
    pods_only=True,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind == "DaemonSet":
        return
    for pod in resource.pod_specs:
        if pod.requests_gpu or is_infra_pod(pod) or other_gpu_use(pod):
            continue
        req = gpu_node_pin(pod.spec)
        if req is not None:
            shown = req.key if req.operator != "In" else f"{req.key}={'|'.join(req.values)}"
            yield Report(
                pod.path + req.path,
                f"requires GPU nodes ({shown}) but requests no GPU: it stays Pending behind the "
                "GPU taint or occupies a GPU node without using it; add a GPU limit or drop "
                "the selector",
            )
