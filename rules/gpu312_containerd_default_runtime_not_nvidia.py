"""
## What it checks
Across every file of one run: a containerd 1.x config (`version` 1 or 2) that
defines an NVIDIA runtime but whose `default_runtime_name` is another runtime
(or unset in a whole config: `runc`), while GPU workloads of the run request `nvidia.com/`
resources and set no `runtimeClassName`. It stays silent when the config
enables CDI (`enable_cdi = true`), and when the run deploys the GPU Operator
with its container toolkit (the toolkit rewrites the config on the node), and
when every device-list strategy the run gives the device plugin is a CDI one
(the plugin then sets no `NVIDIA_VISIBLE_DEVICES`; GPU317 judges containerd's
CDI setting instead). A file of `plugins` tables without a
`version` (a drop-in or a snippet spliced into another config) is reported
only for a default it sets itself; a config that `imports` others is not
judged, since an imported file may replace its CRI section. GPU
Operator values or a ClusterPolicy whose `toolkit.env` sets
`CONTAINERD_SET_AS_DEFAULT` (or `RUNTIME_SET_AS_DEFAULT`) to `false` with
`cdi.enabled: false` are reported the same way.

## Why it matters
Without a `runtimeClassName` a pod runs with containerd's default runtime. The
device plugin hands out GPUs as `NVIDIA_VISIBLE_DEVICES` (its default
`envvar` strategy), which only the NVIDIA runtime acts on: under runc the
container starts, is charged a GPU, and sees none ("no CUDA-capable device is
detected"). The NVIDIA Container Toolkit's install guide sets the runtime as
the default for this reason (`nvidia-ctk runtime configure --set-as-default`).

## Failing example
```yaml
# file: node-config.yaml
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri".containerd]
        default_runtime_name = "runc"  # <- GPU312
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/bin/nvidia-container-runtime"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
```

## Passing example
```yaml
# file: node-config.yaml
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri".containerd]
        default_runtime_name = "nvidia"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/bin/nvidia-container-runtime"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
```

## How to fix
Set `default_runtime_name = "nvidia"` (`nvidia-ctk runtime configure
--runtime=containerd --set-as-default`), or give the GPU workloads
`runtimeClassName: nvidia` with a RuntimeClass whose handler is `nvidia`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import device_list, recognise
from gpulint.model.runtime import containerd, runtime_classes
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
    "GPU312",
    "containerd-default-runtime-not-nvidia",
    Severity.WARNING,
    "containerd's default runtime is not NVIDIA's while GPU pods set no runtimeClassName.",
    __doc__,
    # the partner: a containerd config, or operator settings that keep the default
    partner=mentions("io.containerd.", "SET_AS_DEFAULT"),
)


@record(frozen=True, slots=True)
class Config:
    """A containerd config whose default runtime is not its NVIDIA runtime."""

    anchor: Anchor
    label: str
    default: str
    nvidia: str  # the NVIDIA runtime it defines


@record(frozen=True, slots=True)
class GpuPod:
    """A GPU pod that sets no runtimeClassName."""

    label: str


@record(frozen=True, slots=True)
class ListStrategy:
    """A device-list strategy of the run's device plugin: CDI only, or served by the runtime."""

    only_cdi: bool


@record(frozen=True, slots=True)
class Toolkit:
    """The operator's toolkit makes the NVIDIA runtime the default on every GPU node."""


@record(frozen=True, slots=True)
class NotDefault:
    """Operator settings that tell the toolkit to leave containerd's default alone."""

    anchor: Anchor
    label: str


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found: list = [
        fact
        for c in containerd.resource_configs(resource)
        if (fact := _config(c, lambda p, at: ctx.anchor(resource, p, at=at))) is not None
    ]
    toolkit = runtime_classes.operator_toolkit_resource(resource)
    if toolkit is not None:
        found.extend(_toolkit_facts(toolkit, lambda p: ctx.anchor(resource, p, at="value")))
        label = f"ClusterPolicy {resource.name}"
        found = [NotDefault(f.anchor, label) if isinstance(f, NotDefault) else f for f in found]
    sites = device_list.resource_sites(resource)
    found.extend(ListStrategy(device_list.only_cdi(s.strategies)) for s in sites)
    for pod, name in runtime_classes.pod_runtime_classes(resource):
        if not name and runtime_classes.requests_nvidia_gpu(pod):
            found.append(GpuPod(f"{resource.kind} {resource.name}"))
    return found


@rule.document_collector
def collect_document(doc: Document, ctx: Context) -> list:
    found: list = [
        fact
        for c in containerd.document_configs(doc)
        if (fact := _config(c, lambda p, at: ctx.document_anchor(doc, p, at=at))) is not None
    ]
    values_for = recognise.values_for(ctx.settings)
    for toolkit in runtime_classes.operator_toolkits_document(doc.data, values_for):
        found.extend(_toolkit_facts(toolkit, lambda p: ctx.document_anchor(doc, p, at="value")))
    sites = device_list.document_sites(doc.data, recognise.place(doc.data, values_for))
    found.extend(ListStrategy(device_list.only_cdi(s.strategies)) for s in sites)
    return found


def _toolkit_facts(toolkit: runtime_classes.OperatorToolkit, anchor) -> list:
    if toolkit.manages_default:
        return [Toolkit()]
    if toolkit.enabled and toolkit.not_default is not None and toolkit.cdi_disabled:
        return [NotDefault(anchor(toolkit.not_default), "GPU Operator values")]
    return []


def _config(found: containerd.FoundContainerd, anchor) -> Config | None:
    config = found.config
    if config.version > 2 or config.enable_cdi is True:
        return None  # containerd 2.x, or CDI: devices may come without the NVIDIA runtime
    if config.imports or config.implied and not config.default:
        return None  # the default may be set where the run cannot see
    nvidia = [r for r in config.runtimes.values() if r.is_nvidia]
    default = config.default or "runc"
    if not nvidia or default in config.runtimes and config.runtimes[default].is_nvidia:
        return None
    if config.default:  # the value; else the section that lacks it
        place = anchor(found.path + config.containerd_path + ("default_runtime_name",), "value")
    else:
        place = anchor(found.path + config.containerd_path, "key")
    return Config(place, found.label, default, nvidia[0].name)


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    pods = [f for f in found if isinstance(f, GpuPod)]
    if not pods:
        return
    strategies = [f for f in found if isinstance(f, ListStrategy)]
    if strategies and all(f.only_cdi for f in strategies):
        return  # GPUs come through CDI, not NVIDIA_VISIBLE_DEVICES: the default runtime is moot
    example = pods[0].label + (f" and {len(pods) - 1} more" if len(pods) > 1 else "")
    for fact in found:
        if isinstance(fact, NotDefault):
            yield Report.placed(
                fact.anchor,
                f"{fact.label} set the toolkit's {runtime_classes.SET_AS_DEFAULT[0]} to false with "
                "cdi.enabled: false, so containerd's default runtime stays runc, while GPU "
                f"workloads set no runtimeClassName ({example}): they run under runc, which "
                "ignores NVIDIA_VISIBLE_DEVICES, and see no GPU",
            )
    if any(isinstance(f, Toolkit) for f in found):
        return  # the toolkit rewrites the nodes' configs
    for fact in found:
        if isinstance(fact, Config):
            yield Report.placed(
                fact.anchor,
                f"{fact.label}: the default runtime is {fact.default!r}, not {fact.nvidia!r}, "
                f"while GPU workloads set no runtimeClassName ({example}): they run under "
                f"{fact.default}, which ignores NVIDIA_VISIBLE_DEVICES, and see no GPU",
            )
