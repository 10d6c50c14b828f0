"""GPU317 containerd-cdi-disabled: enable_cdi = false against a CDI-only device-list strategy."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.helpers import findings_json, lint, where

CLOUD_INIT = """\
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri"]
        enable_cdi = false
"""

PLUGIN_CONFIG = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: plugin-config
data:
  config.yaml: |
    version: v1
    flags:
      plugin:
        deviceListStrategy: {strategy}
"""

TOML_OFF = """\
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.9"
  enable_cdi = false
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
"""

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
spec:
  selector:
    matchLabels: {app: dp}
  template:
    metadata:
      labels: {app: dp}
    spec:
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.1
          env:
            - name: DEVICE_LIST_STRATEGY
              value: cdi-cri
"""


def _folder(tmp_path: Path, files: dict[str, str]) -> list[dict]:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return findings_json(str(tmp_path))["findings"]


def _gpu317(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["code"] == "GPU317"]


def test_cloud_init_against_a_plugin_config_map(tmp_path):
    found = lint(tmp_path, CLOUD_INIT + PLUGIN_CONFIG.format(strategy="cdi-cri"))
    assert where(found, "GPU317") == [("GPU317", 7, 22)]  # the value false
    (finding,) = _gpu317(found)
    assert finding["severity"] == "warning"
    assert [(r["line"], r["column"]) for r in finding["related"]] == [(18, 29)]
    assert "flags.plugin.deviceListStrategy" in finding["related"][0]["message"]


def test_toml_file_against_device_plugin_values(tmp_path):
    found = _folder(
        tmp_path,
        {
            "config.toml": TOML_OFF,
            "values.yaml": "deviceListStrategy: cdi-annotations,cdi-cri\nmigStrategy: none\n",
        },
    )
    (finding,) = _gpu317(found)
    assert (Path(finding["path"]).name, finding["line"], finding["column"]) == (
        "config.toml",
        4,
        16,
    )
    assert finding["related"][0]["line"] == 1
    assert Path(finding["related"][0]["path"]).name == "values.yaml"


def test_toml_file_against_a_daemonset_env(tmp_path):
    found = _folder(tmp_path, {"config.toml": TOML_OFF, "plugin.yaml": DAEMONSET})
    (finding,) = _gpu317(found)
    assert (finding["line"], finding["column"]) == (4, 16)
    assert (finding["related"][0]["line"], finding["related"][0]["column"]) == (17, 22)
    assert "env DEVICE_LIST_STRATEGY" in finding["related"][0]["message"]


def test_one_finding_per_config_however_many_strategy_sites(tmp_path):
    found = _folder(
        tmp_path,
        {
            "config.toml": TOML_OFF,
            "plugin.yaml": DAEMONSET,
            "values.yaml": "deviceListStrategy: cdi-cri\n",
        },
    )
    (finding,) = _gpu317(found)
    assert len(finding["related"]) == 2
    assert "and 1 more" in finding["message"]


def test_a_strategy_list_in_the_config_file(tmp_path):
    text = CLOUD_INIT + PLUGIN_CONFIG.format(strategy="[cdi-annotations, cdi-cri]")
    assert where(lint(tmp_path, text), "GPU317") == [("GPU317", 7, 22)]


def test_silent_when_a_strategy_also_serves_the_nvidia_runtime(tmp_path):
    text = CLOUD_INIT + PLUGIN_CONFIG.format(strategy="envvar,cdi-annotations")
    assert where(lint(tmp_path, text), "GPU317") == []


def test_silent_when_any_site_of_the_run_is_not_cdi_only(tmp_path):
    found = _folder(
        tmp_path,
        {
            "config.toml": TOML_OFF,
            "plugin.yaml": DAEMONSET,
            "values.yaml": "deviceListStrategy: envvar\n",
        },
    )
    assert _gpu317(found) == []


def test_silent_when_enable_cdi_is_unset(tmp_path):
    text = CLOUD_INIT.replace("enable_cdi = false", 'sandbox_image = "pause"')
    text += PLUGIN_CONFIG.format(strategy="cdi-cri")
    assert where(lint(tmp_path, text), "GPU317") == []


def test_silent_for_a_version_3_config(tmp_path):
    text = CLOUD_INIT.replace("version = 2", "version = 3").replace(
        "io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"
    )
    text += PLUGIN_CONFIG.format(strategy="cdi-cri")
    assert where(lint(tmp_path, text), "GPU317") == []


ANNOTATIONS = """\
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
        container_annotations = ["cdi.k8s.io/*"]
"""


def test_cdi_annotations_passed_through_to_a_runtime_are_left_alone(tmp_path):
    text = CLOUD_INIT + ANNOTATIONS + PLUGIN_CONFIG.format(strategy="cdi-annotations")
    assert where(lint(tmp_path, text), "GPU317") == []


def test_cdi_cri_devices_are_not_annotations(tmp_path):
    text = CLOUD_INIT + ANNOTATIONS + PLUGIN_CONFIG.format(strategy="cdi-cri")
    assert where(lint(tmp_path, text), "GPU317") == [("GPU317", 7, 22)]


def test_silent_when_the_run_deploys_the_gpu_operator(tmp_path):
    operator_values = "driver:\n  enabled: false\ntoolkit:\n  enabled: true\n"
    found = _folder(
        tmp_path,
        {
            "config.toml": TOML_OFF,
            "values.yaml": "deviceListStrategy: cdi-cri\n",
            "operator-values.yaml": operator_values,
        },
    )
    assert _gpu317(found) == []


def test_silent_without_any_strategy_in_the_run(tmp_path):
    assert where(lint(tmp_path, CLOUD_INIT), "GPU317") == []


def test_a_placeholder_strategy_is_no_strategy(tmp_path):
    found = _folder(
        tmp_path,
        {"config.toml": TOML_OFF, "plugin.yaml": DAEMONSET.replace("cdi-cri", "$(STRATEGY)")},
    )
    assert _gpu317(found) == []


RUNC_DEFAULT = """\
      [plugins."io.containerd.grpc.v1.cri".containerd]
        default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/bin/nvidia-container-runtime"
"""

GPU_JOB = """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def test_one_root_cause_gpu312_is_silent_under_a_cdi_only_strategy(tmp_path):
    text = CLOUD_INIT + RUNC_DEFAULT + PLUGIN_CONFIG.format(strategy="cdi-cri") + GPU_JOB
    found = lint(tmp_path, text)
    assert where(found, "GPU317") == [("GPU317", 7, 22)]
    assert where(found, "GPU312") == []  # no NVIDIA_VISIBLE_DEVICES: the default runtime is moot


def test_gpu312_still_reports_when_the_strategy_is_envvar(tmp_path):
    text = CLOUD_INIT + RUNC_DEFAULT + PLUGIN_CONFIG.format(strategy="envvar") + GPU_JOB
    found = lint(tmp_path, text)
    assert where(found, "GPU317") == []
    assert where(found, "GPU312") == [("GPU312", 9, 32)]
