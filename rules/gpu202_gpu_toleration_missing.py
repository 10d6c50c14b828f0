"""
## What it checks
A pod template that requests GPUs but tolerates no GPU taint: no toleration on
a GPU taint key (`nvidia.com/gpu` by default; the GPU taint keys are a
setting of the configuration file, for clusters that taint GPU nodes differently,
and tolerating any one of them is enough; a vendor's key such as `nvidia.com/gpu`
concerns only pods that request that vendor's GPUs) with effect `NoSchedule` or
no effect, and no key-less `operator: Exists`. A toleration keyed on a MIG resource name
(`nvidia.com/mig-1g.10gb`) does not count: GPU nodes are tainted on
`nvidia.com/gpu`, whatever MIG strategy they run. GPU infrastructure is left alone
(GPU207 covers it), and so is a pod bound to a node by `nodeName`, which the
scheduler and its `NoSchedule` check never see. A RuntimeClass in the run adds
its `scheduling.tolerations` to the pods whose `runtimeClassName` names it, as
the RuntimeClass admission plugin does.

Needs: `gpu-taints`, that the GPU nodes are tainted and with which keys: from
`--cluster` Nodes, GPU Nodes or Karpenter NodePools in the run (every kind of
GPU node must carry the taint: an untainted one takes any pod), the
`cluster:` section of `.gpulint.yaml`, or GKE (which taints GPU nodes with
`nvidia.com/gpu`). Without it the findings are held back and counted.

Clusters whose API server runs the `ExtendedResourceToleration` admission plugin
get the toleration added to every pod for each extended resource it requests:
GKE and EKS do (EKS enables it in every platform version), so a pod that selects
`cloud.google.com/gke-*` labels, or any GPU pod of a run whose provider is GKE or
EKS (an EKS Karpenter NodePool, EKS node labels), is left alone; elsewhere say
`extended-resource-toleration: true` in the `cluster:` section (and `false`
where a provider's default does not hold).
The plugin names the toleration after the resource, so a pod that requests only
`nvidia.com/mig-*` resources is still reported when the taint is on
`nvidia.com/gpu`. A workload queued to Kueue (`kueue.x-k8s.io/queue-name`) is
left alone too: Kueue adds its ResourceFlavor's tolerations when it admits it
(the controllers table, `gpulint/model/workloads/controllers.py`).

## Why it matters
GPU nodes are tainted so that ordinary pods stay off them. A GPU pod without the
toleration can go nowhere: it stays `Pending` with
`0/N nodes are available: N node(s) had untolerated taint {nvidia.com/gpu: present}`
(or `Insufficient nvidia.com/gpu` from the untainted nodes).

## Failing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-1
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
status:
  capacity:
    nvidia.com/gpu: "8"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
      tolerations:  # <- GPU202
        - key: nvidia.com/mig-1g.10gb
          operator: Exists
          effect: NoSchedule
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
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
        limits:
          nvidia.com/gpu: 1  # <- GPU202
```

## Passing example
```yaml
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-1
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
spec:
  taints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
status:
  capacity:
    nvidia.com/gpu: "8"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: notebook
spec:
  nodeSelector:
    cloud.google.com/gke-accelerator: nvidia-l4
  containers:
    - name: jupyter
      image: quay.io/jupyter/pytorch-notebook:cuda12-2024-10-07
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Add `{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}` to the pod
template's `tolerations` (use your cluster's taint key if it differs), or enable
the `ExtendedResourceToleration` admission plugin and say so in the `cluster:`
section of gpulint's configuration file.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.cluster_profile import taint_keys
from gpulint.model.gpu.access import first_gpu_limit, taint_keys_for, vendor_of
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.node_requirements import label_requirements, tolerates_key, tolerations
from gpulint.model.values.gpu_resources import is_mig_resource
from gpulint.model.workloads.controllers import Adds, controller_adding
from gpulint.rules.api import Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU202",
    "gpu-toleration-missing",
    Severity.WARNING,
    "A GPU workload does not tolerate the GPU taint; it stays Pending on tainted GPU nodes.",
    __doc__,
    pods_only=True,
)


def tolerations_list(spec: dict) -> list:
    items = spec.get("tolerations")
    return items if isinstance(items, list) else []


def _on_gke(spec: dict) -> bool:
    """Whether the pod's own required selectors put it on GKE nodes (GKE adds the toleration)."""
    return any(
        r.key.startswith("cloud.google.com/gke-") and r.operator in ("In", "Exists")
        for r in label_requirements(spec)
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    profile = ctx.profile
    configured, needs = taint_keys(profile, tuple(ctx.settings.gpu_taint_keys))
    # ExtendedResourceToleration adds {key: <resource>, operator: Exists} per resource.
    auto = bool(profile.extended_resource_toleration or ctx.settings.extended_resource_toleration)
    for pod in resource.pod_specs:
        gpus = pod.effective_gpus
        if not gpus or is_infra_pod(pod) or pod.spec.get("nodeName"):
            continue  # (a pod bound by nodeName skips the scheduler and its NoSchedule check)
        if _on_gke(pod.spec):
            continue
        keys = taint_keys_for({vendor_of(n) for n in gpus}, configured)
        if not keys:
            continue
        # A RuntimeClass's scheduling.tolerations are merged into the pods that name it.
        added = profile.runtime_class_tolerations(pod.spec.get("runtimeClassName"))
        spec = {"tolerations": [*tolerations_list(pod.spec), *added]} if added else pod.spec
        if any(tolerates_key(spec, key) for key in keys):
            continue
        if controller_adding(resource, Adds.TOLERATIONS, pod) is not None:
            continue  # Kueue adds its ResourceFlavor's tolerations on admission
        if auto and any(key in gpus for key in keys):
            continue
        items = tolerations(pod.spec)
        mig = sorted({t.key for t in items if t.key and is_mig_resource(t.key)})
        taint = " or ".join(keys)
        note = (
            f"; the toleration on {', '.join(mig)} does not count: the taint is on {taint}"
            if mig
            else ""
        )
        held = ", ".join(f"{name}: {count}" for name, count in sorted(gpus.items()))
        message = (
            f"requests {held} but does not tolerate the GPU taint {taint}{note}; on tainted GPU "
            f'nodes the pod stays Pending ("node(s) had untolerated taint {{{keys[0]}: ...}}")'
        )
        if isinstance(pod.spec.get("tolerations"), list):
            yield Report(pod.path + ("tolerations",), message, needs=needs)
            continue
        anchor = first_gpu_limit(pod)
        if anchor is not None:
            yield Report(anchor[0], message, container=anchor[1], needs=needs)
