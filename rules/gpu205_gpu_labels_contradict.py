"""
## What it checks
GPU labels that cannot all be true of one node, in a pod's `nodeSelector` plus
required node affinity (a pod is reported only when every affinity term is
impossible), or in a `Node` object's own labels:
- `nvidia.com/gpu.product` (or `cloud.google.com/gke-accelerator`) and
  `nvidia.com/gpu.memory` disagree, compared with a tolerance of 3% because
  nodes report less memory than the marketing size (an A100 80GB reports about
  81920 MiB, a T4 15360 or 15109);
- product and `nvidia.com/gpu.family`, or product and a `nvidia.com/gpu.count`
  of 0 (written only with a `-MIG-INVALID` product);
- a product that does not support MIG with labels that only MIG devices get
  (`nvidia.com/mig.capable: "true"`, `nvidia.com/mig-<profile>.*`,
  `cloud.google.com/gke-gpu-partition-size`, a `-MIG-<profile>` product), or a
  MIG profile the product does not offer, or a MIG-capable product with
  `nvidia.com/mig.capable: "false"`. (`nvidia.com/mig.strategy` is not among
  them: GPU feature discovery writes it on every node when the device plugin runs
  a MIG strategy.)
- two GPU labels that name different GPUs, or one GPU label required with values
  that exclude each other.
Only facts from gpulint's GPU catalog are used; an unknown product is left to
GPU206.

## Why it matters
No node carries contradictory labels, so the pod stays `Pending` forever with
`node(s) didn't match Pod's node affinity/selector`. The classic case is a stale
label: a selector written for `NVIDIA-A100-SXM4-40GB` nodes with
`nvidia.com/gpu.memory: 40960`, later moved to 80 GB nodes by changing only the
product. On a Node, contradicting labels mean hand-set labels that GPU feature
discovery does not manage have gone stale.

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
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
        nvidia.com/gpu.memory: "40960"  # <- GPU205
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 8
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-7
  labels:
    nvidia.com/gpu.product: Tesla-T4
    nvidia.com/gpu.family: ampere  # <- GPU205
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
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: nvidia.com/gpu.memory, operator: Gt, values: ["80000"]}
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 8
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-7
  labels:
    nvidia.com/gpu.product: Tesla-T4
    nvidia.com/gpu.memory: "15360"
    nvidia.com/gpu.family: turing
    nvidia.com/mig.strategy: single
```

## How to fix
Keep one source of truth: select the product alone (GPU feature discovery
writes memory, family and count consistently with it), or correct the label
that went stale. On a Node, remove hand-set GPU labels and let GPU feature
discovery write them.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.label_conflicts import contradictions
from gpulint.model.gpu.labels import requirements_from_labels
from gpulint.model.node_requirements import requirement_sets
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU205",
    "gpu-labels-contradict",
    Severity.ERROR,
    "The GPU labels a pod requires (or a Node carries) cannot hold together on any node.",
    __doc__,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind == "Node":
        for found in contradictions(requirements_from_labels(resource.labels)):
            yield Report(found.at.path, f"Node labels contradict: {found.message}")
        return
    for pod in resource.pod_specs:
        per_set = [contradictions(reqs) for reqs in requirement_sets(pod.spec)]
        if not per_set or not all(per_set):
            continue  # some term can be met
        seen = set()
        for found in (c for group in per_set for c in group):
            if found.at.path in seen:
                continue
            seen.add(found.at.path)
            yield Report(
                pod.path + found.at.path,
                f"{found.message}; no node matches, so the pod stays Pending "
                "(\"node(s) didn't match Pod's node affinity/selector\")",
            )
