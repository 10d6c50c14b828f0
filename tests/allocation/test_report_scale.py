"""Linear cost: the pod dump is read once, and pending pods of one template are judged once
(the scheduler filters run per pool of identical nodes, not per node and pod); progress is
told as the dump is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulint.allocation import pending, read
from gpulint.allocation.read import build, gather
from gpulint.inputs import cluster
from gpulint.model.scheduling import inventory

NODE = """
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-{i}
    labels: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
  status:
    allocatable: {{nvidia.com/gpu: "8"}}
"""
POD = """
- apiVersion: v1
  kind: Pod
  metadata: {{name: {name}, namespace: ns-{ns}}}
  spec:
    {bound}
    containers:
      - {{name: c, image: busybox, resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}}}
  status: {{phase: {phase}}}
"""


def _dumps(tmp_path: Path, n: int) -> tuple[Path, Path]:
    nodes = tmp_path / f"nodes-{n}.yaml"
    nodes.write_text(
        "apiVersion: v1\nkind: List\nitems:" + "".join(NODE.format(i=i) for i in range(n))
    )
    pods = [POD.format(name=f"run-{i}", ns=i % 7, bound=f"nodeName: gpu-{i}", gpus=7,
                       phase="Running") for i in range(n)]  # fmt: skip
    pods += [POD.format(name=f"wait-{i}", ns=i % 7, bound="", gpus=2, phase="Pending")
             for i in range(n)]  # fmt: skip
    path = tmp_path / f"pods-{n}.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems:" + "".join(pods))
    return nodes, path


@pytest.mark.parametrize("n", [50, 100])
def test_work_does_not_grow_with_pods_times_nodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    judged, filtered, visited = [], [], []
    real_judge, real_first, real_each = pending.judge, inventory.first_failure, cluster.each_pod
    monkeypatch.setattr(pending, "judge", lambda *a: judged.append(1) or real_judge(*a))
    monkeypatch.setattr(inventory, "first_failure", lambda *a: filtered.append(1) or real_first(*a))

    def each_pod(path, visit):
        visited.append(path)
        return real_each(path, visit)

    monkeypatch.setattr(cluster, "each_pod", each_pod)
    monkeypatch.setattr(read, "PROGRESS_EVERY", 25)
    nodes, pods = _dumps(tmp_path, n)
    told: list[str] = []
    report, errors = build(gather((str(nodes),), str(pods), ()), told.append)
    assert errors == []
    assert len(report.nodes) == n and len(report.pending) == n
    assert {(p.fits, p.reason) for p in report.pending} == {(False, "fragmentation")}
    assert sum(ns.allocated for ns in report.namespaces) == 7 * n
    assert len(visited) == 1  # one pass over the pod dump
    assert len(judged) == 1  # n pending pods of one template: judged once
    assert len(filtered) == 1  # n identical nodes: one pool
    # progress, for a terminal: the nodes, then every PROGRESS_EVERY pods of the 2n
    assert told == [f"{n} nodes read"] + [f"{k} pods read" for k in range(25, 2 * n + 1, 25)]
