"""GPU403: a key written at the top level of a chart's values that the chart's values.yaml
declares one level down is named with its place (``manager`` -> ``driver.manager``)."""

from __future__ import annotations

from tests.helpers import lint, where

OPERATOR_UNKNOWN = "the gpu-operator chart never reads it (Helm ignores it)"
PLUGIN_UNKNOWN = "the chart never reads it (Helm ignores it)"

# brunnels/talos-cluster's shape: the driver manager's env at the top level of the values.
HELM_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: gpu-operator
spec:
  chart:
    spec:
      chart: gpu-operator
      version: v24.3.0
      sourceRef: {kind: HelmRepository, name: nvidia}
  values:
    driver:
      enabled: false
    manager:
      env:
        - name: ENABLE_AUTO_DRAIN
          value: "false"
    tolerations: []
    toolkit:
      enabled: false
"""


def test_an_operator_key_of_a_block_written_at_the_top_is_named_with_its_block(tmp_path):
    found = lint(tmp_path, HELM_RELEASE, "--select", "GPU403", name="helmrelease.yaml")
    assert where(found) == [("GPU403", 14, 5), ("GPU403", 18, 5)]
    # an exact key of driver before the close top-level migManager
    assert found[0]["message"] == (
        f"unknown key 'manager': {OPERATOR_UNKNOWN}; did you mean 'driver.manager'?"
    )
    assert found[1]["message"] == (
        f"unknown key 'tolerations': {OPERATOR_UNKNOWN}; "
        "did you mean 'daemonsets.tolerations' or 'operator.tolerations'?"
    )


def test_operator_values_near_keys_and_keys_of_many_blocks(tmp_path):
    text = """\
    manger: {}
    strategy: mixed
    env: []
    devicePlugins: {}
    replicaCount: 1
    devicePlugin:
      verison: v0.17.4
    """
    found = lint(tmp_path, text, "--select", "GPU403", "--values-for", "gpu-operator")
    assert where(found) == [("GPU403", line, 1) for line in range(1, 6)] + [("GPU403", 7, 3)]
    messages = {f["line"]: f["message"] for f in found}
    # a block's key inside a block is judged by that block's keys alone
    assert messages[7] == f"unknown key 'verison': {OPERATOR_UNKNOWN}; did you mean 'version'?"
    # a close top-level key stays the suggestion when it is the closer one
    assert messages[4].endswith("; did you mean 'devicePlugin'?")
    assert messages[3] == (
        f"unknown key 'env': {OPERATOR_UNKNOWN}; did you mean 'env' inside a block "
        "(dcgm.env, dcgmExporter.env, devicePlugin.env and 14 more)?"
    )
    # closer to driver's manager than to the top-level migManager
    assert messages[1] == (
        f"unknown key 'manger': {OPERATOR_UNKNOWN}; did you mean 'driver.manager'?"
    )
    assert messages[5] == f"unknown key 'replicaCount': {OPERATOR_UNKNOWN}"
    assert messages[2] == (
        f"unknown key 'strategy': {OPERATOR_UNKNOWN}; did you mean 'mig.strategy'?"
    )


def test_device_plugin_values_keys_of_config_image_and_affinity_at_the_top(tmp_path):
    text = """\
    migStrategy: none
    map:
      default: "version: v1"
    tag: v0.17.0
    enabled: true
    nodeAffinity: {}
    gfdd: {}
    """
    found = lint(tmp_path, text, "--select", "GPU403", "--values-for", "nvidia-device-plugin")
    assert where(found) == [("GPU403", line, 1) for line in (2, 4, 5, 6, 7)]
    messages = {f["line"]: f["message"] for f in found}
    assert messages[2] == f"unknown key 'map': {PLUGIN_UNKNOWN}; did you mean 'config.map'?"
    assert messages[4] == f"unknown key 'tag': {PLUGIN_UNKNOWN}; did you mean 'image.tag'?"
    assert messages[5] == (
        f"unknown key 'enabled': {PLUGIN_UNKNOWN}; "
        "did you mean 'devicePlugin.enabled' or 'gfd.enabled'?"
    )
    assert messages[6] == (
        f"unknown key 'nodeAffinity': {PLUGIN_UNKNOWN}; did you mean 'affinity.nodeAffinity'?"
    )
    assert messages[7] == f"unknown key 'gfdd': {PLUGIN_UNKNOWN}; did you mean 'gfd'?"
