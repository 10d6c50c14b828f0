"""
## What it checks
containerd runtimes whose `options.BinaryName` is the NVIDIA Container Runtime
must use the runc shim: `runtime_type = "io.containerd.runc.v2"`, as
`nvidia-ctk runtime configure` writes it. It reports any other shim, and
`io.containerd.runc.v1` in a version 3 config (containerd 2.x removed the v1
shims). A runtime without `runtime_type` is not judged.

## Why it matters
`BinaryName` is an option of the runc shims only. Under another shim
(`io.containerd.runtime.v1.linux`, a Kata or gVisor shim) it is ignored, so
the NVIDIA runtime never runs and the containers see no GPU; containerd 2.0
removed `containerd-shim` and `containerd-shim-runc-v1`, so a runtime naming
them cannot start any container.

## Failing example
```toml
# file: config.toml
version = 2

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runtime.v1.linux"  # <- GPU314

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
```

## Passing example
```toml
# file: config.toml
version = 2

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
```

## How to fix
Set `runtime_type = "io.containerd.runc.v2"` on the NVIDIA runtime.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.runtime import containerd
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU314",
    "containerd-runtime-type-invalid",
    Severity.ERROR,
    "The NVIDIA containerd runtime does not use the runc v2 shim (io.containerd.runc.v2).",
    __doc__,
    reads=mentions("io.containerd."),  # every containerd config (model/containerd.py)
)

_RUNC_V1 = "io.containerd.runc.v1"


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for found in containerd.resource_configs(resource):
        yield from _reports(found)


@rule.document_check
def check_document(doc: Document, ctx: Context) -> Iterator[Report]:
    for found in containerd.document_configs(doc):
        yield from _reports(found)


def _reports(found: containerd.FoundContainerd) -> Iterator[Report]:
    version = found.config.version
    for runtime in found.config.runtimes.values():
        kind = runtime.runtime_type
        binary = runtime.binary_name or ""
        if not binary.startswith(containerd.NVIDIA_RUNTIME_BINARY) or kind is None:
            continue
        if kind == containerd.RUNC_V2 or (kind == _RUNC_V1 and version < 3):
            continue
        if version >= 3 and kind in containerd.REMOVED_IN_2_0:
            why = "containerd 2.x (config version 3) removed this shim: no container starts"
        else:
            why = (
                "BinaryName is an option of the runc shims only, so this shim ignores it and "
                "the containers get no GPU"
            )
        yield Report(
            found.path + runtime.path + ("runtime_type",),
            f"{found.label}: NVIDIA runtime {runtime.name!r} has runtime_type {kind!r}, not "
            f"{containerd.RUNC_V2!r}: {why}",
            at="value",
        )
