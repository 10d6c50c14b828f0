"""The runtime layer across files: GPU312, GPU315, GPU316."""

from __future__ import annotations

import json
import textwrap

from tests.helpers import run_cli

V2 = 'plugins."io.containerd.grpc.v1.cri".containerd'

CONFIG = f"""\
version = 2
[{V2}]
  default_runtime_name = "{{default}}"
[{V2}.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[{V2}.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
[{V2}.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
{runtime}      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              {resource}: 1
"""

RUNTIME_CLASS = """\
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: {name}
handler: {handler}
"""

OPERATOR_VALUES = "driver:\n  enabled: true\ntoolkit:\n  enabled: {enabled}\n"


def job(runtime: str | None = None, resource: str = "nvidia.com/gpu") -> str:
    line = f"      runtimeClassName: {runtime}\n" if runtime else ""
    return JOB.format(runtime=line, resource=resource)


def lint_files(tmp_path, files: dict[str, str], select: str) -> list[tuple[str, int, int, str]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run_cli("check", "--format", "json", "--select", select, str(tmp_path))
    found = json.loads(result.output)["findings"]
    return [(f["path"].rsplit("/", 1)[1], f["line"], f["column"], f["message"]) for f in found]


def places(found) -> list[tuple[str, int, int]]:
    return [f[:3] for f in found]


# --- GPU312 containerd-default-runtime-not-nvidia ---------------------------------------------


def test_default_runc_with_gpu_jobs_without_runtime_class(tmp_path):
    files = {"config.toml": CONFIG.format(default="runc"), "job.yaml": job()}
    found = lint_files(tmp_path, files, "GPU312")
    assert places(found) == [("config.toml", 3, 26)]
    assert "(Job train)" in found[0][3] and "see no GPU" in found[0][3]


def test_default_unset_is_reported_at_the_containerd_section(tmp_path):
    text = CONFIG.format(default="runc").replace('  default_runtime_name = "runc"\n', "")
    found = lint_files(tmp_path, {"config.toml": text, "job.yaml": job()}, "GPU312")
    assert places(found) == [("config.toml", 2, 38)]
    assert "the default runtime is 'runc'" in found[0][3]


def test_a_fragment_is_reported_only_for_a_default_it_sets(tmp_path):
    # A snippet spliced into another config says nothing of the default it leaves out.
    files = {"snippet.toml": textwrap.dedent(FRAGMENT), "job.yaml": job()}
    assert lint_files(tmp_path, files, "GPU312") == []
    files["snippet.toml"] = f'[{V2}]\n  default_runtime_name = "runc"\n' + files["snippet.toml"]
    found = lint_files(tmp_path, files, "GPU312")
    assert places(found) == [("snippet.toml", 2, 26)]
    assert "(no version line; version 2 by its plugin names)" in found[0][3]
    # A config that imports others: an imported file may replace its CRI section.
    importing = CONFIG.format(default="runc").replace(
        "version = 2\n", 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
    )
    other = tmp_path / "importing"
    other.mkdir()
    assert lint_files(other, {"config.toml": importing, "job.yaml": job()}, "GPU312") == []


def test_gpu312_silent_cases(tmp_path):
    cases = [
        {"config.toml": CONFIG.format(default="nvidia"), "job.yaml": job()},
        {"config.toml": CONFIG.format(default="runc"), "job.yaml": job(runtime="nvidia")},
        {"config.toml": CONFIG.format(default="runc"), "job.yaml": job(resource="amd.com/gpu")},
        {"config.toml": CONFIG.format(default="runc")},
        {  # the operator's toolkit rewrites the node's config
            "config.toml": CONFIG.format(default="runc"),
            "job.yaml": job(),
            "values.yaml": OPERATOR_VALUES.format(enabled="true"),
        },
        {  # CDI: devices can be injected without the NVIDIA runtime
            "config.toml": CONFIG.format(default="runc").replace(
                f"[{V2}]\n", f'[plugins."io.containerd.grpc.v1.cri"]\n  enable_cdi = true\n[{V2}]\n'
            ),
            "job.yaml": job(),
        },
    ]
    for index, files in enumerate(cases):
        folder = tmp_path / str(index)
        folder.mkdir()
        assert lint_files(folder, files, "GPU312") == [], files


# --- GPU315 runtime-class-undefined ------------------------------------------------------------


def test_unknown_runtime_class_name_with_did_you_mean(tmp_path):
    files = {
        "rc.yaml": RUNTIME_CLASS.format(name="nvidia-gpu", handler="nvidia"),
        "job.yaml": job(runtime="nvidia-gpus"),
    }
    found = lint_files(tmp_path, files, "GPU315")
    assert places(found) == [("job.yaml", 8, 25)]
    assert "did you mean 'nvidia-gpu'?" in found[0][3]
    assert 'RuntimeClass "nvidia-gpus" not found' in found[0][3]


def test_runtime_class_names_known_or_unjudgeable_are_silent(tmp_path):
    for index, runtime in enumerate(("nvidia-gpu", "nvidia", "nvidia-cdi", "'{{ .Values.rc }}'")):
        folder = tmp_path / str(index)
        folder.mkdir()
        files = {
            "rc.yaml": RUNTIME_CLASS.format(name="nvidia-gpu", handler="nvidia"),
            "job.yaml": job(runtime=runtime),
        }
        assert lint_files(folder, files, "GPU315") == [], runtime
    # no RuntimeClass in the run: nothing to compare with
    assert lint_files(tmp_path / "0", {"rc.yaml": "a: 1\n"}, "GPU315") == []


# --- GPU316 runtime-class-handler-unknown -------------------------------------------------------


def test_handler_missing_from_the_containerd_config(tmp_path):
    files = {
        "config.toml": CONFIG.format(default="nvidia"),
        "rc.yaml": RUNTIME_CLASS.format(name="kata", handler="kata-qemu"),
        "rc2.yaml": RUNTIME_CLASS.format(name="nvidia", handler="nvidia"),
    }
    found = lint_files(tmp_path, files, "GPU316")
    assert places(found) == [("rc.yaml", 5, 10)]
    assert "(runtimes: nvidia, runc)" in found[0][3]


def test_operator_toolkit_adds_the_nvidia_runtimes(tmp_path):
    config = CONFIG.format(default="runc").split(f"[{V2}.runtimes.nvidia]")[0]
    files = {"config.toml": config, "rc.yaml": RUNTIME_CLASS.format(name="x", handler="nvidia-cdi")}
    assert places(lint_files(tmp_path, files, "GPU316")) == [("rc.yaml", 5, 10)]
    files["values.yaml"] = OPERATOR_VALUES.format(enabled="true")
    assert lint_files(tmp_path, files, "GPU316") == []
    files["values.yaml"] = OPERATOR_VALUES.format(enabled="false")
    assert places(lint_files(tmp_path, files, "GPU316")) == [("rc.yaml", 5, 10)]


# A snippet an image builder splices into its own `version = 2` config (voor/kubernetes-gpu).
FRAGMENT = f"""\
    [{V2}.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
    [{V2}.runtimes.nvidia.options]
        BinaryName = "/usr/bin/nvidia-container-runtime"
"""


def test_a_fragment_without_a_version_is_read_for_the_version_its_names_are_for(tmp_path):
    files = {
        "snippet.toml": FRAGMENT,
        "rc.yaml": RUNTIME_CLASS.format(name="nvidia", handler="nvidia"),
    }
    assert lint_files(tmp_path, files, "GPU316") == []
    # A whole config (it sets more than plugins) without a version is version 1 to containerd,
    # which reads only plugins.cri: its runtimes are not there.
    files["snippet.toml"] = 'root = "/var/lib/containerd"\n' + FRAGMENT
    found = lint_files(tmp_path, files, "GPU316")
    assert places(found) == [("rc.yaml", 5, 10)]
    assert "(runtimes: none)" in found[0][3]


def test_handlers_are_judged_only_against_a_whole_config_that_imports_nothing(tmp_path):
    kata = RUNTIME_CLASS.format(name="kata", handler="kata-qemu")
    assert lint_files(tmp_path, {"snippet.toml": FRAGMENT, "rc.yaml": kata}, "GPU316") == []
    importing = CONFIG.format(default="nvidia").replace(
        "version = 2\n", 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n'
    )
    assert lint_files(tmp_path, {"snippet.toml": importing, "rc.yaml": kata}, "GPU316") == []
    # A whole config with a fragment beside it: the runtimes of both are known.
    files = {
        "snippet.toml": CONFIG.format(default="nvidia"),
        "kata.toml": FRAGMENT.replace("runtimes.nvidia", "runtimes.kata-qemu"),
        "rc.yaml": kata,
    }
    assert lint_files(tmp_path, files, "GPU316") == []
    files["rc.yaml"] = RUNTIME_CLASS.format(name="kata", handler="kata-fc")
    found = lint_files(tmp_path, files, "GPU316")
    assert places(found) == [("rc.yaml", 5, 10)]
    assert "(runtimes: kata-qemu, nvidia, runc)" in found[0][3]


def test_without_a_containerd_config_handlers_are_not_judged(tmp_path):
    files = {"rc.yaml": RUNTIME_CLASS.format(name="kata", handler="kata-qemu")}
    assert lint_files(tmp_path, files, "GPU316") == []


def test_operator_values_that_keep_runc_the_default(tmp_path):
    values = (
        "driver:\n  enabled: true\ncdi:\n  enabled: false\ntoolkit:\n  enabled: true\n  env:\n"
        '    - name: CONTAINERD_SET_AS_DEFAULT\n      value: "false"\n'
    )
    found = lint_files(tmp_path, {"values.yaml": values, "job.yaml": job()}, "GPU312")
    assert places(found) == [("values.yaml", 9, 14)]
    assert "CONTAINERD_SET_AS_DEFAULT to false" in found[0][3] and "(Job train)" in found[0][3]
    # CDI left on (or unsaid): devices may reach runc containers; and no GPU pod: silent
    (tmp_path / "values.yaml").write_text(values.replace("enabled: false", "enabled: true", 1))
    assert lint_files(tmp_path, {}, "GPU312") == []
    (tmp_path / "values.yaml").write_text(values)
    (tmp_path / "job.yaml").write_text(job(runtime="nvidia"))
    assert lint_files(tmp_path, {}, "GPU312") == []


def test_cluster_policy_that_keeps_runc_the_default_and_a_config_it_does_not_rewrite(tmp_path):
    policy = (
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\n"
        "spec:\n  cdi:\n    enabled: false\n  toolkit:\n    env:\n"
        "      - name: RUNTIME_SET_AS_DEFAULT\n        value: 'false'\n"
    )
    files = {"policy.yaml": policy, "job.yaml": job(), "config.toml": CONFIG.format(default="runc")}
    found = lint_files(tmp_path, files, "GPU312")
    # the toolkit keeps the default, so the node config's runc default is reported too
    assert places(found) == [("config.toml", 3, 26), ("policy.yaml", 11, 16)]
    assert found[1][3].startswith("ClusterPolicy cluster-policy set the toolkit's")


def test_one_folder_with_every_node_layer_input(tmp_path):
    """The issue's 'done when': containerd config, operator values, mig-parted config,
    RuntimeClasses, Nodes and workloads in one folder, each failure at its key."""
    mig = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: custom-mig\ndata:\n"
        "  config.yaml: |\n    version: v1\n    mig-configs:\n      three-3g:\n"
        '        - device-filter: ["0x20B010DE"]\n          devices: all\n'
        "          mig-enabled: true\n          mig-devices:\n"
        '            "3g.20gb": 3\n'
    )
    node = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  labels:\n"
        "    nvidia.com/mig.config: three-3gb\n    nvidia.com/gpu.present: 'true'\n"
        "status:\n  allocatable:\n    cpu: '8'\n"
    )
    config = CONFIG.format(default="runc").replace(
        '"/usr/bin/nvidia-container-runtime"', '"/usr/bin/nvidia-container-runtime-hook"'
    )
    values = (
        "driver:\n  enabled: true\ncdi:\n  enabled: false\ntoolkit:\n  env:\n"
        "    - name: CONTAINERD_SET_AS_DEFAULT\n      value: 'false'\n"
    )
    files = {
        "mig.yaml": mig,
        "node.yaml": node,
        "config.toml": config,
        "values.yaml": values,
        "rc.yaml": RUNTIME_CLASS.format(name="kata", handler="kata-qemu"),
        "job.yaml": job(),
        "job2.yaml": job(runtime="katta").replace("name: train", "name: train2"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run_cli("check", "--format", "json", str(tmp_path))
    found = json.loads(result.output)["findings"]
    codes = {"GPU209", "GPU312", "GPU313", "GPU315", "GPU316", "GPU505", "GPU506"}
    got = sorted(
        (f["code"], f["path"].rsplit("/", 1)[1], f["line"], f["column"])
        for f in found
        if f["code"] in codes
    )
    assert got == [
        ("GPU209", "node.yaml", 9, 3),
        ("GPU312", "config.toml", 3, 26),
        ("GPU312", "values.yaml", 8, 14),
        ("GPU313", "config.toml", 9, 16),
        ("GPU315", "job2.yaml", 8, 25),
        ("GPU316", "rc.yaml", 5, 10),
        ("GPU505", "mig.yaml", 14, 13),
        ("GPU506", "node.yaml", 6, 28),
    ]
