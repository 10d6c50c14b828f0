"""Can a set of GPU label requirements hold together on one node? The contradictions if not.

Used on a pod's requirements (node selector plus one required affinity term)
and on a Node's own labels (each label is then a one-value ``In``).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpulint import catalog
from gpulint.core.record import record
from gpulint.model.gpu.labels import (
    COUNT,
    FAMILY,
    GKE_ACCELERATOR,
    GKE_PARTITION,
    MEMORY,
    MIG_CAPABLE,
    MIG_PROFILE_KEY,
    MIG_STRATEGY,
    PRODUCT,
    holds_placeholder,
    is_gpu_label,
    is_model_key,
)
from gpulint.model.node_requirements import LabelRequirement


@record(frozen=True)
class Contradiction:
    """A label requirement that cannot hold with the others, and why."""

    at: LabelRequirement  # where to point: the requirement that cannot hold with the others
    message: str


def _quote(req: LabelRequirement) -> str:
    if req.operator == "In" and len(req.values) == 1:
        return f"{req.key}={req.values[0]}"
    if req.operator in ("In", "NotIn"):
        return f"{req.key} {req.operator} [{', '.join(req.values)}]"
    if req.operator in ("Gt", "Lt"):
        return f"{req.key} {req.operator} {req.values[0] if req.values else '?'}"
    return f"{req.key} {req.operator}"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _same_key_conflicts(reqs: Sequence[LabelRequirement]) -> list[Contradiction]:
    """Two requirements on one GPU label that no single value satisfies."""
    found = []
    by_key: dict[str, list[LabelRequirement]] = {}
    for req in reqs:
        if is_gpu_label(req.key) or is_model_key(req.key):
            by_key.setdefault(req.key, []).append(req)
    for key, group in by_key.items():
        if len(group) < 2:
            continue
        pinned = [r for r in group if r.operator == "In"]
        if pinned:
            # Narrow the first pinned set requirement by requirement; the one that
            # empties it is where the contradiction shows.
            first = pinned[0]
            values = set(first.values)
            for req in group:
                if req is first:
                    continue
                values = {v for v in values if req.allows(v)}
                if not values:
                    message = f"{_quote(req)} contradicts {_quote(first)}: no node has both"
                    found.append(Contradiction(req, message))
                    break
            continue
        ops = {r.operator for r in group}
        if "Exists" in ops and "DoesNotExist" in ops:
            found.append(
                Contradiction(group[-1], f"{key} is required both to exist and not to exist")
            )
    return found


def _candidates(reqs: Sequence[LabelRequirement]) -> tuple[LabelRequirement, list[str]] | None:
    """The requirement that pins the GPU model and its values, when every value is known."""
    for key in (PRODUCT, GKE_ACCELERATOR):
        pinned = [r for r in reqs if r.key == key and r.operator == "In" and r.values]
        if not pinned:
            continue
        values = set(pinned[0].values)
        for r in pinned[1:]:
            values &= set(r.values)
        values_sorted = sorted(values)
        if not values_sorted:
            return None  # reported as a same-key contradiction
        if key == PRODUCT and all(catalog.gpu_for_product(v) for v in values_sorted):
            return pinned[0], values_sorted
        gke = catalog.gke_accelerators()
        if key == GKE_ACCELERATOR and all(gke.get(v) for v in values_sorted):
            return pinned[0], values_sorted
    return None


def _gpu_of(source: LabelRequirement, value: str) -> tuple[catalog.Gpu, str | None, bool]:
    """(GPU, MIG profile of a MIG-single product label, label says MIG-INVALID)."""
    if source.key == GKE_ACCELERATOR:
        gpu = catalog.gke_accelerators()[value]
        assert gpu is not None
        return gpu, None, False
    _base, profile, _shared = catalog.split_product(value)
    gpu = catalog.gpu_for_product(value)
    assert gpu is not None
    return gpu, (None if profile == "INVALID" else profile), profile == "INVALID"


def _mib(gpu: catalog.Gpu) -> str:
    known = sorted({m for m in (gpu.memory_mib, *gpu.memory_mib_observed) if m})
    return " or ".join(str(m) for m in known) + " MiB" if known else "unknown memory"


def _memory_conflict(gpu: catalog.Gpu, req: LabelRequirement) -> bool:
    known = [m for m in (gpu.memory_mib, *gpu.memory_mib_observed) if m]
    if not known:
        return False
    tol = catalog.MEMORY_TOLERANCE
    if req.operator == "In":
        numbers = [n for n in (_number(v) for v in req.values) if n is not None]
        if len(numbers) != len(req.values):
            return False  # not a number: nothing to compare
        return not any(gpu.memory_matches(n) for n in numbers)
    bound = _number(req.values[0]) if req.values else None
    if bound is None:
        return False
    if req.operator == "Gt":
        return max(known) * (1 + tol) <= bound
    if req.operator == "Lt":
        return min(known) * (1 - tol) >= bound
    return False


def _why_not(
    gpu: catalog.Gpu,
    name: str,
    profile: str | None,
    invalid: bool,
    others: Sequence[LabelRequirement],
) -> tuple[LabelRequirement | None, str] | None:
    """The first requirement that the GPU ``name`` cannot satisfy, with the reason."""
    gke = catalog.gke_accelerators()
    for req in others:
        key, op = req.key, req.operator
        if key == MEMORY and profile is None and not invalid and _memory_conflict(gpu, req):
            return req, (
                f"{_quote(req)} does not fit {name}, whose nodes report {_mib(gpu)} "
                f"(within {catalog.MEMORY_TOLERANCE:.0%}): a label left over from other hardware"
            )
        family_req = key == FAMILY and op in ("In", "NotIn") and req.values
        if family_req and gpu.family and (gpu.family in req.values) != (op == "In"):
            return req, f"{_quote(req)} contradicts {name}, a {gpu.family} GPU"
        if key == COUNT and op == "In" and not invalid and profile is None:
            counts = [_number(v) for v in req.values]
            if all(c is not None and c < 1 for c in counts):
                return req, (
                    f"{_quote(req)} contradicts {name}: GPU feature discovery writes "
                    "a count of 0 only with a -MIG-INVALID product"
                )
        if key == GKE_ACCELERATOR and op == "In" and req.values:
            mapped = [gke.get(v) for v in req.values]
            if all(mapped) and gpu not in mapped:
                return req, f"{_quote(req)} is a different GPU from {name}"
        if key == PRODUCT and op == "In" and req.values:
            mapped = [catalog.gpu_for_product(v) for v in req.values]
            if all(mapped) and gpu not in mapped:
                return req, f"{_quote(req)} is a different GPU from {name}"
        if key == MIG_STRATEGY and op == "In" and profile and set(req.values) == {"mixed"}:
            return req, (
                f"{_quote(req)} contradicts {name}: GPU feature discovery adds -MIG-<profile> "
                "to the product only under the single strategy"
            )
        mig = _mig_conflict(gpu, name, req)
        if mig:
            return req, mig
    if profile is not None:
        if not gpu.mig_capable:
            return None, f"{name} names a MIG device, but {gpu.id} does not support MIG"
        if profile not in gpu.mig_profiles:
            return None, (
                f"{name} names MIG profile {profile}, which {gpu.id} does not offer "
                f"(it offers {', '.join(sorted(gpu.mig_profiles))})"
            )
    return None


def _mig_conflict(gpu: catalog.Gpu, name: str, req: LabelRequirement) -> str | None:
    key, op, values = req.key, req.operator, req.values
    positive = op == "In" and bool(values) or op in ("Exists", "Gt")
    profiles = {catalog.mig_resource_profile(p) for p in gpu.mig_profiles} | set(gpu.mig_profiles)
    if key == MIG_CAPABLE and op == "In" and values:
        wanted = {v.lower() for v in values}
        if gpu.mig_capable and wanted == {"false"}:
            return f"{_quote(req)} contradicts {name}, which supports MIG"
        if not gpu.mig_capable and wanted == {"true"}:
            return f"{_quote(req)} contradicts {name}, which does not support MIG"
        return None
    if gpu.mig_capable:
        match = MIG_PROFILE_KEY.match(key)
        if match and positive and match.group("profile") not in profiles:
            return (
                f"{_quote(req)} names MIG profile {match.group('profile')}, which {name} "
                f"does not offer (it offers {', '.join(sorted(gpu.mig_profiles))})"
            )
        if key == GKE_PARTITION and op == "In" and values and not set(values) & profiles:
            return f"{_quote(req)} is not a MIG profile of {name}"
        return None
    # Not MIG-capable: labels written only for MIG devices contradict it. (Not
    # nvidia.com/mig.strategy, which GFD writes on every node when the plugin's
    # strategy is single or mixed, nor nvidia.com/mig.config, which users set.)
    if (MIG_PROFILE_KEY.match(key) or key == GKE_PARTITION) and positive:
        return f"{_quote(req)} asks for MIG devices, but {name} does not support MIG"
    return None


def contradictions(reqs: Sequence[LabelRequirement]) -> list[Contradiction]:
    """Why no node can carry all of ``reqs`` (one conjunction of requirements).

    Only knowledge from the catalog is used; an unknown product or a value
    gpulint cannot compare is never called a contradiction.
    """
    reqs = [r for r in reqs if not holds_placeholder(r)]  # nothing to compare yet
    found = _same_key_conflicts(reqs)
    if found:
        return found
    pinned = _candidates(reqs)
    if pinned is None:
        return []
    source, values = pinned
    others = [r for r in reqs if r is not source]
    reasons = []
    for value in values:
        gpu, profile, invalid = _gpu_of(source, value)
        why = _why_not(gpu, value, profile, invalid, others)
        if why is None:
            return []  # this value can hold together with the rest
        reasons.append(why)
    if len(reasons) == 1:
        at, message = reasons[0]
        return [Contradiction(at or source, message)]
    joined = "; ".join(message for _at, message in reasons)
    return [Contradiction(source, f"none of {_quote(source)} can hold: {joined}")]
