"""Whether a set of MIG instances fits on one GPU.

Three limits, from the catalog (``mig_profiles``, ``mig_max_instances``,
``mig_placements``): the profile must exist on the GPU; no profile may exceed
its own instance count (one ``+me`` instance: the GPU has one set of media
engines); and every instance needs a free run of memory slices at one of its
profile's valid start positions (NVML: creating an instance "will fail if there
is overlap with the already occupied memory slices"). On an A100 40 GB two
``3g.20gb`` start at slices 0 and 4 and take all eight, so nothing else fits.
"""

from __future__ import annotations

from gpulint.catalog import Gpu
from gpulint.core.record import record

Instance = tuple[tuple[int, ...], int]  # valid starts, memory slices taken


@record(frozen=True)
class Misfit:
    """Why MIG instances do not fit one GPU: the kind of misfit, the profile, the message."""

    kind: str  # "profile", "count" or "placement"
    profile: str | None  # the profile at fault (None: the layout as a whole)
    message: str


def misfit(gpu: Gpu, counts: dict[str, int]) -> Misfit | None:
    """Why ``counts`` (profile -> instances) cannot be created on ``gpu``; None if they can
    or the catalog does not know enough to say."""
    for profile in counts:
        if profile not in gpu.mig_profiles:
            return Misfit("profile", profile, f"{gpu_name(gpu)} has no MIG profile {profile}")
    for profile, count in counts.items():
        most = gpu.mig_profiles[profile]
        if count > most:
            return Misfit(
                "count",
                profile,
                f"{gpu_name(gpu)} holds at most {most} {profile} instance(s), not {count}",
            )
    total = sum(counts.values())
    if gpu.mig_max_instances is not None and total > gpu.mig_max_instances:
        return Misfit(
            "count",
            None,
            f"{gpu_name(gpu)} holds at most {gpu.mig_max_instances} MIG instances, not {total}",
        )
    instances: list[Instance] = []
    for profile, count in counts.items():
        placement = gpu.placement(profile)
        if placement is None:
            return None  # placements unknown: cannot tell
        instances.extend([placement] * count)
    slices = max(start + size for _name, starts, size in gpu.mig_placements for start in starts)
    if fits(instances, slices):
        return None
    shown = ", ".join(f"{p} {_form(gpu.placement(p))}" for p in counts)
    return Misfit(
        "placement",
        None,
        f"{_listing(counts)} do not fit on one {gpu_name(gpu)}: instances start only at fixed "
        f"positions of its {slices} memory slices ({shown}, as nvidia-smi mig -lgipp lists them)",
    )


def fits(instances: list[Instance], slices: int) -> bool:
    """Whether every instance gets a free run of slices at one of its valid starts."""
    ordered = sorted(instances, key=lambda i: -i[1])  # the largest first: fewest choices
    return _place(ordered, 0, 0, slices)


def _place(instances: list[Instance], index: int, used: int, slices: int) -> bool:
    if index == len(instances):
        return True
    starts, size = instances[index]
    run = (1 << size) - 1
    for start in starts:
        mask = run << start
        fits_here = start + size <= slices and not used & mask
        if fits_here and _place(instances, index + 1, used | mask, slices):
            return True
    return False


def gpu_name(gpu: Gpu) -> str:
    labels = [label for label in gpu.product_labels if label.startswith("NVIDIA-")]
    return (labels or list(gpu.product_labels) or [gpu.id])[0]


def _form(placement: Instance | None) -> str:
    if placement is None:
        return "?"
    starts, size = placement
    return "{" + ",".join(str(s) for s in starts) + "}:" + str(size)


def _listing(counts: dict[str, int]) -> str:
    return " + ".join(f"{count}x {profile}" for profile, count in counts.items())
