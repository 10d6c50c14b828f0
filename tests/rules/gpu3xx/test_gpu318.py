"""GPU318 kubelet-feature-gate-rejected: removed gates and locked gates set against their lock."""

from __future__ import annotations

import pytest

from gpulint.model.runtime import kubelet
from tests.helpers import lint, where

CONFIG = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
featureGates:
  {gates}
"""


def _gates(tmp_path, gates: str, *args: str) -> list[tuple[str, int, int]]:
    return where(lint(tmp_path, CONFIG.format(gates=gates), *args), "GPU318")


def test_removed_gate_at_its_key(tmp_path):
    found = lint(tmp_path, CONFIG.format(gates="DevicePlugins: true"))
    assert where(found, "GPU318") == [("GPU318", 5, 3)]
    (finding,) = found
    assert finding["severity"] == "error"
    assert "removed in Kubernetes 1.28" in finding["message"]
    assert "unrecognized feature gate: DevicePlugins" in finding["message"]


def test_each_refused_gate_is_reported(tmp_path):
    gates = "TopologyManager: true\n  KubeletPodResources: true\n  PodLevelResources: true"
    assert _gates(tmp_path, gates) == [("GPU318", 5, 3), ("GPU318", 6, 3)]


def test_locked_gate_against_its_lock(tmp_path):
    found = lint(tmp_path, CONFIG.format(gates="MemoryManager: false"))
    assert where(found, "GPU318") == [("GPU318", 5, 3)]
    assert "feature is locked to true" in found[0]["message"]


def test_locked_gate_at_its_lock_is_fine_while_a_supported_release_knows_it(tmp_path):
    # MemoryManager is locked to true in 1.35 (still supported) and removed in 1.36
    assert _gates(tmp_path, "MemoryManager: true") == []


def test_gates_the_catalog_does_not_cover_are_left_alone(tmp_path):
    assert _gates(tmp_path, "SomeVendorGate: true\n  KubeletTracing: true") == []


def test_a_value_that_is_no_boolean_is_left_alone(tmp_path):
    assert _gates(tmp_path, 'DevicePlugins: "{{ .Values.gate }}"') == []


def test_kube_version_judges_that_release(tmp_path):
    # 1.27: DevicePlugins is GA and locked to true, not removed yet
    assert _gates(tmp_path, "DevicePlugins: true", "--kube-version", "v1.27.4") == []
    found = _gates(tmp_path, "DevicePlugins: false", "--kube-version", "1.27")
    assert found == [("GPU318", 5, 3)]


def test_kube_version_reports_a_gate_not_added_yet(tmp_path):
    found = lint(tmp_path, CONFIG.format(gates="PodLevelResources: true"), "--kube-version", "1.31")
    assert where(found, "GPU318") == [("GPU318", 5, 3)]
    assert "exists only from Kubernetes 1.32" in found[0]["message"]


def test_kube_version_newer_than_a_removal_reports_a_lock_as_unknown(tmp_path):
    found = lint(tmp_path, CONFIG.format(gates="MemoryManager: true"), "--kube-version", "1.36")
    assert where(found, "GPU318") == [("GPU318", 5, 3)]
    assert "removed in Kubernetes 1.36" in found[0]["message"]


def test_inside_a_config_map_value(tmp_path):
    text = """\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: kubelet-config
      namespace: kube-system
    data:
      kubelet: |
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        featureGates:
          CPUManager: true
    """
    found = lint(tmp_path, text)
    assert where(found, "GPU318") == [("GPU318", 11, 7)]
    assert found[0]["message"].startswith("KubeletConfiguration in ConfigMap kubelet-config")


def test_inside_cloud_init(tmp_path):
    text = """\
    #cloud-config
    write_files:
      - path: /var/lib/kubelet/config.yaml
        content: |
          apiVersion: kubelet.config.k8s.io/v1beta1
          kind: KubeletConfiguration
          featureGates:
            DynamicResourceAllocation: false
    """
    assert where(lint(tmp_path, text, name="user-data.yaml"), "GPU318") == [("GPU318", 8, 9)]


def test_eks_node_config(tmp_path):
    text = """\
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      cluster:
        name: gpu
      kubelet:
        config:
          featureGates:
            DevicePluginCDIDevices: true
    """
    assert where(lint(tmp_path, text), "GPU318") == [("GPU318", 9, 9)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("v1.30.2", (1, 30)), ("1.29", (1, 29)), ("1.31.1-eks-1", (1, 31)), ("latest", None)],
)
def test_kube_version_forms(text, expected):
    assert kubelet.minor(text) == expected


def test_the_oldest_supported_release_is_after_every_removal_it_relies_on():
    # DevicePluginCDIDevices (removed in 1.34) is refused only while 1.34 is unsupported
    assert kubelet.oldest_supported() >= (1, 34)
    assert kubelet.refusal("DevicePluginCDIDevices", True, None) is not None
    assert kubelet.refusal("DevicePluginCDIDevices", True, (1, 33)) is None
