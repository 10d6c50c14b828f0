"""``gpulint report --format json`` on a cluster dump of our own (tests/data/allocation/):
two A100 nodes with one free GPU each, a cordoned H100 node, a finished pod, an init
container, a MIG node, a time-sliced node, a node without GPUs, and pending pods that
fit or do not (fragmentation, cordon, taint, capacity)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulint.cli.report_command import run
from tests.helpers import DATA

DUMPS = DATA / "allocation"
NODES = str(DUMPS / "nodes.yaml")
PODS = str(DUMPS / "pods.yaml")
MANIFESTS = str(DUMPS / "manifests.yaml")

# The keys the issue fixes, for each section.
REQUIRED = {
    "nodes": ("name", "product", "allocatable", "allocated", "free", "schedulable"),
    "products": ("product", "allocatable", "allocated", "free", "largest_free"),
    "namespaces": ("namespace", "allocated"),
    "pending": ("namespace", "name", "gpus", "fits", "reason"),
}


def _report(tmp_path: Path, *paths: str, pods: str | None = PODS) -> dict:
    out = tmp_path / "report.json"
    assert run((NODES,), pods, tuple(paths), "json", str(out)) == 0
    return json.loads(out.read_text())


def _pick(rows: list[dict], section: str) -> list[dict]:
    return [{k: row[k] for k in REQUIRED[section]} for row in rows]


@pytest.fixture
def report(tmp_path: Path) -> dict:
    return _report(tmp_path, MANIFESTS)


def test_nodes_exact(report: dict) -> None:
    # cpu-1 advertises no GPUs: not a GPU node. a100-2: the Succeeded pod's 4 GPUs are not
    # held. a100-1: 4 + 3 (an init container of 3 beside app containers of 1 + 1).
    assert _pick(report["nodes"], "nodes") == [
        {"name": "a100-1", "product": "NVIDIA-A100-SXM4-80GB", "allocatable": 8,
         "allocated": 7, "free": 1, "schedulable": True},
        {"name": "a100-2", "product": "NVIDIA-A100-SXM4-80GB", "allocatable": 8,
         "allocated": 7, "free": 1, "schedulable": True},
        {"name": "h100-1", "product": "NVIDIA-H100-80GB-HBM3", "allocatable": 8,
         "allocated": 0, "free": 8, "schedulable": False},
        {"name": "mig-1", "product": "NVIDIA-A100-SXM4-40GB", "allocatable": 0,
         "allocated": 0, "free": 0, "schedulable": True},
        {"name": "ts-1", "product": "NVIDIA-L4-SHARED", "allocatable": 0,
         "allocated": 0, "free": 0, "schedulable": True},
    ]  # fmt: skip
    assert report["nodes"][2]["unschedulable_reason"] == "cordoned"


def test_mig_and_shared_resources_per_node(report: dict) -> None:
    nodes = {n["name"]: n for n in report["nodes"]}
    assert nodes["mig-1"]["mig"] == {
        "nvidia.com/mig-1g.5gb": {"allocatable": 4, "allocated": 2, "free": 2},
        "nvidia.com/mig-2g.10gb": {"allocatable": 1, "allocated": 0, "free": 1},
    }
    assert nodes["mig-1"]["shared"] == {}
    assert nodes["ts-1"]["shared"] == {
        "nvidia.com/gpu.shared": {"allocatable": 8, "allocated": 3, "free": 5}
    }
    assert (nodes["ts-1"]["sharing"], nodes["ts-1"]["replicas"]) == ("time-slicing", 4)
    assert nodes["a100-1"]["mig"] == nodes["a100-1"]["shared"] == {}


def test_products_exact_with_largest_free(report: dict) -> None:
    # 2 A100s free, but split 1 + 1: one pod gets 1 at most. The H100s are free but
    # cordoned: a new pod gets none of them.
    assert _pick(report["products"], "products") == [
        {"product": "NVIDIA-A100-SXM4-40GB", "allocatable": 0, "allocated": 0, "free": 0,
         "largest_free": 0},
        {"product": "NVIDIA-A100-SXM4-80GB", "allocatable": 16, "allocated": 14, "free": 2,
         "largest_free": 1},
        {"product": "NVIDIA-H100-80GB-HBM3", "allocatable": 8, "allocated": 0, "free": 8,
         "largest_free": 0},
        {"product": "NVIDIA-L4-SHARED", "allocatable": 0, "allocated": 0, "free": 0,
         "largest_free": 0},
    ]  # fmt: skip
    h100 = report["products"][2]
    assert (h100["nodes"], h100["free_schedulable"]) == (1, 0)


def test_namespaces_and_owners_exact(report: dict) -> None:
    assert report["namespaces"] == [
        {"namespace": "ml", "allocated": 7, "pods": 3,
         "resources": {"nvidia.com/gpu": 7, "nvidia.com/mig-1g.5gb": 2}},
        {"namespace": "research", "allocated": 7, "pods": 1, "resources": {"nvidia.com/gpu": 7}},
        {"namespace": "serving", "allocated": 0, "pods": 1,
         "resources": {"nvidia.com/gpu.shared": 3}},
    ]  # fmt: skip
    assert [(o["namespace"], o["kind"], o["name"], o["allocated"]) for o in report["owners"]] == [
        ("ml", "Job", "prep", 3),
        ("ml", "Job", "train-a", 4),
        ("research", "StatefulSet", "notebook", 7),
        ("serving", "ReplicaSet", "llm-7d9f", 0),
    ]


def test_pending_exact(report: dict) -> None:
    assert _pick(report["pending"], "pending") == [
        # 2 GPUs: the A100 nodes have 1 free each, the H100 node is cordoned
        {"namespace": "ml", "name": "train-b-0", "gpus": 2, "fits": False,
         "reason": "fragmentation"},
        # the only node of the product it selects is cordoned
        {"namespace": "ml", "name": "h100-job-0", "gpus": 4, "fits": False, "reason": "cordon"},
        # the nodes with a free GPU are tainted and the pod has no toleration
        {"namespace": "research", "name": "untolerated-0", "gpus": 1, "fits": False,
         "reason": "taint"},
        {"namespace": "research", "name": "small-0", "gpus": 1, "fits": True, "reason": None},
        # from the manifests: 2 replicas of 1 GPU, one on each A100 node
        {"namespace": "serving", "name": "Deployment/embed", "gpus": 1, "fits": True,
         "reason": None},
        # 3 MIG slices where 2 are free
        {"namespace": "ml", "name": "mig-batch", "gpus": 3, "fits": False, "reason": "capacity"},
    ]  # fmt: skip
    first = report["pending"][0]
    assert first["detail"] == (
        "2 nvidia.com/gpu free on 2 node(s) that take the pod, at most 1 on one; it needs 2; "
        "0/6 nodes are available: 1 node(s) were unschedulable, 5 Insufficient nvidia.com/gpu."
    )
    assert (first["source"], first["pods"]) == ("pods", 1)
    embed = report["pending"][4]
    assert embed["pods"] == 2 and embed["source"].endswith("manifests.yaml")


def test_every_required_key_is_there(report: dict) -> None:
    for section, keys in REQUIRED.items():
        assert report[section], section
        for row in report[section]:
            assert set(keys) <= set(row), (section, row)
    assert report["notes"] == []


def test_without_pods_nothing_is_allocated_and_a_note_says_so(tmp_path: Path) -> None:
    report = _report(tmp_path, pods=None)
    assert {n["allocated"] for n in report["nodes"]} == {0}
    assert report["pending"] == [] and report["namespaces"] == []
    assert report["notes"] == ["no --pods dump: nothing is counted as allocated"]


def test_replicas_beyond_the_room_are_short_of_capacity(tmp_path: Path, write) -> None:
    manifest = write(
        "deploy.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: wide, namespace: serving}
        spec:
          replicas: 3
          selector: {matchLabels: {app: wide}}
          template:
            metadata: {labels: {app: wide}}
            spec:
              tolerations: [{operator: Exists}]
              containers:
                - name: s
                  image: busybox
                  resources: {limits: {nvidia.com/gpu: 1}}
        """,
    )
    # tolerating everything, the cordoned H100 node takes pods too: 1 + 1 + 8 of room
    (row,) = _report(tmp_path, str(manifest), pods=PODS)["pending"][-1:]
    assert (row["name"], row["fits"]) == ("Deployment/wide", True)
    manifest.write_text(manifest.read_text().replace("replicas: 3", "replicas: 11"))
    (row,) = _report(tmp_path, str(manifest), pods=PODS)["pending"][-1:]
    assert (row["fits"], row["reason"]) == (False, "capacity")
    assert row["detail"].startswith("room for 10 of 11 pods now; ")
    manifest.write_text(manifest.read_text().replace("replicas: 11", "replicas: 0"))
    assert _report(tmp_path, str(manifest), pods=PODS)["pending"][-1]["name"] != "Deployment/wide"


def test_a_node_missing_from_the_node_dump_is_a_note(tmp_path: Path, write) -> None:
    pods = write(
        "pods.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ml}
        spec:
          nodeName: gone-1
          containers:
            - {name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 2}}}
        status: {phase: Running}
        """,
    )
    report = _report(tmp_path, pods=str(pods))
    assert report["namespaces"][0]["allocated"] == 2
    assert report["notes"] == [
        "2 GPU(s) held on 1 node(s) the --cluster dump does not hold (counted in namespaces "
        "only): gone-1"
    ]
