"""GPU505 (MIG layouts the GPU cannot hold) and the placement model behind it."""

from __future__ import annotations

import json

import pytest

from gpulint import catalog
from gpulint.model.gpu import mig_layout
from tests.helpers import lint, run_cli, where

A100_40 = "0x20B010DE"
A100_80 = "0x20B210DE"
A30 = "0x20B710DE"


def config(devices: str, device_filter: str | None = A100_40, name: str = "custom") -> str:
    """A standalone mig-parted config with one entry; ``devices`` is mig-devices' YAML,
    ``device_filter`` comma-separated IDs."""
    if device_filter:
        ids = ", ".join(f'"{i}"' for i in device_filter.split(","))
        line = f"    - device-filter: [{ids}]\n"
    else:
        line = "    -\n"
    body = "".join(f"        {d}\n" for d in devices.strip().splitlines())
    return (
        f"version: v1\nmig-configs:\n  {name}:\n{line}"
        "      devices: all\n      mig-enabled: true\n      mig-devices:\n" + body
    )


def gpu(gpu_id: str) -> catalog.Gpu:
    return next(g for g in catalog.gpus() if g.id == gpu_id)


# --- the placement model ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gpu_id", "counts", "fits"),
    [
        ("a100-40gb", {"3g.20gb": 2}, True),
        ("a100-40gb", {"3g.20gb": 2, "1g.5gb": 1}, False),  # two 3g take all 8 slices
        ("a100-40gb", {"4g.20gb": 1, "3g.20gb": 1}, True),
        ("a100-40gb", {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}, True),
        ("a100-40gb", {"2g.10gb": 3, "1g.5gb": 1}, True),
        ("a100-40gb", {"1g.10gb": 4, "1g.5gb": 1}, False),  # 1g.10gb takes 2 slices
        ("a100-40gb", {"7g.40gb": 1}, True),
        ("a100-40gb", {"4g.20gb": 1, "2g.10gb": 2}, False),  # 2g starts 0,2,4: 4g holds 0-3
        ("h100-80gb", {"3g.40gb": 1, "4g.40gb": 1}, True),
        ("a30", {"2g.12gb": 1, "1g.6gb": 2}, True),
        ("a30", {"2g.12gb": 1, "1g.6gb": 3}, False),  # 2 + 3 slices of 4
    ],
)
def test_layouts_fit_the_memory_slices(gpu_id, counts, fits):
    misfit = mig_layout.misfit(gpu(gpu_id), counts)
    assert (misfit is None) is fits
    if not fits:
        assert misfit.kind == "placement"


def test_counts_and_missing_profiles_come_before_placement():
    a100 = gpu("a100-40gb")
    assert mig_layout.misfit(a100, {"1g.5gb+me": 2}).kind == "count"
    assert mig_layout.misfit(a100, {"1g.5gb": 7, "1g.5gb+me": 1}).kind == "count"
    missing = mig_layout.misfit(a100, {"1g.10gb+me": 1})
    assert (missing.kind, missing.profile) == ("profile", "1g.10gb+me")


def test_placements_are_read_from_the_lgipp_form():
    assert gpu("a100-40gb").placement("3g.20gb") == ((0, 4), 4)
    assert gpu("a100-40gb").placement("7g.40gb") == ((0,), 8)
    assert 0x20B010DE in gpu("a100-40gb").pci_device_ids
    assert [g.id for g in catalog.gpus_with_device_id(0x20B710DE)] == ["a30"]


# --- GPU505 on standalone configs --------------------------------------------------------------


def test_a_third_instance_after_two_3g_is_reported_at_mig_devices(tmp_path):
    found = lint(tmp_path, config('"3g.20gb": 2\n"1g.5gb": 1'), "--select", "GPU505")
    assert where(found) == [("GPU505", 7, 7)]
    message = found[0]["message"]
    assert "config 'custom' (device-filter 0x20B010DE)" in message
    assert "2x 3g.20gb + 1x 1g.5gb do not fit on one NVIDIA-A100-SXM4-40GB" in message
    assert "3g.20gb {0,4}:4" in message
    assert "nvidia.com/mig.config.state=failed" in message


def test_a_profile_the_filtered_gpu_lacks_is_reported_at_the_profile(tmp_path):
    found = lint(tmp_path, config('"1g.10gb": 2\n"1g.5gb": 1', A100_80), "--select", "GPU505")
    assert where(found) == [("GPU505", 9, 9)]
    assert "NVIDIA-A100-SXM4-80GB has no MIG profile 1g.5gb" in found[0]["message"]


def test_too_many_instances_of_a_profile_are_reported_at_the_profile(tmp_path):
    found = lint(tmp_path, config('"1g.5gb": 1\n"1g.5gb+me": 2'), "--select", "GPU505")
    assert where(found) == [("GPU505", 9, 9)]
    assert "at most 1 1g.5gb+me instance(s), not 2" in found[0]["message"]


def test_a30_placements(tmp_path):
    found = lint(tmp_path, config('"2g.12gb": 1\n"1g.6gb": 3', A30), "--select", "GPU505")
    assert where(found) == [("GPU505", 7, 7)]
    assert "of its 4 memory slices" in found[0]["message"]


def test_layouts_that_fit_are_silent(tmp_path):
    text = config('"3g.20gb": 1\n"2g.10gb": 1\n"1g.5gb": 2')
    assert lint(tmp_path, text, "--select", "GPU505") == []


def test_unknown_device_ids_and_unverified_gpus_are_silent(tmp_path):
    # 0x294110DE (GB200): profiles and placements not verified in the catalog.
    for device_filter in ("0x12345678", "0x294110DE"):
        text = config('"3g.20gb": 3', device_filter)
        assert lint(tmp_path, text, "--select", "GPU505") == []


def test_compute_instance_profiles_and_disabled_entries_are_silent(tmp_path):
    assert lint(tmp_path, config('"1c.3g.20gb": 3'), "--select", "GPU505") == []
    text = "version: v1\nmig-configs:\n  off:\n    - devices: all\n      mig-enabled: false\n"
    assert lint(tmp_path, text, "--select", "GPU505") == []


def test_several_gpus_in_one_filter_are_each_judged(tmp_path):
    text = config('"1g.10gb": 5', f"{A100_40},{A100_80}")
    found = lint(tmp_path, text, "--select", "GPU505")
    assert where(found) == [("GPU505", 8, 9)]  # A100-80GB holds 7 1g.10gb; A100-40GB only 4
    assert "NVIDIA-A100-SXM4-40GB holds at most 4 1g.10gb" in found[0]["message"]
    assert "80GB" not in found[0]["message"].split(";")[0]


# --- no device-filter: only what no GPU can hold -------------------------------------------------


def test_unfiltered_layouts_that_some_gpu_holds_are_silent(tmp_path):
    for devices in ('"1g.5gb": 7', '"3g.40gb": 2', '"7g.189gb": 1', '"3g.95gb": 2'):
        assert lint(tmp_path, config(devices, None), "--select", "GPU505") == []


def test_unfiltered_layout_no_gpu_holds_is_reported(tmp_path):
    found = lint(tmp_path, config('"3g.20gb": 2\n"2g.10gb": 1', None), "--select", "GPU505")
    assert where(found) == [("GPU505", 7, 7)]
    assert "nor on any other GPU with them" in found[0]["message"]


def test_unfiltered_profile_of_a_slice_count_no_gpu_has_is_reported(tmp_path):
    found = lint(tmp_path, config('"5g.20gb": 1', None), "--select", "GPU505")
    assert where(found) == [("GPU505", 8, 9)]
    assert "no MIG-capable GPU has 5-slice instances" in found[0]["message"]


def test_unfiltered_profiles_of_different_gpus_are_reported(tmp_path):
    found = lint(tmp_path, config('"1g.5gb": 1\n"1g.12gb": 1', None), "--select", "GPU505")
    assert where(found) == [("GPU505", 7, 7)]
    assert "no GPU has all of the profiles 1g.5gb, 1g.12gb together" in found[0]["message"]


# --- embedded configs: positions inside the block ---------------------------------------------


CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom-mig-config
  namespace: gpu-operator
data:
  config.yaml: |
    version: v1
    mig-configs:
      all-disabled:
        - devices: all
          mig-enabled: false
      three-3g:
        - device-filter: ["0x20B010DE"]
          devices: all
          mig-enabled: true
          mig-devices:
            "3g.20gb": 3
"""


def test_configmap_entry_is_reported_inside_the_block(tmp_path):
    found = lint(tmp_path, CONFIGMAP, "--select", "GPU505")
    assert where(found) == [("GPU505", 18, 13)]
    assert "ConfigMap custom-mig-config, config 'three-3g'" in found[0]["message"]
    assert "at most 2 3g.20gb instance(s), not 3" in found[0]["message"]


def test_quoted_embedded_config_is_reported_at_its_entry(tmp_path):
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n"
        '  config.yaml: "version: v1\\nmig-configs:\\n  x:\\n  - device-filter: \\"0x20B010DE\\"\\n'
        '    devices: all\\n    mig-enabled: true\\n    mig-devices: {3g.20gb: 3}\\n"\n'
    )
    found = lint(tmp_path, text, "--select", "GPU505")
    assert where(found) == [("GPU505", 6, 3)]


def test_operator_values_mig_manager_config_data(tmp_path):
    text = """\
    driver:
      enabled: true
    migManager:
      enabled: true
      config:
        name: custom-mig-config
        create: true
        data:
          config.yaml: |-
            version: v1
            mig-configs:
              big:
                - device-filter: "0x233010DE"
                  devices: all
                  mig-enabled: true
                  mig-devices:
                    "4g.40gb": 1
                    "3g.40gb": 1
                    "1g.10gb": 1
    """
    found = lint(tmp_path, text, "--select", "GPU505", name="values.yaml")
    assert where(found) == [("GPU505", 16, 15)]
    assert "NVIDIA-H100-80GB-HBM3" in found[0]["message"]


@pytest.mark.parametrize("fmt", ["sarif", "github", "text"])
def test_every_output_format_carries_the_inner_position(tmp_path, fmt):
    path = tmp_path / "mig.yaml"
    path.write_text(CONFIGMAP)
    result = run_cli("check", "--format", fmt, "--select", "GPU505", str(path))
    assert result.exit_code == 1
    if fmt == "sarif":
        region = json.loads(result.output)["runs"][0]["results"][0]["locations"][0]
        region = region["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (18, 13)
    elif fmt == "github":
        assert "line=18,col=13" in result.output and "GPU505" in result.output
    else:
        assert f"{path}:18:13: error [GPU505 mig-layout-unfit]" in result.output


# --- GPU506 mig-config-undefined --------------------------------------------------------------


NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-mig
spec:
  template:
    metadata:
      labels:
        nvidia.com/mig.config: {name}
"""

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels:
    nvidia.com/mig.config: {name}
"""


def lint_files(tmp_path, files: dict[str, str], *args: str) -> list[dict]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run_cli("check", "--format", "json", *args, str(tmp_path))
    return json.loads(result.output)["findings"]


def test_nodepool_label_naming_an_undefined_config_is_reported_with_did_you_mean(tmp_path):
    files = {"mig.yaml": CONFIGMAP, "pool.yaml": NODEPOOL.format(name="three-3gb")}
    found = lint_files(tmp_path, files, "--select", "GPU506")
    assert [(f["path"].rsplit("/", 1)[1], f["line"], f["column"]) for f in found] == [
        ("pool.yaml", 9, 32)
    ]
    message = found[0]["message"]
    assert "NodePool gpu-mig label nvidia.com/mig.config names MIG config 'three-3gb'" in message
    assert "(all-disabled, three-3g)" in message and "did you mean 'three-3g'?" in message


def test_defined_and_default_names_are_silent(tmp_path):
    for name in ("three-3g", "all-balanced", "all-1g.10gb", "all-1g.5gb.me", "'{{ .Values.mig }}'"):
        files = {"mig.yaml": CONFIGMAP, "node.yaml": NODE.format(name=name)}
        assert lint_files(tmp_path, files, "--select", "GPU506") == [], name


def test_without_a_mig_parted_config_in_the_run_nothing_is_reported(tmp_path):
    files = {"node.yaml": NODE.format(name="anything")}
    assert lint_files(tmp_path, files, "--select", "GPU506") == []


def test_node_label_and_cluster_policy_default(tmp_path):
    policy = (
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\n"
        "spec:\n  migManager:\n    config:\n      name: custom-mig-config\n      default: custom\n"
    )
    files = {"mig.yaml": CONFIGMAP, "node.yaml": NODE.format(name="big"), "policy.yaml": policy}
    found = lint_files(tmp_path, files, "--select", "GPU506")
    assert sorted((f["path"].rsplit("/", 1)[1], f["line"], f["column"]) for f in found) == [
        ("node.yaml", 6, 28),
        ("policy.yaml", 9, 16),
    ]


def test_operator_values_default_and_embedded_config(tmp_path):
    values = (
        "driver:\n  enabled: true\nmigManager:\n  enabled: true\n  config:\n"
        "    default: balanced\n    create: true\n    name: custom\n    data:\n"
        "      config.yaml: |\n        version: v1\n        mig-configs:\n"
        "          balanced-a100:\n            - devices: all\n              mig-enabled: false\n"
    )
    found = lint_files(tmp_path, {"values.yaml": values}, "--select", "GPU506")
    assert [(f["line"], f["column"]) for f in found] == [(6, 14)]
    assert "GPU Operator values migManager.config.default" in found[0]["message"]
