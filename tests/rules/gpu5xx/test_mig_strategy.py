"""GPU504 mig-strategy-mismatch: the device plugin's MIG strategy against the MIG resources
pods ask for, across files."""

from __future__ import annotations

from tests.helpers import findings_json, gpu_workload, related, where

MIG = "            nvidia.com/mig-1g.10gb: 1\n"


def _policy(strategy: str) -> str:
    return (
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n"
        f"  mig:\n    strategy: {strategy}\n"
    )


def test_gpu504_single_in_cluster_policy(tmp_path, write):
    write("policy.yaml", _policy("single"))
    write("job.yaml", gpu_workload("Job", MIG))
    found = findings_json(str(tmp_path), "--select", "GPU504")["findings"]
    assert where(found) == [("GPU504", 14, 13)]
    assert found[0]["path"].endswith("job.yaml")
    assert "uses MIG strategy single;" in found[0]["message"]
    assert "policy.yaml" not in found[0]["message"]  # the other file is a related location
    assert related(found[0]) == [("policy.yaml", 7, 15, "ClusterPolicy p: MIG strategy single")]


def test_gpu504_quiet_with_mixed_or_unknown(tmp_path, write):
    write("job.yaml", gpu_workload("Job", MIG))
    assert findings_json(str(tmp_path), "--select", "GPU504")["findings"] == []  # no deployment
    write("policy.yaml", _policy("mixed"))
    assert findings_json(str(tmp_path), "--select", "GPU504")["findings"] == []
    # a values file whose configs live in an external ConfigMap: the strategy is unknown
    write("policy.yaml", "image:\n  tag: v0.17.4\nconfig:\n  name: plugin-configs\n")
    assert findings_json(str(tmp_path), "--select", "GPU504")["findings"] == []


def test_gpu504_default_none_of_a_daemonset_and_a_config_map_entry(tmp_path, write):
    write(
        "ds.yaml",
        """\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata:
          name: nvidia-device-plugin
        spec:
          template:
            spec:
              containers:
              - name: plugin
                image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
        """,
    )
    write("job.yaml", gpu_workload("Job", MIG))
    found = findings_json(str(tmp_path), "--select", "GPU504")["findings"]
    assert where(found) == [("GPU504", 14, 13)]
    assert "uses MIG strategy none;" in found[0]["message"]
    assert related(found[0]) == [
        ("ds.yaml", 10, 16, "DaemonSet nvidia-device-plugin: MIG strategy none")
    ]
    # a second deployment whose chart config.map offers mixed: some nodes can serve MIG
    write(
        "values.yaml",
        "config:\n  map:\n    default: |-\n      version: v1\n      flags:\n"
        "        migStrategy: mixed\n",
    )
    assert findings_json(str(tmp_path), "--select", "GPU504")["findings"] == []


def test_gpu504_mig_strategy_label_contradicted(tmp_path, write):
    write("values.yaml", "migStrategy: single\n")
    pod = gpu_workload(
        "Deployment",
        "            nvidia.com/gpu: 1\n",
        after="      nodeSelector:\n        nvidia.com/mig.strategy: mixed\n",
    )
    write("deploy.yaml", pod)
    found = findings_json(str(tmp_path), "--select", "GPU504")["findings"]
    assert where(found) == [("GPU504", 16, 9)]
    assert "nvidia.com/mig.strategy In ['mixed']" in found[0]["message"]


def test_gpu504_resource_served_by_a_dra_device_class(tmp_path, write):
    write("policy.yaml", _policy("single"))
    write("job.yaml", gpu_workload("Job", MIG))
    write(
        "deviceclass.yaml",
        """\
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: mig-1g.10gb
        spec:
          extendedResourceName: nvidia.com/mig-1g.10gb
          selectors:
          - cel:
              expression: device.driver == 'gpu.nvidia.com'
        """,
    )
    assert findings_json(str(tmp_path), "--select", "GPU504")["findings"] == []
