"""
## What it checks
A pod template that requests no GPU but tolerates the GPU taint: a toleration on
a GPU taint key (`nvidia.com/gpu` by default, configurable), or a key-less
`operator: Exists` that tolerates every taint, with effect `NoSchedule` or no
effect. Pods that get a GPU some other way are not reported: a Dynamic Resource
Allocation claim, a GPU-share annotation (`gpu-fraction`, `gpu-memory`) or a
GPU-sharing resource (`nvidia.com/gpumem`, `volcano.sh/vgpu-number`...). Nor
are pods that request an accelerator that is not a GPU (`aws.amazon.com/neuron`,
`habana.ai/gaudi`, `google.com/tpu`): they fit only nodes that advertise it, and
tolerate every taint to get past those nodes' own.
DaemonSets (which must run on every node) and GPU infrastructure are exempt, and
so is a pod that also requires GPU nodes: GPU204 reports that one root cause
(a pod aimed at GPU nodes without a GPU limit) once.

Needs: `gpu-taints`, that GPU nodes are tainted (a GPU Node or Karpenter
NodePool with the taint, in the run or `--cluster`; the `cluster:` section of
`.gpulint.yaml`; or a GKE cluster, known from `provider: gke` or GKE Nodes).
Where GPU nodes are known to be untainted there is nothing to tolerate;
without the fact the findings are held back.

## Why it matters
The GPU taint is what keeps CPU-only pods off GPU nodes. A pod that tolerates it
without using a GPU can be packed onto a GPU node, taking CPU and memory the GPU
pods there need, and keeping an expensive node from scaling down.

## Failing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-0
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      tolerations:
        - key: nvidia.com/gpu  # <- GPU203
          operator: Exists
          effect: NoSchedule
        - operator: Exists  # <- GPU203
      containers:
        - name: api
          image: ghcr.io/example/api:1.4.2
          resources:
            limits:
              cpu: "1"
              memory: 1Gi
```

## Passing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-0
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      tolerations:
        - key: node.kubernetes.io/not-ready
          operator: Exists
          effect: NoExecute
          tolerationSeconds: 60
      containers:
        - name: api
          image: ghcr.io/example/api:1.4.2
          resources:
            limits:
              cpu: "1"
              memory: 1Gi
```

## How to fix
Remove the toleration from workloads that do not use a GPU. If the pod really
must run on GPU nodes (a node agent), make it a DaemonSet; a key-less
`operator: Exists` is rarely what a Deployment needs.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.cluster_profile import taint_keys
from gpulint.model.gpu.access import other_accelerator, other_gpu_use
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.gpu.labels import gpu_node_pin
from gpulint.model.node_requirements import tolerations
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU203",
    "gpu-taint-tolerated-without-gpu",
    Severity.WARNING,
    "A workload that requests no GPU tolerates the GPU taint and can take GPU nodes.",
    __doc__,
    pods_only=True,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind == "DaemonSet":
        return
    keys, needs = taint_keys(ctx.profile, tuple(ctx.settings.gpu_taint_keys))
    if not keys:
        return  # the profile says GPU nodes are not tainted: nothing to tolerate
    for pod in resource.pod_specs:
        if pod.requests_gpu or is_infra_pod(pod) or other_gpu_use(pod):
            continue
        if other_accelerator(pod) is not None:
            continue  # it fits only nodes that advertise that accelerator, never a GPU node
        if gpu_node_pin(pod.spec) is not None:
            continue  # one root cause, one finding: GPU204 reports the GPU-node selection
        for toleration in tolerations(pod.spec):
            if toleration.effect not in (None, "NoSchedule"):
                continue
            if toleration.key is None and toleration.operator == "Exists":
                what = "tolerates every taint (a toleration without a key, operator Exists)"
            elif toleration.key in keys:
                what = f"tolerates the GPU taint {toleration.key}"
            else:
                continue
            yield Report(
                pod.path + toleration.path,
                f"requests no GPU but {what}: it can be scheduled onto GPU nodes and take "
                "their CPU and memory from GPU pods",
                needs=needs,
            )
