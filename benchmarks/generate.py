"""Generate N realistic GPU manifests for the benchmarks.

Deployments, Jobs, StatefulSets, CronJobs, Kubeflow PyTorchJobs, Services and
ConfigMaps, spread over single- and multi-document files, with a mix of clean
and broken GPU settings (requests without limits, mismatches, fractions).
Output is deterministic for a given seed, so two runs time the same bytes.

    python benchmarks/generate.py 10000 /tmp/gpulint-bench/10000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil

IMAGES = (
    "nvcr.io/nvidia/pytorch:24.05-py3",
    "nvcr.io/nvidia/tritonserver:24.05-py3",
    "nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04",
    "rayproject/ray-ml:2.9.0-gpu",
    "ghcr.io/huggingface/text-generation-inference:2.0",
)
PRODUCTS = ("NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "Tesla-T4", "NVIDIA-L4")
# (requests, limits) of nvidia.com/gpu; None leaves the key out. Most are clean.
GPU_SETTINGS = (
    (1, 1),
    (2, 2),
    (4, 4),
    (8, 8),
    (None, 1),
    (None, 2),
    (1, 1),
    (2, 2),
    (1, None),  # GPU101: request without limit
    (2, 1),  # GPU102: mismatch
    ("0.5", "0.5"),  # GPU103: fraction
    ('"500m"', '"500m"'),  # GPU103: milli
)


def container(rng: random.Random, name: str, indent: str) -> str:
    req, lim = rng.choice(GPU_SETTINGS)
    cpu = rng.choice((4, 8, 16, 32))
    mem = rng.choice(("16Gi", "32Gi", "64Gi", "128Gi"))
    lines = [
        f"- name: {name}",
        f"  image: {rng.choice(IMAGES)}",
        "  imagePullPolicy: IfNotPresent",
        '  command: ["torchrun", "--nproc-per-node=2", "train.py"]',
        "  args:",
        "    - --epochs=10",
        f"    - --batch-size={rng.choice((32, 64, 128))}",
        "  env:",
        "    - name: NCCL_DEBUG",
        "      value: INFO",
        "    - name: MASTER_PORT",
        '      value: "29500"',
        "  ports:",
        "    - containerPort: 8080",
        "      name: http",
        "  resources:",
        "    requests:",
        f'      cpu: "{cpu}"',
        f"      memory: {mem}",
    ]
    if req is not None:
        lines.append(f"      nvidia.com/gpu: {req}")
    lines += ["    limits:", f'      cpu: "{cpu}"', f"      memory: {mem}"]
    if lim is not None:
        lines.append(f"      nvidia.com/gpu: {lim}")
    lines += [
        "  volumeMounts:",
        "    - name: dshm",
        "      mountPath: /dev/shm",
        "    - name: data",
        "      mountPath: /data",
        "      readOnly: true",
    ]
    return "".join(f"{indent}{line}\n" for line in lines)


def pod_spec(rng: random.Random, indent: str, restart: str | None = None) -> str:
    out = []
    if restart:
        out.append(f"restartPolicy: {restart}")
    out += [
        "nodeSelector:",
        f"  nvidia.com/gpu.product: {rng.choice(PRODUCTS)}",
        "tolerations:",
        "  - key: nvidia.com/gpu",
        "    operator: Exists",
        "    effect: NoSchedule",
        "containers:",
    ]
    text = "".join(f"{indent}{line}\n" for line in out)
    for i in range(rng.choice((1, 1, 1, 2))):
        text += container(rng, f"trainer-{i}" if i else "trainer", indent + "  ")
    tail = [
        "volumes:",
        "  - name: dshm",
        "    emptyDir:",
        "      medium: Memory",
        "      sizeLimit: 16Gi",
        "  - name: data",
        "    persistentVolumeClaim:",
        "      claimName: datasets",
    ]
    return text + "".join(f"{indent}{line}\n" for line in tail)


def metadata(name: str, indent: str = "") -> str:
    return (
        f"{indent}metadata:\n{indent}  name: {name}\n{indent}  namespace: ml-training\n"
        f"{indent}  labels:\n{indent}    app.kubernetes.io/name: {name}\n"
        f"{indent}    app.kubernetes.io/part-of: training\n"
    )


def deployment(rng: random.Random, n: int) -> str:
    name = f"inference-{n}"
    return (
        "apiVersion: apps/v1\nkind: Deployment\n"
        + metadata(name)
        + f"spec:\n  replicas: {rng.choice((1, 2, 3))}\n  selector:\n    matchLabels:\n"
        + f"      app.kubernetes.io/name: {name}\n  template:\n"
        + metadata(name, "    ").replace("    metadata:\n", "    metadata:\n", 1)
        + "    spec:\n"
        + pod_spec(rng, "      ")
    )


def job(rng: random.Random, n: int) -> str:
    return (
        "apiVersion: batch/v1\nkind: Job\n"
        + metadata(f"train-{n}")
        + "spec:\n  backoffLimit: 3\n  parallelism: 1\n  template:\n    spec:\n"
        + pod_spec(rng, "      ", "Never")
    )


def statefulset(rng: random.Random, n: int) -> str:
    name = f"serving-{n}"
    return (
        "apiVersion: apps/v1\nkind: StatefulSet\n"
        + metadata(name)
        + f"spec:\n  serviceName: {name}\n  replicas: 2\n  selector:\n    matchLabels:\n"
        + f"      app.kubernetes.io/name: {name}\n  template:\n    spec:\n"
        + pod_spec(rng, "      ")
    )


def cronjob(rng: random.Random, n: int) -> str:
    return (
        "apiVersion: batch/v1\nkind: CronJob\n"
        + metadata(f"nightly-eval-{n}")
        + 'spec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n'
        + "        spec:\n"
        + pod_spec(rng, "          ", "OnFailure")
    )


def pytorchjob(rng: random.Random, n: int) -> str:
    text = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n" + metadata(f"ddp-{n}")
    text += "spec:\n  pytorchReplicaSpecs:\n"
    for role, replicas in (("Master", 1), ("Worker", rng.choice((1, 3, 7)))):
        text += f"    {role}:\n      replicas: {replicas}\n      restartPolicy: OnFailure\n"
        text += "      template:\n        spec:\n" + pod_spec(rng, "          ")
    return text


def service(rng: random.Random, n: int) -> str:
    return (
        "apiVersion: v1\nkind: Service\n"
        + metadata(f"inference-{n}")
        + "spec:\n  type: ClusterIP\n  ports:\n    - port: 80\n      targetPort: http\n"
        + f"  selector:\n    app.kubernetes.io/name: inference-{n}\n"
    )


def configmap(rng: random.Random, n: int) -> str:
    return (
        "apiVersion: v1\nkind: ConfigMap\n"
        + metadata(f"train-config-{n}")
        + "data:\n  config.yaml: |\n    epochs: 10\n    lr: 0.0003\n    precision: bf16\n"
    )


KINDS = (
    (deployment, 30),
    (job, 25),
    (pytorchjob, 15),
    (statefulset, 8),
    (cronjob, 7),
    (service, 10),
    (configmap, 5),
)


def generate(count: int, out: str, seed: int = 7) -> list[str]:
    """Write ``count`` documents under ``out``; return the files, sorted."""
    rng = random.Random(seed)
    if os.path.isdir(out):
        shutil.rmtree(out)
    makers = [maker for maker, weight in KINDS for _ in range(weight)]
    files = []
    n = 0
    while n < count:
        per_file = min(rng.choice((1, 1, 1, 2, 3, 5)), count - n)
        docs = [rng.choice(makers)(rng, n + i) for i in range(per_file)]
        folder = os.path.join(out, f"team-{(n // 200):03d}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"workload-{n:06d}.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("---\n".join(docs))
        files.append(path)
        n += per_file
    return sorted(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="number of documents")
    parser.add_argument("out", help="output folder (replaced)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    files = generate(args.count, args.out, args.seed)
    size = sum(os.path.getsize(f) for f in files)
    print(f"{args.count} documents in {len(files)} files, {size / 1e6:.1f} MB under {args.out}")


if __name__ == "__main__":
    main()
