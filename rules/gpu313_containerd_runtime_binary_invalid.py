"""
## What it checks
The NVIDIA runtimes of a containerd config (a runtime named `nvidia...`, or one
whose `options.BinaryName` is an NVIDIA binary): `BinaryName` must be the NVIDIA
Container Runtime (`nvidia-container-runtime`, or its `.cdi` / `.legacy`
modes). It reports the toolkit's hook or CLI (`nvidia-container-runtime-hook`,
`nvidia-container-toolkit`, `nvidia-ctk`, `nvidia-container-cli`) in its place,
and a runc-shim `nvidia` runtime whose `BinaryName` is missing or is `runc`.
Other binaries (a wrapper of your own) are not judged.

## Why it matters
The runc shim executes `BinaryName` as if it were runc (`create`, `start`...).
The hook and the CLI are not runtimes: every container of that runtime fails to
start. Without `BinaryName` (or with `runc`) the runtime is plain runc: pods
that ask for the `nvidia` runtime start, but the NVIDIA hook never runs, so
they see no GPU and CUDA reports "no CUDA-capable device is detected".

## Failing example
```toml
# file: config.toml
version = 2

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-toolkit"  # <- GPU313

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia-cdi]  # <- GPU313
  runtime_type = "io.containerd.runc.v2"
```

## Passing example
```toml
# file: config.toml
version = 2

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia-cdi]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia-cdi.options]
  BinaryName = "/usr/bin/nvidia-container-runtime.cdi"
```

## How to fix
Point `BinaryName` at `nvidia-container-runtime` (the GPU Operator installs it as
`/usr/local/nvidia/toolkit/nvidia-container-runtime`), or let
`nvidia-ctk runtime configure --runtime=containerd` write the runtime.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.runtime import containerd
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU313",
    "containerd-runtime-binary-invalid",
    Severity.ERROR,
    "An NVIDIA containerd runtime's BinaryName is not the NVIDIA Container Runtime.",
    __doc__,
    reads=mentions("io.containerd."),  # every containerd config (model/containerd.py)
)

_RUNC_V1 = "io.containerd.runc.v1"
_PLAIN = frozenset({"runc", "crun"})


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for found in containerd.resource_configs(resource):
        yield from _reports(found)


@rule.document_check
def check_document(doc: Document, ctx: Context) -> Iterator[Report]:
    for found in containerd.document_configs(doc):
        yield from _reports(found)


def _reports(found: containerd.FoundContainerd) -> Iterator[Report]:
    for runtime in found.config.runtimes.values():
        binary = runtime.binary_name
        binary_path = found.path + runtime.path + ("options", "BinaryName")
        if binary in containerd.NOT_RUNTIMES:
            yield Report(
                binary_path,
                f"{found.label}: runtime {runtime.name!r} runs {runtime.binary!r}, which is not a "
                "runtime (the toolkit's hook or CLI): the runc shim runs it as runc and every "
                "container of this runtime fails to start; use nvidia-container-runtime",
                at="value",
            )
            continue
        named_nvidia = runtime.name.startswith("nvidia")
        if not named_nvidia or runtime.runtime_type not in (containerd.RUNC_V2, _RUNC_V1, None):
            continue
        if binary is None:
            yield Report(
                found.path + runtime.path,
                f"{found.label}: runtime {runtime.name!r} sets no options.BinaryName, so the runc "
                "shim runs plain runc: its containers start without the NVIDIA hook and see no GPU",
            )
        elif binary in _PLAIN:
            yield Report(
                binary_path,
                f"{found.label}: runtime {runtime.name!r} runs {runtime.binary!r}, plain "
                f"{binary}: its containers start without the NVIDIA hook and see no GPU",
                at="value",
            )
