"""Linear in everything (issue 30): the cost ratio of each doubling of one dimension.

Each dimension starts from a base input and doubles it once, the other dimensions held:

    files        files of one small GPU Deployment each, in one folder
    documents    small documents in one file
    keys         labels (and annotations) of one Deployment
    containers   containers of one pod
    joins        Deployments across files of one folder that the cross-file rules join
                 (GPU407 plugin versions, GPU601 sharing, GPU210 against Nodes)

``gpulint check --jobs 1`` runs on the base input and on the doubled one, interleaved, and the
ratio of the medians (CPU time) is printed: about 2 is linear, about 4 is quadratic. Target:
every ratio at most 2.2 (start-up is subtracted: the one-file run of the same interpreter).
The test suite checks the same property by counting calls, never by time
(tests/engine/test_linear.py).

    python benchmarks/bench_scaling.py [--base 400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import GPULINT, compare, load  # noqa: E402

TARGET = 2.2

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
{labels}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
      tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
      containers:
{containers}
"""
CONTAINER = """\
        - name: c{i}
          image: vllm/vllm-openai:v0.6.3
          ports: [{{containerPort: {port}}}]
          resources:
            requests: {{cpu: "1", memory: 4Gi, nvidia.com/gpu: 1}}
            limits: {{cpu: "1", memory: 4Gi, nvidia.com/gpu: 1}}
"""
NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-{i}
  labels: {{nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
status:
  allocatable: {{nvidia.com/gpu: "8"}}
"""


def deployment(name: str, labels: int = 2, containers: int = 1) -> str:
    label_lines = "".join(f"    k{i}: v{i}\n" for i in range(labels)).rstrip("\n")
    container_text = "".join(
        CONTAINER.format(i=i, port=8000 + i) for i in range(containers)
    ).rstrip("\n")
    return DEPLOYMENT.format(name=name, labels=label_lines, containers=container_text)


def _files(folder: str, n: int) -> None:
    for i in range(n):
        with open(os.path.join(folder, f"d{i}.yaml"), "w") as out:
            out.write(deployment(f"d{i}"))


def _documents(folder: str, n: int) -> None:
    with open(os.path.join(folder, "all.yaml"), "w") as out:
        out.write("---\n".join(deployment(f"d{i}") for i in range(n)))


def _keys(folder: str, n: int) -> None:
    with open(os.path.join(folder, "one.yaml"), "w") as out:
        out.write(deployment("one", labels=n))


def _containers(folder: str, n: int) -> None:
    with open(os.path.join(folder, "one.yaml"), "w") as out:
        out.write(deployment("one", containers=min(n, 5000)))


def _joins(folder: str, n: int) -> None:
    _files(folder, n)
    with open(os.path.join(folder, "nodes.yaml"), "w") as out:
        out.write("---\n".join(NODE.format(i=i) for i in range(max(n // 10, 1))))


DIMENSIONS: dict[str, tuple[Callable[[str, int], None], float]] = {
    # the base size is scaled per dimension: a pod of 400 containers is already unusual
    "files": (_files, 1.0),
    "documents": (_documents, 1.0),
    "keys": (_keys, 10.0),
    "containers": (_containers, 0.5),
    "joins": (_joins, 1.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"# scaling ({load()}); median CPU of {args.repeat}; ratio of one doubling")
    worst = 0.0
    with tempfile.TemporaryDirectory() as work:
        empty = os.path.join(work, "empty.yaml")
        with open(empty, "w") as out:
            out.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
        for name, (make, scale) in DIMENSIONS.items():
            size = max(int(args.base * scale), 1)
            commands = {"start-up": [*GPULINT, "check", "--jobs", "1", "--no-config", empty]}
            for label, n in (("base", size), ("doubled", 2 * size)):
                folder = os.path.join(work, f"{name}-{label}")
                os.makedirs(folder)
                make(folder, n)
                commands[label] = [*GPULINT, "check", "--jobs", "1", "--no-config", folder]
            results = compare(commands, args.repeat, cwd=work)
            fixed = results["start-up"].cpu
            base = results["base"].cpu - fixed
            doubled = results["doubled"].cpu - fixed
            ratio = doubled / base if base > 0 else float("nan")
            worst = max(worst, ratio)
            print(
                f"  {name:11} {size:6d} -> {2 * size:6d}: {base * 1000:8.1f} ms -> "
                f"{doubled * 1000:8.1f} ms  x{ratio:.2f}"
            )
    verdict = "within" if worst <= TARGET else "NOT within"
    print(f"# worst doubling x{worst:.2f}, {verdict} {TARGET}")


if __name__ == "__main__":
    main()
