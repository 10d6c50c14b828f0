"""
## What it checks
containerd configs (`config.toml`, versions 1 to 3; a `.toml` file, or the TOML
inside a ConfigMap or cloud-init `write_files`): `default_runtime_name` must
name a runtime the config defines under the CRI plugin its `version` reads
(`io.containerd.grpc.v1.cri` for version 2, containerd 1.x;
`io.containerd.cri.v1.runtime` for version 3, containerd 2.x), and an NVIDIA
runtime (`nvidia...`, or `BinaryName` `nvidia-container-runtime`) must not sit
only under the other version's section, where containerd never looks.
A config without `version` is version 1, as containerd reads it. A file that
holds only `plugins` tables and no `version` (a drop-in, or a snippet spliced
into another config) and a config that `imports` others are not the whole
config containerd reads (an imported file replaces whole plugin sections,
containerd/containerd#5837): they are not judged, since the default runtime
or the NVIDIA runtime may be set where the run cannot see.

## Why it matters
"nvidia-container-runtime not set" and "a missing
`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]` section" are
the most frequent reasons GPU pods fail below the pod spec. A default runtime
that is not defined leaves the CRI plugin without a runtime for every pod
("no runtime for \"nvidia\" is configured"); an `nvidia` runtime under the
section of another config version is ignored, so GPU containers start without
the NVIDIA runtime and see no GPU (or, when it is the default, do not start).

## Failing example
```toml
# file: config.toml
version = 3

[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "nvidia"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]  # <- GPU311
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
```

## Passing example
```toml
# file: config.toml
version = 3

[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "nvidia"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
```

## How to fix
Let `nvidia-ctk runtime configure --runtime=containerd` write the section (it
picks the plugin name from the config's `version`), or move the runtime under
`plugins."<the CRI plugin of this version>".containerd.runtimes`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.runtime import containerd
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU311",
    "containerd-nvidia-runtime-missing",
    Severity.ERROR,
    "containerd's default runtime is not defined, or its NVIDIA runtime sits where the "
    "config version never reads.",
    __doc__,
    reads=mentions("io.containerd."),  # every containerd config (model/containerd.py)
)

# containerd's built-in defaults define runc even when config.toml does not.
_BUILT_IN = frozenset({"runc"})


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for found in containerd.resource_configs(resource):
        yield from _reports(found)


@rule.document_check
def check_document(doc: Document, ctx: Context) -> Iterator[Report]:
    for found in containerd.document_configs(doc):
        yield from _reports(found)


def _reports(found: containerd.FoundContainerd) -> Iterator[Report]:
    config = found.config
    if not config.whole:
        return  # a fragment, or imports: what it leaves out may be set elsewhere
    section = containerd.quoted(config.plugin) + ".containerd.runtimes"
    default = config.default
    reported_default = False
    if not any(r.is_nvidia for r in config.runtimes.values()):
        for name, runtime in config.misplaced.items():
            if not runtime.is_nvidia:
                continue
            if name == default:
                consequence = "default_runtime_name names it, so no container starts"
                reported_default = True
            else:
                consequence = "containers that ask for it get no GPU"
            yield Report(
                found.path + runtime.path,
                f"{found.label}: NVIDIA runtime {name!r} is defined under "
                f"{containerd.quoted(runtime.path[1])}, but a version {config.version} config "
                f"reads runtimes from {section}: containerd ignores it; {consequence}",
            )
    if not default or default in config.runtimes or default in _BUILT_IN or reported_default:
        return
    elsewhere = config.misplaced.get(default)
    why = (
        f"it is under {containerd.quoted(elsewhere.path[1])}, which a version "
        f"{config.version} config does not read"
        if elsewhere is not None
        else f"{section} has no {default!r}"
    )
    yield Report(
        found.path + config.containerd_path + ("default_runtime_name",),
        f"{found.label}: default_runtime_name {default!r} names no runtime of this config "
        f'({why}); the CRI plugin has no runtime for pods ("no runtime for "{default}" is '
        'configured") and no container starts',
        at="value",
    )
