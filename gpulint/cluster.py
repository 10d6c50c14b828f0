"""The cluster inventory for ``gpulint check --cluster NODES [--pods PODS]``.

Node files are linted like any input (so every rule sees the Node objects and
the cluster rules collect them); this module finds those files, makes sure they
hold Nodes, and reads an optional pod dump into GPUs held per node. Both go
through the normal read and parse path; nothing here talks to a cluster.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpulint.discover import Target, discover
from gpulint.engine import read_target
from gpulint.findings import InputError
from gpulint.model.nodes import is_node
from gpulint.model.placement import CLUSTER, USAGE
from gpulint.model.resource import Resource, resources_of
from gpulint.parse import parse
from gpulint.settings import Settings

# Pods in these phases hold nothing any more.
_DONE_PHASES = ("Succeeded", "Failed")


def _resources(targets: Iterable[Target]) -> tuple[dict[str, list[Resource]], list[InputError]]:
    """Resources per file, read and parsed the way linting does."""
    found: dict[str, list[Resource]] = {}
    errors: list[InputError] = []
    for target in targets:
        sources, read_errors = read_target(target, Settings())
        errors.extend(read_errors)
        for source in sources:
            documents, parse_errors = parse(source)
            errors.extend(parse_errors)
            found[source.path] = [r for doc in documents for r in resources_of(doc)]
    return found, errors


def inventory_targets(paths: Iterable[str]) -> tuple[list[Target], list[InputError]]:
    """The Node files behind ``--cluster``; a file without a single Node is an input error."""
    targets, errors = discover(list(paths))
    # Read and parse errors are left to the lint run, which reads these files again.
    by_file, read_errors = _resources(targets)
    broken = {e.file for e in read_errors}
    for target in targets:
        if target.path in broken:
            continue
        if target.path in by_file and not any(is_node(r) for r in by_file[target.path]):
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


def pod_usage(path: str) -> tuple[dict[str, dict[str, int]], list[InputError]]:
    """GPUs held per node by the pods of ``kubectl get pods -A -o yaml``.

    A pod holds its effective request on the node it is bound to until it
    succeeds or fails; pods not yet bound hold nothing.
    """
    targets, errors = discover([path])
    by_file, read_errors = _resources(targets)
    errors.extend(read_errors)
    usage: dict[str, dict[str, int]] = {}
    pods = 0
    for resources in by_file.values():
        for resource in resources:
            if resource.kind != "Pod":
                continue
            pods += 1
            spec = resource.obj.get("spec")
            status = resource.obj.get("status")
            node = spec.get("nodeName") if isinstance(spec, dict) else None
            phase = status.get("phase") if isinstance(status, dict) else None
            if not node or phase in _DONE_PHASES:
                continue
            held = usage.setdefault(str(node), {})
            for pod in resource.pod_specs:
                for name, count in pod.effective_gpus.items():
                    held[name] = held.get(name, 0) + count
    if not pods and not errors:
        errors.append(
            InputError(
                path,
                "no Pod objects in this --pods file "
                "(expected the output of 'kubectl get pods -A -o yaml')",
            )
        )
    return {node: held for node, held in usage.items() if held}, errors


def prepare(
    cluster: Iterable[str], pods: str | None
) -> tuple[list[Target], dict, list[InputError]]:
    """Targets to lint besides the manifests, ``Settings.extra`` entries, and input errors."""
    targets: list[Target] = []
    extra: dict = {}
    errors: list[InputError] = []
    cluster = list(cluster)
    if cluster:
        targets, errors = inventory_targets(cluster)
        extra[CLUSTER] = tuple(t.path for t in targets)
    if pods:
        usage, pod_errors = pod_usage(pods)
        extra[USAGE] = usage
        errors.extend(pod_errors)
    return targets, extra, errors
