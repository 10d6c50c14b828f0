"""
## What it checks
A pod template that requests GPUs but pins no GPU model: neither its
`nodeSelector` nor its required node affinity narrows nodes by a label that
names the GPU, such as `nvidia.com/gpu.product`, `nvidia.com/gpu.family`,
`nvidia.com/gpu.memory`, `nvidia.com/gpu.machine`,
`cloud.google.com/gke-accelerator`, `node.kubernetes.io/instance-type`,
`karpenter.k8s.aws/instance-gpu-name` or `eks.amazonaws.com/instance-gpu-name`
(a GKE node pool or an AKS agent pool counts: each has one machine type), or
a label of your own whose required values all name a GPU model
(`gpu-type: a100`).
Every affinity term must pin a model, since the scheduler may pick any term.
Preferred affinity does not count; a scheduler annotation that picks the GPU
type (HAMi's `nvidia.com/use-gputype`) does. Pods that request only MIG devices
(`nvidia.com/mig-<profile>`) already name their slice and are left alone, as are
pods bound to one node by `nodeName`, GPU infrastructure, and the pods meant
to run on any GPU: DaemonSets (a DaemonSet runs on every node it may) and
probes, whose GPU containers only probe the GPU or wait (`nvidia-smi`, a CUDA
sample such as `vectorAdd`, `sleep`, a Python GPU check script such as
`python check_cuda.py`; an MPI worker that only runs `sshd` is what its
launcher's `mpirun` runs there).

Needs: `gpu-models`, that the cluster has more than one GPU model: two GPU
Nodes or Karpenter NodePools (in the run or `--cluster`) that name different
models, or `gpu-models` in the `cluster:` section of `.gpulint.yaml`. Where the
profile knows a single model, nothing is reported; where it knows none, the
findings are held back and counted.

## Why it matters
`nvidia.com/gpu: 1` means "any GPU". In a cluster with several GPU models the
same workload lands on a T4 one day and an H100 the next: throughput varies by
an order of magnitude, a model that fits in 80 GB runs out of memory on 16 GB,
and kernels built for one compute capability fail on another. Selecting
`nvidia.com/gpu.present` only says that the node has some GPU.

## Failing example
```yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-gpu-name
          operator: In
          values: [a10g, l40s]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      nodeSelector:
        nvidia.com/gpu.present: "true"
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            limits:
              nvidia.com/gpu: 1  # <- GPU201
```

## Passing example
```yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-gpu-name
          operator: In
          values: [a10g, l40s]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          resources:
            limits:
              nvidia.com/gpu: 1
```

## How to fix
Add a node selector (or a required node affinity `In` expression) on the label
your nodes carry for the GPU model: `nvidia.com/gpu.product` where GPU feature
discovery runs, `cloud.google.com/gke-accelerator` on GKE,
`karpenter.k8s.aws/instance-gpu-name` or `node.kubernetes.io/instance-type` on
EKS. To accept several models on purpose, list them with `operator: In`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.cluster_profile import MODELS
from gpulint.model.gpu.access import first_gpu_limit, model_annotation, vendor_of
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.gpu.labels import is_gpu_label, pins_model
from gpulint.model.node_requirements import requirement_sets
from gpulint.model.values.gpu_resources import is_mig_resource
from gpulint.model.workloads.probe import is_probe_pod
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

# The labels to suggest, by GPU vendor (GFD and GKE; AMD's labeller; Intel's NFD rules).
_ADVICE = {
    "nvidia": "nvidia.com/gpu.product, cloud.google.com/gke-accelerator",
    "amd": "amd.com/gpu.family, amd.com/gpu.device-id",
    "intel": "gpu.intel.com/product",
}

rule = Rule(
    "GPU201",
    "gpu-node-selection-missing",
    Severity.WARNING,
    "A GPU workload selects no GPU model; in a mixed pool it lands on any GPU.",
    __doc__,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    models = ctx.profile.gpu_models
    if models is not None and len(models) < 2:
        return  # one GPU model in the cluster: any GPU is that one
    if resource.kind == "DaemonSet":
        return  # it runs on every node it may: a GPU probe or agent means any GPU
    needs = () if models else (MODELS,)
    mixed = f" (the cluster has {', '.join(sorted(models))})" if models else ""
    for pod in resource.pod_specs:
        gpus = pod.effective_gpus
        if not gpus or all(is_mig_resource(name) for name in gpus) or is_infra_pod(pod):
            continue
        if is_probe_pod(pod, resource):
            continue  # nvidia-smi, vectorAdd or sleep: meant to run on any GPU
        if pod.spec.get("nodeName"):
            continue  # bound to one node: its GPU is whatever that node has
        sets = requirement_sets(pod.spec)
        if all(any(pins_model(req) for req in reqs) for reqs in sets) or model_annotation(pod):
            continue
        anchor = first_gpu_limit(pod)
        if anchor is None:
            continue
        path, container, name, count = anchor
        presence = sorted({r.key for reqs in sets for r in reqs if is_gpu_label(r.key)})
        why = f"; {', '.join(presence)} only says the node has a GPU, not which" if presence else ""
        partly = " in every affinity term" if len(sets) > 1 else ""
        labels = _ADVICE.get(vendor_of(name) or "nvidia", _ADVICE["nvidia"])
        yield Report(
            path,
            f"{name}: {count} with no GPU model selected{partly}{why}: the pod can land on "
            f"any GPU in the cluster{mixed}; select one with {labels} or "
            "node.kubernetes.io/instance-type",
            container=container,
            needs=needs,
        )
