"""
## What it checks
Across every file of one run: a containerd 1.x config (`version` 1 or 2) that
sets `enable_cdi = false`, while every device-list strategy the run gives the
NVIDIA device plugin is a CDI one (`cdi-annotations`, `cdi-cri`, or both): the
chart's `deviceListStrategy`, a config file's `flags.plugin.deviceListStrategy`,
or a plugin container's `DEVICE_LIST_STRATEGY` env / `--device-list-strategy`
flag. It stays silent when any of them also names `envvar` or `volume-mounts`
(the NVIDIA runtime then injects the GPUs), when the strategies include
`cdi-annotations` and a runtime of the config passes annotations through
(`container_annotations`: the NVIDIA runtime can act on them), and when the run
deploys the GPU Operator (it chooses the strategy and its toolkit configures
containerd). A config that leaves `enable_cdi` unset is not reported: containerd
1.7 defaults it to false, 2.x to true, and a version 2 config runs on both.

## Why it matters
With only CDI strategies the plugin's answer to the kubelet holds CDI device
names and nothing else (no `NVIDIA_VISIBLE_DEVICES`, no mounts); NVIDIA's README
says both strategies need "a CDI-enabled container engine". containerd's CRI
plugin applies CDI devices and CDI annotations only when `enable_cdi` is true
(containerd 1.7 `pkg/cri/sbserver/container_create_linux.go`; the catalog's
`container_toolkit` block cites the sources), so the pod is
scheduled, charged its GPUs and started without them: under runc it sees no GPU;
under the NVIDIA runtime an image's `NVIDIA_VISIBLE_DEVICES=all` (the CUDA
images' default) exposes every GPU of the node instead of the allocated ones.

## Failing example
```yaml
# file: gpu-node.yaml
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri"]
        enable_cdi = false  # <- GPU317
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: device-plugin-config
  namespace: nvidia-device-plugin
data:
  config.yaml: |
    version: v1
    flags:
      plugin:
        deviceListStrategy: cdi-cri
```

## Passing example
```yaml
# file: gpu-node.yaml
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri"]
        enable_cdi = true
        cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi"]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: device-plugin-config
  namespace: nvidia-device-plugin
data:
  config.yaml: |
    version: v1
    flags:
      plugin:
        deviceListStrategy: cdi-cri
```

## How to fix
Set `enable_cdi = true` in the CRI plugin's section (containerd 1.7 also reads
`cdi_spec_dirs`, default `["/etc/cdi", "/var/run/cdi"]`), or give the plugin the
`envvar` strategy with the NVIDIA runtime as the pods' runtime.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import containers, device_list, operator, recognise
from gpulint.model.runtime import containerd
from gpulint.rules.api import (
    Anchor,
    Context,
    Document,
    Report,
    Resource,
    Rule,
    Severity,
    mentions,
    record,
)

rule = Rule(
    "GPU317",
    "containerd-cdi-disabled",
    Severity.WARNING,
    "containerd disables CDI while the device plugin hands out GPUs only through CDI.",
    __doc__,
    partner=mentions("enable_cdi"),  # the partner: a config that says it
)


@record(frozen=True, slots=True)
class CdiOff:
    anchor: Anchor
    label: str
    passes_annotations: bool  # a runtime copies CRI annotations into the OCI spec


@record(frozen=True, slots=True)
class Strategy:
    anchor: Anchor
    strategies: tuple[str, ...]
    how: str


@record(frozen=True, slots=True)
class Operator:
    """The GPU Operator picks the strategy and configures containerd itself."""


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found: list = [
        CdiOff(ctx.anchor(resource, c.path + c.config.cdi_path, at="value"), c.label, _passes(c))
        for c in containerd.resource_configs(resource)
        if _disabled(c)
    ]
    if operator.is_cluster_policy(resource) or containers.is_operator_managed(resource):
        return found + [Operator()]
    sites = device_list.resource_sites(resource)
    found += [
        Strategy(ctx.anchor(resource, s.path, at="value"), s.strategies, s.how) for s in sites
    ]
    return found


@rule.document_collector
def collect_document(doc: Document, ctx: Context) -> list:
    found: list = [
        CdiOff(
            ctx.document_anchor(doc, c.path + c.config.cdi_path, at="value"), c.label, _passes(c)
        )
        for c in containerd.document_configs(doc)
        if _disabled(c)
    ]
    placed = recognise.place(doc.data, recognise.values_for(ctx.settings))
    if any(where.kind == recognise.OPERATOR_CHART for where in placed):
        found.append(Operator())
    sites = device_list.document_sites(doc.data, placed)
    anchor = ctx.document_anchor
    found += [Strategy(anchor(doc, s.path, at="value"), s.strategies, s.how) for s in sites]
    return found


def _disabled(found: containerd.FoundContainerd) -> bool:
    # containerd 1.x formats only: how 2.x treats CDI requests it was told to refuse
    # differs between its releases (an error, or the devices dropped).
    return found.config.version <= 2 and found.config.enable_cdi is False


def _passes(found: containerd.FoundContainerd) -> bool:
    return any(r.annotations for r in found.config.runtimes.values())


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    if any(isinstance(f, Operator) for f in found):
        return
    sites = [f for f in found if isinstance(f, Strategy)]
    if not sites or not all(device_list.only_cdi(s.strategies) for s in sites):
        return  # no strategy of the run's, or one that the NVIDIA runtime serves
    first = sites[0]
    named = f"{first.how}: {','.join(first.strategies)}"
    more = f", and {len(sites) - 1} more" if len(sites) > 1 else ""
    related = [(s.anchor, f"{s.how}: {','.join(s.strategies)}") for s in sites]
    annotations = any(device_list.CDI_ANNOTATIONS in s.strategies for s in sites)
    for off in found:
        if not isinstance(off, CdiOff):
            continue
        if off.passes_annotations and annotations:
            continue  # CDI annotations reach the NVIDIA runtime through container_annotations
        yield Report.placed(
            off.anchor,
            f"{off.label}: enable_cdi = false, while the device plugin hands out GPUs only "
            f"through CDI ({named}{more}): containerd injects CDI devices and annotations "
            "only with enable_cdi = true, so GPU containers start without the GPUs they "
            "were allocated",
            related=related,
        )
