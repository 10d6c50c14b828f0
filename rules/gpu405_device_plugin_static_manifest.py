"""
## What it checks
The NVIDIA device plugin deployed from a hand-written DaemonSet: a DaemonSet
that runs the `k8s-device-plugin` image but was neither rendered from the Helm
chart (no `helm.sh/chart` or `app.kubernetes.io/managed-by: Helm` label, no
`# Source:` template comment) nor created by the GPU Operator (owned by a
`ClusterPolicy`). The plugin's own repository (the linted project publishes
the image: `gpulint/model/project.py`) is left alone: its reference manifests
are the quick start this advice is about, written for its users.

## Why it matters
The static manifest in the plugin's repository is meant for a quick try. It has
no switch for MIG strategies, sharing configs or per-node configs, no config
manager, and no upgrade path: every release means editing the image by hand,
and the flags the chart sets (`NVIDIA_MIG_MONITOR_DEVICES`, the config file)
are missing.

## Failing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin-daemonset
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin-ds}
  template:
    metadata:
      labels: {name: nvidia-device-plugin-ds}
    spec:
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4  # <- GPU405
```

## Passing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvdp-nvidia-device-plugin
  namespace: nvidia-device-plugin
  labels:
    helm.sh/chart: nvidia-device-plugin-0.17.4
    app.kubernetes.io/managed-by: Helm
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: nvidia-device-plugin}
  template:
    metadata:
      labels: {app.kubernetes.io/name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
```

## How to fix
Install the plugin with its Helm chart (`helm upgrade -i nvdp
nvdp/nvidia-device-plugin --version 0.17.4`, MIG and sharing set in values) or
let the GPU Operator deploy it (`ClusterPolicy` `devicePlugin`).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import containers, recognise
from gpulint.model.values.images import parse_image
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU405",
    "device-plugin-static-manifest",
    Severity.NOTE,
    "The device plugin is deployed from a hand-written DaemonSet, not the chart or operator.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind != "DaemonSet":
        return
    if containers.is_chart_rendered(resource) or containers.is_operator_managed(resource):
        return
    for container in containers.plugin_containers(resource):
        if containers.runs_plugin(container):
            ref = parse_image(container.image)
            if ref is not None and ctx.project.owns(ref):
                return  # the plugin's own repository: its reference manifests are for users
            yield Report(
                container.path + ("image",),
                f"DaemonSet {resource.name} runs the device plugin ({container.image}) from a "
                "hand-written manifest: no MIG strategy or sharing switches, no config manager, "
                "and no upgrade path; deploy it with the nvidia-device-plugin Helm chart or the "
                "GPU Operator",
                container=container.name,
                at="value",
            )
            return
