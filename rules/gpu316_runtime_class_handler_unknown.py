"""
## What it checks
Across every file of one run, when the run holds a whole containerd config
(not only fragments of `plugins` tables without a `version`, nor a config that
`imports` files the run may not hold): each
RuntimeClass's `handler` must be a runtime one of those configs defines
(`plugins."<CRI plugin>".containerd.runtimes.<handler>`). `runc` (containerd's
built-in default) is never reported, nor are `nvidia`, `nvidia-cdi` and
`nvidia-legacy` when the run deploys the GPU Operator with its container
toolkit, which adds those runtimes on every GPU node.

## Why it matters
The kubelet passes the handler to containerd, which looks it up among its
runtimes. A handler it does not have fails every pod of the class at sandbox
creation (`no runtime for "nvidia" is configured`): the pods are scheduled,
then stay in ContainerCreating.

## Failing example
```yaml
# file: node-config.yaml
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: nvidia  # <- GPU316
```

## Passing example
```yaml
# file: node-config.yaml
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/bin/nvidia-container-runtime"
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: nvidia
```

## How to fix
Add the runtime to containerd's config (`nvidia-ctk runtime configure
--runtime=containerd` adds `nvidia`), or set the handler to a runtime the
config defines.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import recognise
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
    "GPU316",
    "runtime-class-handler-unknown",
    Severity.ERROR,
    "A RuntimeClass handler is not a runtime of the run's containerd config.",
    __doc__,
    partner=mentions("io.containerd."),  # the partner: a containerd config
)


@record(frozen=True, slots=True)
class Runtimes:
    """The runtimes a containerd config of the run defines."""

    names: tuple[str, ...]
    whole: bool  # not a fragment, and imports nothing
    imports: bool  # merges files the run may not hold


def _runtimes(found: containerd.FoundContainerd) -> Runtimes:
    config = found.config
    return Runtimes(tuple(config.runtimes), config.whole, bool(config.imports))


@record(frozen=True, slots=True)
class Toolkit:
    """The operator's toolkit manages the nodes' containerd configs."""


@record(frozen=True, slots=True)
class Handler:
    """A RuntimeClass handler."""

    handler: str
    anchor: Anchor
    runtime_class: str


@rule.collector
def collect(resource: Resource, ctx: Context) -> list:
    found: list = [_runtimes(c) for c in containerd.resource_configs(resource)]
    if runtime_classes.toolkit_managed_resource(resource):
        found.append(Toolkit())
    view = runtime_classes.runtime_class(resource)
    if view is not None and view.handler:
        found.append(
            Handler(view.handler, ctx.anchor(resource, ("handler",), at="value"), view.name)
        )
    return found


@rule.document_collector
def collect_document(doc: Document, ctx: Context) -> list:
    found: list = [_runtimes(c) for c in containerd.document_configs(doc)]
    if runtime_classes.toolkit_managed_document(doc.data, recognise.values_for(ctx.settings)):
        found.append(Toolkit())
    return found


@rule.finalizer
def finalize(found: list, ctx: Context) -> Iterator[Report]:
    configs = [f for f in found if isinstance(f, Runtimes)]
    if not any(f.whole for f in configs) or any(f.imports for f in configs):
        return  # the runtimes containerd reads are not all in the run
    defined = sorted({name for f in configs for name in f.names})
    known = set(defined) | {"runc"}
    if any(isinstance(f, Toolkit) for f in found):
        known |= containerd.OPERATOR_RUNTIME_CLASSES
    for fact in found:
        if isinstance(fact, Handler) and fact.handler not in known:
            listing = ", ".join(defined) if defined else "none"
            yield Report.placed(
                fact.anchor,
                f"RuntimeClass {fact.runtime_class} has handler {fact.handler!r}, which no "
                f"containerd config of this run defines (runtimes: {listing}): pods of this class "
                f'fail at sandbox creation ("no runtime for "{fact.handler}" is configured")',
            )
