"""
## What it checks
Across every file of one run, when the run defines RuntimeClasses
(`node.k8s.io/v1`): a pod template's `runtimeClassName` must name one of them.
The classes the GPU Operator creates itself (`nvidia`, `nvidia-cdi`,
`nvidia-legacy`) are never reported.

## Why it matters
The API server's RuntimeClass admission plugin
(`plugin/pkg/admission/runtimeclass`) looks the class up when the pod is
created and rejects it when the class does not exist (`pod rejected:
RuntimeClass "nvidia-gpus" not found`): a Deployment, Job or DaemonSet never
gets a pod, and a FailedCreate event is the only trace.

## Failing example
```yaml
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia-gpu
handler: nvidia
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      runtimeClassName: nvidia-gpus  # <- GPU315
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
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia-gpu
handler: nvidia
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      runtimeClassName: nvidia-gpu
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
```

## How to fix
Name a RuntimeClass that exists (the did-you-mean names the closest), or add
the RuntimeClass to the manifests.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from gpulint.model.runtime import containerd, runtime_classes
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import Anchor, Context, Report, Resource, Rule, Severity, kind_is, record

rule = Rule(
    "GPU315",
    "runtime-class-undefined",
    Severity.ERROR,
    "A pod names a runtimeClassName that no RuntimeClass of the run defines.",
    __doc__,
    partner=kind_is("RuntimeClass"),  # the partner: a RuntimeClass
)


@record(frozen=True, slots=True)
class Defined:
    """A RuntimeClass of the run."""

    name: str


@record(frozen=True, slots=True)
class Used:
    """A pod's runtimeClassName."""

    name: str
    anchor: Anchor
    label: str


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    view = runtime_classes.runtime_class(resource)
    if view is not None:
        return [Defined(view.name)]
    found: list = []
    for pod, name in runtime_classes.pod_runtime_classes(resource):
        if isinstance(name, str) and name and not is_placeholder(name):
            anchor = ctx.anchor(resource, pod.path + ("runtimeClassName",), at="value")
            found.append(Used(name, anchor, f"{resource.kind} {resource.name}"))
    return found


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    defined = sorted({f.name for f in found if isinstance(f, Defined)})
    if not defined:
        return
    known = set(defined) | containerd.OPERATOR_RUNTIME_CLASSES
    for fact in found:
        if not isinstance(fact, Used) or fact.name in known:
            continue
        close = difflib.get_close_matches(fact.name, defined, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        yield Report.placed(
            fact.anchor,
            f"{fact.label} asks for RuntimeClass {fact.name!r}, which no RuntimeClass of this run "
            f"defines ({', '.join(defined)}): the API server rejects its pods "
            f'("pod rejected: RuntimeClass "{fact.name}" not found"){hint}',
        )
