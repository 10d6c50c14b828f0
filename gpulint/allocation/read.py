"""The report's inputs: the node dump, the pod dump, manifests whose pods count as pending.

Everything is read through ``inputs/cluster.py`` (the reading ``gpulint check --cluster
--pods`` does), one document at a time, and the pod dump once: nodes first, then one
pass that adds up what bound pods hold and keeps the pods that wait.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from gpulint.allocation.model import Report, node_row, product_rows
from gpulint.allocation.pending import Waiting, pending_rows
from gpulint.allocation.tally import Tally
from gpulint.core.findings import InputError
from gpulint.core.record import record
from gpulint.inputs import cluster as dumps
from gpulint.inputs.discover import Target, discover
from gpulint.model.resource import Resource
from gpulint.model.scheduling.filters import pod_requirements
from gpulint.model.scheduling.inventory import Inventory
from gpulint.model.scheduling.nodes import NodeView, is_node, node_view
from gpulint.model.scheduling.placement import pods_of

Progress = Callable[[str], None]
# How often, in pods read, a large dump's progress is told.
PROGRESS_EVERY = 5000


@record(frozen=True)
class Inputs:
    """What the report reads, found before anything is read (to refuse an output over it)."""

    nodes: tuple[Target, ...]
    pods: str | None
    manifests: tuple[Target, ...]
    errors: tuple[InputError, ...]


def gather(cluster: Sequence[str], pods: str | None, paths: Sequence[str]) -> Inputs:
    errors: list[InputError] = []
    nodes: list[Target] = []
    if cluster:
        nodes, errors = dumps.inventory_targets(cluster)
    manifests, manifest_errors = discover(list(paths)) if paths else ([], [])
    return Inputs(tuple(nodes), pods, tuple(manifests), tuple(errors + manifest_errors))


def _owner(pod: Resource) -> tuple[str, str] | None:
    """(kind, name) of the pod's controller, where its ownerReferences say."""
    refs = pod.metadata.get("ownerReferences")
    refs = [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []
    ref = next((r for r in refs if r.get("controller") is True), refs[0] if refs else None)
    if ref is None or not ref.get("kind") or not ref.get("name"):
        return None
    return str(ref["kind"]), str(ref["name"])


def _read_nodes(targets: Iterable[Target], errors: list[InputError]) -> list[NodeView]:
    found: dict[str, NodeView] = {}
    for resource in dumps.read_resources(targets, errors):
        if is_node(resource):
            found.setdefault(resource.name, node_view(resource))  # the first of a name wins
    return [found[name] for name in sorted(found)]


def _read_pods(
    path: str, tally: Tally, waiting: list[Waiting], progress: Progress | None
) -> list[InputError]:
    seen = [0]

    def visit(pod: Resource) -> None:
        seen[0] += 1
        if progress is not None and seen[0] % PROGRESS_EVERY == 0:
            progress(f"{seen[0]} pods read")
        gpus = dumps.pod_gpus(pod)
        if not gpus:
            return
        namespace = pod.namespace or "default"
        node = dumps.holding_node(pod)
        if node is not None:
            tally.add(node, namespace, _owner(pod), gpus)
        elif not dumps.is_finished(pod) and not _bound(pod):
            waiting.append(Waiting(namespace, pod.name, pod_requirements(_spec(pod), gpus)))

    return dumps.each_pod(path, visit)


def _spec(resource: Resource) -> dict:
    spec = resource.obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _bound(pod: Resource) -> bool:
    return bool(_spec(pod).get("nodeName"))


def _manifest_pods(targets: Iterable[Target], errors: list[InputError]) -> Iterator[Waiting]:
    """Every GPU pod template of the manifests, as pods that wait for a node."""
    for resource in dumps.read_resources(targets, errors):
        for pod in resource.pod_specs:
            gpus = pod.effective_gpus
            count = pods_of(resource, pod)  # None: a DaemonSet or a template, judged as one
            if not gpus or count == 0:
                continue
            name = resource.name if resource.kind == "Pod" else f"{resource.kind}/{resource.name}"
            name += f" ({pod.role})" if pod.role else ""
            yield Waiting(
                namespace=resource.namespace or "default",
                name=name,
                req=pod_requirements(pod.spec, gpus),
                pods=max(count or 1, 1),
                source=resource.doc.source.path,
            )


def build(inputs: Inputs, progress: Progress | None = None) -> tuple[Report, list[InputError]]:
    """The report, and the input errors met while reading; ``progress`` is told how far the
    reading has got (a terminal shows it for a dump of thousands of pods)."""
    errors: list[InputError] = []
    nodes = _read_nodes(inputs.nodes, errors)
    if progress is not None:
        progress(f"{len(nodes)} nodes read")
    tally = Tally()
    waiting: list[Waiting] = []
    if inputs.pods:
        errors.extend(_read_pods(inputs.pods, tally, waiting, progress))
    waiting.extend(_manifest_pods(inputs.manifests, errors))
    cluster = Inventory(nodes, tally.usage)
    rows = [row for n in nodes if (row := node_row(n, tally.usage.get(n.name))) is not None]
    report = Report(
        nodes=tuple(rows),
        products=product_rows(rows),
        namespaces=tally.namespace_rows(),
        owners=tally.owner_rows(),
        pending=tuple(pending_rows(waiting, cluster)),
        notes=tuple(_notes(inputs, nodes, tally)),
    )
    return report, errors


def _notes(inputs: Inputs, nodes: list[NodeView], tally: Tally) -> Iterator[str]:
    if not inputs.pods:
        yield "no --pods dump: nothing is counted as allocated"
    known = {n.name for n in nodes}
    elsewhere = sorted(name for name in tally.usage if name not in known)
    if elsewhere:
        held = sum(sum(tally.usage[name].values()) for name in elsewhere)
        yield (
            f"{held} GPU(s) held on {len(elsewhere)} node(s) the --cluster dump does not hold "
            f"(counted in namespaces only): {', '.join(elsewhere[:5])}"
            + (" ..." if len(elsewhere) > 5 else "")
        )
