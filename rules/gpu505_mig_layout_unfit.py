"""
## What it checks
mig-parted configs (`version: v1`, `mig-configs`), standalone, in a ConfigMap
(the GPU Operator's `default-mig-parted-config` or your own), or in the
operator chart's `migManager.config.data`: each entry that enables MIG must ask
for a layout the GPUs its `device-filter` selects can hold. Each profile must
exist on that GPU, no profile may exceed its instance count (one `+me`
instance), and all instances must fit the GPU's memory slices at their valid
start positions: on an A100 40 GB two `3g.20gb` start at slices 0 and 4 and
take all eight, so a third instance of anything does not fit. Only GPUs whose
profiles and placements the catalog has verified are judged. Without a
`device-filter` the entry applies to every GPU, so it is reported only when no
MIG-capable GPU can hold it (a profile the catalog does not know is then
reported only when no MIG GPU has instances of that many slices). Profiles,
counts, PCI device IDs and placements come from gpulint's catalog (the MIG
User Guide, `nvidia-smi mig -lgipp`, mig-parted's default configs).

## Why it matters
MIG manager applies the config named by the node's `nvidia.com/mig.config`
label with mig-parted. A profile the GPU lacks, or an instance with no free
place, makes the apply fail: the node is labelled
`nvidia.com/mig.config.state=failed`, keeps its old layout (or none), and the
MIG resources the workloads request are never advertised, so their pods stay
Pending.

## Failing example
```yaml
# file: mig-config.yaml
version: v1
mig-configs:
  three-3g:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices:  # <- GPU505
        "3g.20gb": 2
        "1g.5gb": 1
  wrong-card:
    - device-filter: "0x20B210DE"
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 7  # <- GPU505
```

## Passing example
```yaml
# file: mig-config.yaml
version: v1
mig-configs:
  three-3g:
    - device-filter: ["0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices:
        "3g.20gb": 1
        "2g.10gb": 1
        "1g.5gb": 2
  wrong-card:
    - device-filter: "0x20B210DE"
      devices: all
      mig-enabled: true
      mig-devices:
        "1g.10gb": 7
```

## How to fix
Pick profiles of the GPU the entry selects (`nvidia-smi mig -lgip` lists them)
and a mix that fits its slices (`nvidia-smi mig -lgipp` lists the start
positions): on an A100 40 GB, `3g.20gb` + `2g.10gb` + two `1g.5gb`, or
`4g.20gb` + `3g.20gb`. Give entries for different GPUs their own
`device-filter`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint import catalog
from gpulint.model.gpu import mig_layout
from gpulint.model.nvidia import mig_parted, recognise
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU505",
    "mig-layout-unfit",
    Severity.ERROR,
    "A mig-parted config asks for MIG instances the selected GPU cannot hold.",
    __doc__,
    reads=mentions("mig-configs"),  # a mig-parted config (model/nvidia/mig_parted.py)
)

_CONSEQUENCE = (
    "mig-parted cannot apply it and MIG manager labels the node nvidia.com/mig.config.state=failed"
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for found in mig_parted.resource_configs(resource):
        yield from _reports(found)


@rule.document_check
def check_document(doc: Document, ctx: Context) -> Iterator[Report]:
    for found in mig_parted.document_configs(doc.data, recognise.values_for(ctx.settings)):
        yield from _reports(found)


def _reports(found: mig_parted.FoundMigParted) -> Iterator[Report]:
    for entry in mig_parted.entries(found.data):
        if not entry.devices or not all(mig_parted.GI_PROFILE.match(p) for p in entry.devices):
            continue  # compute-instance profiles and odd names: not modelled, stay silent
        where = f"{found.label}, config {entry.config!r}"
        if entry.device_ids:
            where += " (device-filter " + ", ".join(f"0x{i:08X}" for i in entry.device_ids) + ")"
        for path, message in _entry_problems(entry):
            yield Report(found.path + path, f"{where}: {message}; {_CONSEQUENCE}")


def _entry_problems(entry: mig_parted.MigEntry) -> list[tuple[tuple, str]]:
    counts = {profile: count for profile, (count, _path) in entry.devices.items()}
    if entry.device_ids is None:
        return _unfiltered(entry, counts)
    selected = {gpu.id: gpu for i in entry.device_ids for gpu in catalog.gpus_with_device_id(i)}
    by_place: dict[tuple, list[str]] = {}
    for gpu in selected.values():
        if not gpu.mig_placements:
            continue  # only GPUs whose profiles and placements the catalog has verified
        misfit = mig_layout.misfit(gpu, counts)
        if misfit is not None:
            by_place.setdefault(_path(entry, misfit.profile), []).append(misfit.message)
    return [(path, "; ".join(messages)) for path, messages in by_place.items()]


def _unfiltered(entry: mig_parted.MigEntry, counts: dict[str, int]) -> list[tuple[tuple, str]]:
    """No device-filter: the entry is meant for whichever GPU the node has, so only a
    layout that no GPU can hold is certain. The catalog does not know every GPU
    (NVIDIA's own configs name profiles of newer parts), so a profile it lacks is
    reported only when no MIG GPU has instances of that many slices at all."""
    capable = [gpu for gpu in catalog.gpus() if gpu.mig_capable]
    sizes = {p.split("g.", 1)[0] for gpu in capable for p in gpu.mig_profiles}
    for profile in counts:
        if not any(profile in gpu.mig_profiles for gpu in capable):
            if profile.split("g.", 1)[0] in sizes:
                return []  # perhaps a GPU the catalog does not know
            known = ", ".join(sorted(sizes, key=int))
            message = (
                f"no MIG-capable GPU has {profile.split('g.', 1)[0]}-slice instances "
                f"(profile {profile}; MIG GPU instances have {known} slices)"
            )
            return [(_path(entry, profile), message)]
    candidates = [gpu for gpu in capable if all(p in gpu.mig_profiles for p in counts)]
    if not candidates:
        listing = ", ".join(counts)
        return [(_path(entry, None), f"no GPU has all of the profiles {listing} together")]
    misfits = [mig_layout.misfit(gpu, counts) for gpu in candidates]
    if any(m is None for m in misfits):
        return []  # some GPU can hold it (or the catalog cannot tell): not certain
    first = misfits[0]
    assert first is not None
    return [(_path(entry, first.profile), f"{first.message}, nor on any other GPU with them")]


def _path(entry: mig_parted.MigEntry, profile: str | None) -> tuple:
    if profile is not None and profile in entry.devices:
        return entry.devices[profile][1]
    return entry.path + ("mig-devices",)
