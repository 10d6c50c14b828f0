"""The cost of `--cluster`: GPU workloads checked against a large Node inventory.

Generates NODES Nodes in twelve pool shapes (CPU, T4, A100, H100, cordoned, MIG-mixed) and
WORKLOADS GPU Deployments, then compares, interleaved, the same run with and without
`--cluster` (GPU210 and GPU211 only, so the difference is the cluster check itself plus
reading the inventory).

    python benchmarks/bench_cluster.py [--nodes 1000] [--workloads 500] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, compare, load  # noqa: E402

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
PRODUCT, FAMILY = "nvidia.com/gpu.product", "nvidia.com/gpu.family"
T4 = {PRODUCT: "Tesla-T4", FAMILY: "turing"}
A100 = {PRODUCT: "NVIDIA-A100-SXM4-40GB", FAMILY: "ampere"}
H100 = {PRODUCT: "NVIDIA-H100-80GB-HBM3", FAMILY: "hopper"}
MIG = {PRODUCT: "NVIDIA-H100-80GB-HBM3", "nvidia.com/mig.strategy": "mixed"}
MIG_GPUS = {"nvidia.com/mig-1g.10gb": "2", "nvidia.com/mig-3g.40gb": "1"}
# (labels, taints, allocatable GPUs, cordoned)
SHAPES = [
    ({}, [], {}, False),
    (T4, [], {"nvidia.com/gpu": "1"}, False),
    (A100, [TAINT], {"nvidia.com/gpu": "8"}, False),
    (H100, [TAINT], {"nvidia.com/gpu": "8"}, False),
    (H100, [TAINT], {"nvidia.com/gpu": "8"}, True),
    (MIG, [TAINT], MIG_GPUS, False),
]


def write_nodes(path: str, count: int) -> None:
    items = []
    for i in range(count):
        labels, taints, gpus, cordoned = SHAPES[i % len(SHAPES)]
        zone = f"zone-{i % 2}"  # twelve shapes: six pools in two zones
        name = f"node-{i}"
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "topology.kubernetes.io/zone": zone,
                        **labels,
                    },
                },
                "spec": {"taints": taints, "unschedulable": cordoned},
                "status": {"allocatable": {"cpu": "32", "memory": "128Gi", **gpus}},
            }
        )
    with open(path, "w") as handle:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, handle)


def write_workloads(path: str, count: int) -> None:
    docs = []
    for i in range(count):
        selector = "      nodeSelector: {nvidia.com/gpu.family: ampere}\n" if i % 2 else ""
        tolerate = "      tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n" if i % 3 else ""
        docs.append(
            "apiVersion: apps/v1\nkind: Deployment\n"
            f"metadata: {{name: w{i}}}\n"
            f"spec:\n  replicas: {i % 7 + 1}\n  selector: {{matchLabels: {{app: w{i}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: w{i}}}}}\n    spec:\n"
            + selector
            + tolerate
            + "      containers:\n        - name: main\n"
            + "          image: nvcr.io/nvidia/pytorch:24.05-py3\n"
            f"          resources: {{limits: {{nvidia.com/gpu: {[1, 2, 4, 8, 16][i % 5]}}}}}\n"
        )
    with open(path, "w") as handle:
        handle.write("---\n".join(docs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--workloads", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        nodes, apps = os.path.join(work, "nodes.json"), os.path.join(work, "apps.yaml")
        write_nodes(nodes, args.nodes)
        write_workloads(apps, args.workloads)
        common = [*GPULINT, "check", apps, "--select", "GPU210,GPU211", "--jobs", "1"]
        results = compare(
            {"without --cluster": common, "with --cluster": [*common, "--cluster", nodes]},
            args.repeat,
        )
    print(
        f"# {args.workloads} GPU Deployments x {args.nodes} nodes ({load()}); "
        f"median of {args.repeat}"
    )
    for name, sample in results.items():
        print(
            f"  {name:20} wall {sample.wall:6.2f} s   cpu {sample.cpu:6.2f} s"
            f"   {sample.rss:6.0f} MiB"
        )


if __name__ == "__main__":
    main()
