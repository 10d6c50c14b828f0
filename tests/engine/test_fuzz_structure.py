"""Structurally wrong manifests: a scalar where a mapping is expected, a list where a
scalar is, at every level of a pod spec (and of the other objects rules read).

Every rule must run on every document: a wrong type is a finding (GPU011 where the
API server rejects it) or nothing, never a rule's internal error. The exhaustive pass
replaces each node of each base object in turn; the hypothesis pass puts arbitrary
nested values at arbitrary places.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import KNOWN_CLUSTER, run_cli

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "serve", "namespace": "ml", "labels": {"app": "serve"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "serve"}},
        "template": {
            "metadata": {
                "labels": {"app": "serve"},
                "annotations": {"gpu-fraction": "0.5", "ignore-check.gpulint.io/GPU301": "x"},
            },
            "spec": {
                "runtimeClassName": "nvidia",
                "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"},
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "nvidia.com/gpu.memory",
                                            "operator": "In",
                                            "values": ["81920"],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                },
                "tolerations": [
                    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                ],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
                "initContainers": [
                    {
                        "name": "fetch",
                        "image": "busybox:1.36",
                        "restartPolicy": "Always",
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
                "containers": [
                    {
                        "name": "server",
                        "image": "vllm/vllm-openai:latest",
                        "imagePullPolicy": "Always",
                        "command": ["vllm", "serve", "--tensor-parallel-size", "4"],
                        "args": ["--pipeline-parallel-size", "1"],
                        "env": [
                            {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
                            {"name": "CUDA_VISIBLE_DEVICES", "value": "0,1,2"},
                            {"name": "HOME", "value": "${HOME}/x"},
                            {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "x"}}},
                        ],
                        "resources": {
                            "requests": {"nvidia.com/gpu": 2, "cpu": "4", "memory": "8Gi"},
                            "limits": {"nvidia.com/gpu": 2, "nvidia.com/mig-1g.10gb": 1},
                            "claims": [{"name": "gpu"}],
                        },
                        "securityContext": {"privileged": True},
                        "volumeMounts": [{"name": "dev", "mountPath": "/dev/nvidia0"}],
                    }
                ],
                "volumes": [
                    {"name": "dev", "hostPath": {"path": "/dev/nvidia0"}},
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
                ],
            },
        },
    },
}
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "gpu-1",
        "labels": {
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
            "nvidia.com/mig.strategy": "x",
        },
    },
    "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"nvidia.com/gpu": "8"}, "capacity": {"nvidia.com/gpu": "8"}},
}
DEVICE_PLUGIN = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "nvidia-device-plugin", "namespace": "kube-system"},
    "spec": {
        "template": {
            "spec": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                "containers": [
                    {
                        "name": "plugin",
                        "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
                        "args": ["--mig-strategy=single"],
                        "env": [{"name": "MIG_STRATEGY", "value": "mixed"}],
                    }
                ],
            }
        }
    },
}
RAY = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "ray"},
    "spec": {
        "headGroupSpec": {
            "rayStartParams": {"num-gpus": "2"},
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "head",
                            "image": "rayproject/ray:2.9.0-gpu",
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ]
                }
            },
        },
        "workerGroupSpecs": [{"groupName": "w", "replicas": 2, "template": {"spec": {}}}],
    },
}
CLAIM = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "one-gpu"},
    "spec": {
        "spec": {
            "devices": {
                "requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 1}}
                ]
            }
        }
    },
}
PLUGIN_CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "plugin-config"},
    "data": {
        "config.yaml": "version: v1\nflags:\n  migStrategy: mixed\nsharing:\n"
        "  timeSlicing:\n    resources:\n      - name: nvidia.com/gpu\n        replicas: 4\n"
    },
}
# A bare GPU pod: no node selection, no toleration, no shm, so the rules that look for
# what is missing run their whole course.
BARE_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "bare"},
    "spec": {
        "containers": [
            {
                "name": "train",
                "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                "command": ["torchrun", "--nproc_per_node=4", "train.py"],
                "resources": {"requests": {"nvidia.com/gpu": 2}, "limits": {"nvidia.com/gpu": 2}},
            }
        ]
    },
}
BASES = [BARE_POD, DEPLOYMENT, NODE, DEVICE_PLUGIN, RAY, CLAIM, PLUGIN_CONFIG]
# A value of each wrong shape: scalar, list, mapping, null.
WRONG = [7, "text", [1], {"k": "v"}, None, True, 1.5]


def _paths(node: object, prefix: tuple = ()) -> Iterator[tuple]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield prefix + (index,)
            yield from _paths(value, prefix + (index,))


def _replace(base: dict, path: tuple, value: object) -> dict:
    mutated = copy.deepcopy(base)
    node = mutated
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return mutated


def _lint(tmp_path: Path, documents: list[dict]) -> dict:
    tree = tmp_path / "docs"
    tree.mkdir()
    for i, doc in enumerate(documents):
        (tree / f"m{i:05d}.json").write_text(json.dumps(doc))
    # The cluster facts GPU201-GPU203 need, so that they run their whole course.
    config = tmp_path / "known-cluster.gpulint.yaml"
    config.write_text(KNOWN_CLUSTER)
    result = run_cli("check", "--format", "json", "--jobs", "1", "--config", str(config), str(tree))
    assert result.exit_code in (0, 1, 2), result.output
    return json.loads(result.stdout)


def _internal(report: dict) -> list[str]:
    return [f"{e['path']}: {e['message']}" for e in report["errors"] if "internal" in e["message"]]


def test_every_node_of_every_object_replaced_by_every_wrong_shape(tmp_path: Path) -> None:
    documents = [
        _replace(base, path, wrong) for base in BASES for path in _paths(base) for wrong in WRONG
    ]
    assert len(documents) > 1000  # the pass really covers the objects
    report = _lint(tmp_path, documents)
    assert _internal(report) == []


json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)
    ),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=int(os.environ.get("GPULINT_HYPOTHESIS_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_arbitrary_values_anywhere_in_a_pod_spec(tmp_path_factory, data) -> None:
    base = data.draw(st.sampled_from(BASES))
    paths = list(_paths(base))
    documents = [
        _replace(base, data.draw(st.sampled_from(paths)), data.draw(json_values)) for _ in range(8)
    ]
    report = _lint(tmp_path_factory.mktemp("fuzz"), documents)
    assert _internal(report) == []
