"""The cluster inventory for ``gpulint check --cluster NODES [--pods PODS]``.

Node files are linted like any input (so every rule sees the Node objects and
the cluster rules collect them); this module finds those files, makes sure they
hold Nodes (from their bytes where those settle it, so an inventory is normally
parsed once, by the lint run), and reads an optional pod dump into GPUs held per
node, one document at a time. Both go through the normal read and parse path;
nothing here talks to a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from gpulint.core.findings import InputError
from gpulint.core.settings import ClusterOptions, Settings
from gpulint.inputs.discover import Target, discover
from gpulint.inputs.prescan import readable_bytes
from gpulint.inputs.readers import PLAIN
from gpulint.model.resource import Resource, release, resources_of
from gpulint.model.scheduling.nodes import is_node
from gpulint.model.values.gpu_resources import add_counts
from gpulint.rules.triggers import kind_is
from gpulint.yaml.parse import documents

# Pods in these phases hold nothing any more.
_DONE_PHASES = ("Succeeded", "Failed")


def read_resources(targets: Iterable[Target], errors: list[InputError]) -> Iterator[Resource]:
    """Every resource of the targets, read and parsed the way linting does, one document
    at a time (a pod dump of a large cluster runs to hundreds of megabytes)."""
    for target in targets:
        sources, read_errors = PLAIN.read(target, Settings())
        errors.extend(read_errors)
        for source in sources:
            for doc in documents(source, errors):
                yield from resources_of(doc)
                release(doc)


_NODE = kind_is("Node")


def _holds_nodes(target: Target) -> bool | None:
    """Whether a file holds a Node; None when it cannot be read or parsed (the lint run
    reports that). A file whose bytes can spell a Node kind is taken to hold one, so the
    common case is not parsed twice; only the others are parsed here, to be sure."""
    data = readable_bytes(target)
    if data and _NODE.matches(data):
        return True
    errors: list[InputError] = []
    found = any(is_node(r) for r in read_resources([target], errors))
    return None if errors and not found else found


def inventory_targets(paths: Iterable[str]) -> tuple[list[Target], list[InputError]]:
    """The Node files behind ``--cluster``; a file without a single Node is an input error."""
    targets, errors = discover(list(paths))
    for target in targets:
        if _holds_nodes(target) is False:
            errors.append(
                InputError(
                    target.path,
                    "no Node objects in this --cluster file "
                    "(expected the output of 'kubectl get nodes -o yaml')",
                )
            )
    if not targets and not errors:
        errors.append(InputError(", ".join(paths), "--cluster found no YAML or JSON files"))
    return targets, errors


def holding_node(pod: Resource) -> str | None:
    """The node a pod holds its GPUs on: bound (``spec.nodeName``) and not finished."""
    spec = pod.obj.get("spec")
    node = spec.get("nodeName") if isinstance(spec, dict) else None
    return str(node) if node and not is_finished(pod) else None


def is_finished(pod: Resource) -> bool:
    """Succeeded or Failed: the pod holds nothing any more."""
    status = pod.obj.get("status")
    return isinstance(status, dict) and status.get("phase") in _DONE_PHASES


def pod_gpus(pod: Resource) -> dict[str, int]:
    """The pod's effective GPU request per resource (init containers as the scheduler counts)."""
    held: dict[str, int] = {}
    for spec in pod.pod_specs:
        add_counts(held, spec.effective_gpus)
    return held


def each_pod(path: str, visit: Callable[[Resource], None]) -> list[InputError]:
    """Call ``visit`` with every Pod of ``kubectl get pods -A -o yaml``, one document at a
    time (while its document is alive); the input errors, a dump without a Pod among them."""
    targets, errors = discover([path])
    pods = 0
    for resource in read_resources(targets, errors):
        if resource.kind == "Pod":
            pods += 1
            visit(resource)
    if not pods and not errors:
        errors.append(
            InputError(
                path,
                "no Pod objects in this --pods file "
                "(expected the output of 'kubectl get pods -A -o yaml')",
            )
        )
    return errors


def pod_usage(path: str) -> tuple[dict[str, dict[str, int]], list[InputError]]:
    """GPUs held per node by the pods of ``kubectl get pods -A -o yaml``.

    A pod holds its effective request on the node it is bound to until it
    succeeds or fails; pods not yet bound hold nothing.
    """
    usage: dict[str, dict[str, int]] = {}

    def add(pod: Resource) -> None:
        node = holding_node(pod)
        if node is not None:
            add_counts(usage.setdefault(node, {}), pod_gpus(pod))

    errors = each_pod(path, add)
    return {node: held for node, held in usage.items() if held}, errors


def prepare(
    cluster: Iterable[str], pods: str | None
) -> tuple[list[Target], ClusterOptions, list[InputError]]:
    """Targets to lint besides the manifests, ``Settings.cluster``, and input errors."""
    targets: list[Target] = []
    usage: dict[str, dict[str, int]] = {}
    errors: list[InputError] = []
    cluster = list(cluster)
    if cluster:
        targets, errors = inventory_targets(cluster)
    if pods:
        usage, pod_errors = pod_usage(pods)
        errors.extend(pod_errors)
    return targets, ClusterOptions(tuple(t.path for t in targets), usage), errors
