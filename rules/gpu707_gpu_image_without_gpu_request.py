"""
## What it checks
A workload container whose image sets `NVIDIA_VISIBLE_DEVICES=all` in its
config (the CUDA base images `nvidia/cuda` and `nvcr.io/nvidia/cuda`, the
images built on them: RAPIDS, vLLM, TGI, `pytorch/pytorch:*-cuda*`, and images
whose own Dockerfile sets it: `ollama/ollama`, `jellyfin/jellyfin`, LocalAI; the
list, with the Dockerfile that shows each, is `gpulint/model/gpu/cuda_images.py`) that
holds no GPU (no `nvidia.com/` or other GPU resource, or `nvidia.com/gpu: 0`,
and no DRA claim) and does not set `NVIDIA_VISIBLE_DEVICES` itself (`void`,
`none` or an empty value hide the GPUs; any other value is GPU701's finding),
in a pod the NVIDIA runtime runs.

Needs: `nvidia-runtime`, established by the same deployable unit: the pod's
`runtimeClassName` names a RuntimeClass of the run whose handler is NVIDIA's
(`nvidia`, `nvidia-cdi`, `nvidia-legacy`, or a containerd runtime of the run
that runs `nvidia-container-runtime`), or one of those names while the run
deploys the GPU Operator with its toolkit (the operator creates those
RuntimeClasses); or, for a pod without `runtimeClassName`, a containerd config
of the run whose default runtime is NVIDIA's, or GPU Operator values or a
ClusterPolicy that leave the toolkit making it the default (`cdi.enabled:
false` written out, or `CONTAINERD_SET_AS_DEFAULT`/`NVIDIA_RUNTIME_SET_AS_DEFAULT`
true in `toolkit.env`). A `runtimeClassName: nvidia` alone is not enough: the
name is a convention, not a handler. Without these the finding is held back.
It stays silent when the run shows the toolkit ignoring the variable in
unprivileged containers (`accept-nvidia-visible-devices-envvar-when-unprivileged
= false` in its config.toml, or `ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED`
false in the operator's `toolkit.env`), for privileged containers (they see
every device anyway: GPU703), for `envFrom` (it may set the variable), for
GPU infrastructure images, for pods a GPU-sharing scheduler serves (KAI's
`gpu-fraction`/`gpu-memory` annotations), for pods that request an accelerator
that is not a GPU (`aws.amazon.com/neuron`, `habana.ai/gaudi`, `google.com/tpu`:
they run on its nodes, never on a GPU node), and for templates another object
instantiates with its own resources (ServingRuntime, TrainingRuntime,
PodTemplate...).

## Why it matters
The NVIDIA runtime exposes the GPUs that `NVIDIA_VISIBLE_DEVICES` names. The
device plugin sets it only in containers that request GPUs; any other container
keeps its image's value, `all`, and sees every GPU of the node, which the
kubelet still counts as free and gives to other pods. NVIDIA: "A default
installation of NVIDIA Container Toolkit and NVIDIA Device Plugin provides
unprivileged containers with access to GPUs on a node when the pod
specification does not specify resource limits" (GPU Operator, Security
Considerations). A CPU-only notebook on a RAPIDS image then shares GPUs with
the jobs scheduled there, and out-of-memory errors land in their pods.

## Failing example
```yaml
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: nvidia
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: notebook
spec:
  replicas: 1
  selector:
    matchLabels: {app: notebook}
  template:
    metadata:
      labels: {app: notebook}
    spec:
      runtimeClassName: nvidia
      containers:
        - name: jupyter
          image: rapidsai/notebooks:24.10-cuda12.5-py3.12  # <- GPU707
          resources:
            limits:
              nvidia.com/gpu: 0
```

## Passing example
```yaml
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: nvidia
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: notebook
spec:
  replicas: 1
  selector:
    matchLabels: {app: notebook}
  template:
    metadata:
      labels: {app: notebook}
    spec:
      runtimeClassName: nvidia
      containers:
        - name: jupyter
          image: rapidsai/notebooks:24.10-cuda12.5-py3.12
          env:
            - name: NVIDIA_VISIBLE_DEVICES
              value: void
          resources:
            limits:
              nvidia.com/gpu: 0
```

## How to fix
Request the GPUs the container uses (`nvidia.com/gpu: N`), or, if it needs
none, set `NVIDIA_VISIBLE_DEVICES=void` in its `env` (or run it without the
NVIDIA runtime). To close the hole for every pod, configure the toolkit with
`accept-nvidia-visible-devices-envvar-when-unprivileged = false` and the device
plugin with `deviceListStrategy: volume-mounts`. There is no automatic fix:
only the author knows whether the container should use a GPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, TypeAlias

from gpulint.model.dra import container_claims
from gpulint.model.gpu.access import gpu_like_resource, other_accelerator, other_gpu_use
from gpulint.model.gpu.cuda_images import visible_all_reason
from gpulint.model.gpu.holding import container_holding
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.kinds.table import TEMPLATE_KINDS
from gpulint.model.nvidia import recognise
from gpulint.model.runtime import containerd, runtime_classes
from gpulint.model.values.quantity import QuantityError, parse_quantity
from gpulint.rules.api import (
    Anchor,
    Container,
    Context,
    Document,
    PodSpec,
    Report,
    Resource,
    Rule,
    Severity,
    record,
)

rule = Rule(
    "GPU707",
    "gpu-image-without-gpu-request",
    Severity.WARNING,
    "A container on a CUDA image that requests no GPU sees every GPU under the NVIDIA runtime.",
    __doc__,
)

VARIABLE = "NVIDIA_VISIBLE_DEVICES"
NEEDS = ("nvidia-runtime",)


@record(frozen=True, slots=True)
class Candidate:
    anchor: Anchor
    container: str
    image: str
    reason: str
    runtime_class: str | None
    zero: bool  # nvidia.com/gpu: 0 written out


@record(frozen=True, slots=True)
class ClassFact:
    name: str
    handler: str | None
    anchor: Anchor


@record(frozen=True, slots=True)
class DefaultFact:
    """A containerd config: is its default runtime NVIDIA's, and its NVIDIA runtimes."""

    nvidia: bool
    label: str
    anchor: Anchor
    runtimes: tuple[str, ...]


@record(frozen=True, slots=True)
class OperatorFact:
    enabled: bool  # the toolkit runs (and rewrites the nodes' containerd config)
    default: bool | None  # runtime_classes.OperatorToolkit.default_state
    refuses: bool
    label: str
    anchor: Anchor


@record(frozen=True, slots=True)
class Refuses:
    """A toolkit config.toml that ignores the variable in unprivileged containers."""


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found: list = []
    view = runtime_classes.runtime_class(resource)
    if view is not None:
        found.append(ClassFact(view.name, view.handler, ctx.anchor(resource, ("handler",))))
    for config in containerd.resource_configs(resource):
        found.append(_default(config, ctx.anchor(resource, config.path, at="value")))
    toolkit = runtime_classes.operator_toolkit_resource(resource)
    if toolkit is not None:
        anchor = ctx.anchor(resource, ("spec", "toolkit"))
        found.append(_operator(toolkit, f"ClusterPolicy {resource.name}", anchor))
    if resource.kind in TEMPLATE_KINDS:
        return found  # another object instantiates it and adds the resources
    for pod, name in runtime_classes.pod_runtime_classes(resource):
        if _shares_gpus(pod) or other_accelerator(pod) is not None:
            continue  # a pod of another accelerator (Neuron, Gaudi, TPU) is on no GPU node
        for container in pod.containers:
            candidate = _candidate(container, name, ctx)
            if candidate is not None:
                found.append(candidate)
    return found


@rule.document_collector
def collect_document(doc: Document, ctx: Context) -> list:
    found: list = [
        _default(config, ctx.document_anchor(doc, config.path, at="value"))
        for config in containerd.document_configs(doc)
    ]
    for toolkit in runtime_classes.operator_toolkits_document(
        doc.data, recognise.values_for(ctx.settings)
    ):
        anchor = ctx.document_anchor(doc, toolkit.prefix + ("toolkit",))
        found.append(_operator(toolkit, "GPU Operator values", anchor))
    if runtime_classes.refuses_envvar_source(doc):
        found.append(Refuses())
    return found


def _default(found: containerd.FoundContainerd, anchor: Anchor) -> DefaultFact:
    config = found.config
    name = config.default or "runc"
    nvidia = name in config.runtimes and config.runtimes[name].is_nvidia
    names = tuple(r.name for r in config.runtimes.values() if r.is_nvidia)
    return DefaultFact(nvidia, f"{found.label} (default runtime {name!r})", anchor, names)


def _operator(toolkit: runtime_classes.OperatorToolkit, label: str, anchor: Anchor) -> OperatorFact:
    refuses = toolkit.enabled and toolkit.refuses_envvar
    return OperatorFact(toolkit.enabled, toolkit.default_state, refuses, label, anchor)


def _resources_hold(container: Container) -> tuple[bool, bool]:
    """(a GPU-like resource with a count other than 0 or unreadable, nvidia.com/gpu: 0 written)."""
    resources = container.data.get("resources")
    holds, zero = False, False
    for section in ("requests", "limits"):
        entries = resources.get(section) if isinstance(resources, dict) else None
        for key, value in entries.items() if isinstance(entries, dict) else ():
            if not gpu_like_resource(str(key)):
                continue
            try:
                count = parse_quantity(value)
            except (QuantityError, TypeError, ValueError):
                holds = True  # a placeholder or a typo: it means to hold something
                continue
            if count != 0:
                holds = True
            elif str(key) == "nvidia.com/gpu":
                zero = True
    return holds, zero


def _sets_variable(container: Container) -> bool:
    env = container.data.get("env")
    if env is not None and not isinstance(env, list):
        return True  # unreadable: it may set the variable
    named = any(isinstance(e, dict) and e.get("name") == VARIABLE for e in env or ())
    return named or bool(container.data.get("envFrom"))


def _shares_gpus(pod: PodSpec) -> bool:
    """A GPU-sharing scheduler's annotation (KAI's gpu-fraction...): it hands the pod GPUs,
    and sets the variable, outside the resources."""
    reason = other_gpu_use(pod)
    return reason is not None and "annotation" in reason


def _privileged(container: Container) -> bool:
    security = container.data.get("securityContext")
    return isinstance(security, dict) and security.get("privileged") is True


def _candidate(container: Container, runtime_class: object, ctx: Context) -> Candidate | None:
    image = container.image
    reason = visible_all_reason(image) if isinstance(image, str) else None
    if reason is None or is_infra_container(container) or _privileged(container):
        return None
    if _sets_variable(container) or container_claims(container):
        return None
    holds, zero = _resources_hold(container)
    if holds or container_holding(container, ctx.profile).any:
        return None
    anchor = ctx.anchor(
        container.pod.resource, container.path + ("image",), container.name, "value"
    )
    name = runtime_class if isinstance(runtime_class, str) and runtime_class else None
    return Candidate(anchor, container.name, image, reason, name, zero)


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    candidates = [f for f in found if isinstance(f, Candidate)]
    if not candidates:
        return
    operators = [f for f in found if isinstance(f, OperatorFact)]
    if any(isinstance(f, Refuses) for f in found) or any(o.refuses for o in operators):
        return  # the toolkit ignores the image's variable in unprivileged containers
    classes = {f.name: f for f in found if isinstance(f, ClassFact)}
    configs = [f for f in found if isinstance(f, DefaultFact)]
    nvidia_runtimes = {name for c in configs for name in c.runtimes}
    default = _default_runtime(operators, configs)
    managing = next((o for o in operators if o.enabled), None)  # once, not per candidate
    for candidate in candidates:
        if candidate.runtime_class is None:
            why = default
        else:
            why = _by_class(candidate.runtime_class, classes, managing, nvidia_runtimes)
        if why is False:
            continue
        message = _message(candidate, why[0] if why else None)
        if why is None:
            yield Report((), message, candidate.container, anchor=candidate.anchor, needs=NEEDS)
        else:
            yield Report.placed(candidate.anchor, message, related=[(why[1], why[0])])


# (how the run says so, where) | False: not | None: unknown. A string: evaluating Literal's
# union at import took ~0.15 ms of every run that loads the rule.
Why: TypeAlias = "tuple[str, Anchor] | Literal[False] | None"


def _default_runtime(operators: list[OperatorFact], configs: list[DefaultFact]) -> Why:
    # The operator's toolkit rewrites the nodes' containerd config (as GPU312 assumes).
    managing = [o for o in operators if o.enabled]
    states = [o.default for o in managing]
    if managing:
        if False in states or None in states:
            return False if False in states else None
        first = managing[0]
        return (
            f"per {first.label}, the toolkit makes it the default runtime",
            first.anchor,
        )
    if not configs:
        return None
    if not all(c.nvidia for c in configs):
        return False
    return (f"the default runtime of {configs[0].label}", configs[0].anchor)


def _by_class(
    name: str, classes: dict[str, ClassFact], first: OperatorFact | None, nvidia: set[str]
) -> Why:
    """``first``: the first operator whose toolkit is enabled."""
    fact = classes.get(name)
    if fact is not None:
        handler = fact.handler or ""
        if handler in containerd.OPERATOR_RUNTIME_CLASSES or handler in nvidia:
            return (f"RuntimeClass {name} has handler {handler!r}", fact.anchor)
        return False
    if name in containerd.OPERATOR_RUNTIME_CLASSES and first is not None:
        text = f"per {first.label}, the GPU Operator creates RuntimeClass {name}, handler {name!r}"
        return (text, first.anchor)
    return None


def _message(candidate: Candidate, why: str | None) -> str:
    zero = " (nvidia.com/gpu: 0)" if candidate.zero else ""
    under = f"under the NVIDIA runtime ({why})" if why else "if the NVIDIA runtime runs it"
    return (
        f"container {candidate.container!r} runs {candidate.image} ({candidate.reason}, whose "
        f"config sets {VARIABLE}=all) and requests no GPU{zero}: {under}, it sees every GPU of "
        "the node, outside the scheduler's accounting; set NVIDIA_VISIBLE_DEVICES=void in its "
        "env, or request the GPUs it uses"
    )
