"""The vocabulary of the workload table: where a kind keeps its pod specs, as patterns.

A path pattern is a tuple of mapping keys, ``"*"`` (every value of a mapping,
e.g. a Kubeflow replica role) and ``"[]"`` (every item of a list, e.g. JobSet's
replicatedJobs). ``replicas`` patterns use the same wildcards, bound to the
values the spec pattern matched, so a role's replica count stays with its role.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.values.paths import at_path

ANY_KEY = "*"
ANY_ITEM = "[]"


@record(frozen=True)
class Built:
    """A pod spec an operator assembles from fields that are not a PodSpec.

    ``containers`` are (path, data) pairs: data is the container as the operator builds it,
    path is where it sits (or would sit) in the object. ``redirects`` map such virtual paths
    (relative to the object) to the real place the value was written, so findings and anchors
    point at the text the author wrote (``Resource.real_path``).
    """

    path: tuple
    spec: dict
    containers: tuple[tuple[tuple, dict], ...] = ()
    redirects: tuple[tuple[tuple, tuple], ...] = ()


@record(frozen=True)
class PodSite:
    """One place a kind keeps a pod spec."""

    spec: tuple  # pattern to the PodSpec (the mapping holding ``containers``)
    # Patterns to numbers whose product is how many pods the site stands for
    # (Deployment replicas; a CronJob's parallelism; a role's replicas).
    replicas: tuple[tuple, ...] = ()
    # Pattern to the pod template's metadata; default: ``spec`` with its last
    # ``spec`` replaced by ``metadata``.
    metadata: tuple | None = None
    # A fixed role name (default: the wildcard values the spec pattern bound).
    role: str | None = None
    # Extra places, relative to ``spec``, holding one container (a mapping) or a
    # list of them: KServe's framework container (``model``), Argo's ``container``.
    containers: tuple[tuple, ...] = ()
    # The name the controller gives an unnamed single container of ``containers`` (Argo's
    # ``container`` and ``script`` run as ``main``): (relative path, name).
    container_names: tuple[tuple[tuple, str], ...] = ()
    # (object, bound) -> pods, for counts that are not a product of fields
    # (LeaderWorkerSet workers: replicas x (size - 1)); wins over ``replicas``,
    # which then only names the fields that set the count.
    count: Callable[[Any, tuple], int | None] | None = None
    # (object, bound) -> role name from the object (a Ray worker group's name).
    label: Callable[[Any, tuple], str | None] | None = None
    # (object, matched path) -> the pod the operator assembles from its own fields (a Dynamo
    # service's ``resources`` and ``mainContainer``), or None when the site holds no pod the run
    # can judge; wins over reading the matched mapping as the pod spec.
    build: Callable[[Any, tuple], Built | None] | None = None
    # Findings name the container with its role (``VllmWorker/main``): the platform names every
    # role's engine container alike (Dynamo's ``main``), so the name alone says not which pod.
    qualify: bool = False

    def metadata_pattern(self) -> tuple | None:
        if self.metadata is not None:
            return self.metadata
        if self.spec and self.spec[-1] == "spec":
            return self.spec[:-1] + ("metadata",)
        return None


@record(frozen=True)
class WorkloadKind:
    """A kind of the workload table and where its pod specs are."""

    kind: str
    sites: tuple[PodSite, ...]
    group: str | None = None  # API group; None matches any group


class Kinds(list[WorkloadKind]):
    """The entries a module of CRDs adds to the table, in order (``kinds.add(...)``)."""

    def add(self, kind: str, *sites: PodSite, group: str | None = None) -> None:
        self.append(WorkloadKind(kind, sites, group))


def api_group(api_version: str) -> str:
    """``kubeflow.org`` of ``kubeflow.org/v1``; ``""`` for the core group."""
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def match(obj: Any, pattern: tuple) -> Iterator[tuple[tuple, tuple]]:
    """Concrete (path, wildcard values) for every place ``pattern`` reaches in ``obj``."""
    return _walk(pattern, obj, 0, (), ())


# Module level, not a closure: a recursive closure is a reference cycle that only the
# cyclic garbage collector frees (one per call, thousands per run).
def _walk(
    pattern: tuple, node: Any, i: int, path: tuple, bound: tuple
) -> Iterator[tuple[tuple, tuple]]:
    if i == len(pattern):
        yield path, bound
        return
    step = pattern[i]
    if step == ANY_KEY:
        if isinstance(node, dict):
            for key in node:
                yield from _walk(pattern, node[key], i + 1, path + (key,), bound + (key,))
    elif step == ANY_ITEM:
        if isinstance(node, list):
            for index, item in enumerate(node):
                yield from _walk(pattern, item, i + 1, path + (index,), bound + (index,))
    elif isinstance(node, dict) and step in node:
        yield from _walk(pattern, node[step], i + 1, path + (step,), bound)


def bind(pattern: tuple, bound: tuple) -> tuple:
    """Replace a pattern's wildcards, in order, with the values a match bound."""
    values = iter(bound)
    return tuple(next(values, None) if step in (ANY_KEY, ANY_ITEM) else step for step in pattern)


# What sits at a concrete path: the model's one lookup (model/values/paths.py).
get = at_path


def mapping(value: Any) -> dict:
    """``value`` when it is a mapping, else an empty one (a field written as something else)."""
    return value if isinstance(value, dict) else {}
