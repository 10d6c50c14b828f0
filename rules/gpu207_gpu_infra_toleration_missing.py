"""
## What it checks
A DaemonSet of GPU infrastructure (device plugin, GPU feature discovery, DCGM
exporter, the GPU Operator's components, node feature discovery, AMD and Intel
plugins; recognised by image) whose pod template does not tolerate the GPU taint
(`nvidia.com/gpu` by default; with several GPU taint keys configured, each one
must be tolerated, since the DaemonSet has to run on every GPU node; an AMD or
Intel plugin is not expected to tolerate NVIDIA's `nvidia.com/gpu`). A key-less
`operator: Exists` tolerates everything and is enough.

Reads `gpu-taints`, whether GPU nodes are tainted and with which keys (from a
GPU Node or Karpenter NodePool with the taint, in the run or `--cluster`; the
`cluster:` section of `.gpulint.yaml`; or a GKE cluster, known from
`provider: gke` or GKE Nodes), or else another GPU infrastructure DaemonSet
of the run that tolerates the key by name: the run's own infrastructure then
expects the taint, and this one is the odd one out. Where the run says
nothing, an NVIDIA component is judged against `nvidia.com/gpu`, the taint a
cluster that taints its GPU nodes most likely carries: GKE adds it to the GPU
node pools of a cluster that also runs other node pools (GKE documentation,
"Run GPUs in GKE Standard node pools": "GKE automatically taints the GPU
nodes", key `nvidia.com/gpu`, effect `NoSchedule`), NVIDIA's
device plugin chart and the GPU Operator tolerate it by default
(`deployments/helm/nvidia-device-plugin/values.yaml`, the operator's
`daemonsets.tolerations`), and Karpenter's and EKS's GPU examples taint with
it. Most clusters do not taint GPU nodes at all (EKS managed node groups,
kubeadm, k3s; AKS documents `sku=gpu`), so that case is a note, which says
the taint is assumed; `cluster: gpu-taints: []` says GPU nodes are untainted
(nothing is then reported), and a DaemonSet that tolerates a taint of its own
(a key outside Kubernetes' `*.kubernetes.io/` taints, such as AKS's `sku`) is
taken to know its cluster's GPU taint. Other vendors' keys are held back
without the facts.

## Why it matters
GPU nodes are tainted so that only pods that ask for them land there. A device
plugin that does not tolerate the taint never runs on those nodes: they
advertise no `nvidia.com/gpu`, and every GPU pod stays `Pending` with
`Insufficient nvidia.com/gpu` while the nodes sit idle. NVIDIA's own chart and
the GPU Operator tolerate `nvidia.com/gpu` with `operator: Exists`.

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
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      tolerations:  # <- GPU207
        - key: CriticalAddonsOnly
          operator: Exists
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.0
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
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      tolerations:
        - key: CriticalAddonsOnly
          operator: Exists
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.0
```

## How to fix
Add `{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}` (or your
cluster's GPU taint key) to the DaemonSet's pod template.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.cluster_profile import taint_keys
from gpulint.model.gpu.access import image_vendor, taint_keys_for
from gpulint.model.gpu.infra import is_infra_pod
from gpulint.model.node_requirements import own_taint_tolerated, tolerates_key
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU207",
    "gpu-infra-toleration-missing",
    Severity.WARNING,
    "A GPU infrastructure DaemonSet does not tolerate the GPU taint; it never runs on GPU nodes.",
    __doc__,
    reads=mentions("DaemonSet"),  # it checks DaemonSets only
)


NVIDIA_TAINT = "nvidia.com/gpu"
ASSUMED = (
    "GKE taints GPU node pools nvidia.com/gpu, and NVIDIA's device plugin chart and GPU "
    "Operator tolerate it by default; if your GPU nodes are untainted, say so with "
    "cluster: gpu-taints: [] in .gpulint.yaml"
)


# What a node misses when a component never runs there, by a word of its name or image.
_CONSEQUENCE = (
    ("feature-discovery", "they get no GPU labels from it"),
    ("dcgm", "their GPUs export no metrics"),
    ("mig-manager", "their MIG layout is never applied"),
    ("device-plugin", "they then advertise no GPUs"),
    ("gpu-plugin", "they then advertise no GPUs"),
)


def _consequence(resource: Resource, images: list[str]) -> str:
    text = " ".join([resource.name, *images]).lower()
    # GFD ships in the device plugin's image: its name decides first.
    for word, consequence in _CONSEQUENCE:
        if word in text:
            return consequence
    return "its work is not done there"


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind != "DaemonSet":
        return
    configured, needs = taint_keys(ctx.profile, tuple(ctx.settings.gpu_taint_keys))
    # Without the facts, the run's other GPU infrastructure that tolerates a key by name
    # says the run expects it: this DaemonSet is then the odd one out.
    expected = dict(ctx.profile.infra_tolerated) if needs else {}
    for pod in resource.pod_specs:
        if not is_infra_pod(pod):
            continue
        vendors = {image_vendor(c.image) for c in pod.regular_containers()}
        keys = taint_keys_for(vendors, configured)
        missing = [k for k in keys if not tolerates_key(pod.spec, k)]
        if not missing:
            continue
        images = sorted({c.image for c in pod.regular_containers() if c.image})
        sure = [k for k in missing if k in expected]
        why, wants, severity = "", needs, None
        if sure:
            missing, wants = sure, ()
            why = f" ({expected[sure[0]]} of this run tolerates it)"
        elif needs and NVIDIA_TAINT in missing and "nvidia" in vendors:
            if own_taint_tolerated(pod.spec):
                continue  # it tolerates its cluster's own GPU taint (AKS: sku=gpu)
            # The taint GPU clusters that taint most likely carry (see the module
            # docstring); most clusters do not taint GPU nodes at all: advice, a note.
            missing, wants, severity = [NVIDIA_TAINT], (), Severity.NOTE
            why = f" (assumed: {ASSUMED})"
        taints = " and ".join(missing)
        message = (
            f"GPU infrastructure ({', '.join(images)}) does not tolerate the GPU taint "
            f"{taints}{why}: it never runs on tainted GPU nodes, and "
            f"{_consequence(resource, images)}"
        )
        path = ("tolerations",) if isinstance(pod.spec.get("tolerations"), list) else ()
        if not path:
            first = pod.regular_containers()[0]
            yield Report(
                first.path + ("image",),
                message,
                container=first.name,
                needs=wants,
                severity=severity,
            )
            continue
        yield Report(pod.path + path, message, needs=wants, severity=severity)
