"""GPU707: a CUDA-based image on a container that holds no GPU, under the NVIDIA runtime."""

from __future__ import annotations

import textwrap

from gpulint.model.gpu.cuda_images import visible_all_reason
from gpulint.model.runtime.runtime_classes import go_bool, refuses_envvar_text
from tests.helpers import findings_json, lint, run_cli, where

RUNTIME_CLASS = """\
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: {handler}
---
"""


def notebook(container: str = "", runtime_class: str = "nvidia", image: str = "") -> str:
    """A Deployment whose container 'jupyter' runs RAPIDS (its image: line 14, or 15 with a
    runtimeClassName)."""
    image = image or "rapidsai/notebooks:24.10-cuda12.5-py3.12"
    extra = textwrap.indent(textwrap.dedent(container), " " * 10) if container else ""
    spec = f"      runtimeClassName: {runtime_class}\n" if runtime_class else ""
    return (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        "  name: notebook\n"
        "spec:\n"
        "  selector:\n"
        "    matchLabels: {app: notebook}\n"
        "  template:\n"
        "    metadata:\n"
        "      labels: {app: notebook}\n"
        "    spec:\n"
        f"{spec}"
        "      containers:\n"
        "        - name: jupyter\n"
        f"          image: {image}\n"
        f"{extra}"
    )


def gpu707(findings: list[dict]) -> list[tuple[str, int, int]]:
    return where(findings, "GPU707")


def held(report: dict) -> dict[str, list[str]]:
    return {h["code"]: h["needs"] for h in report.get("heldBack", [])}


# --- the runtimeClassName case ---------------------------------------------------------


def test_runtime_class_with_nvidia_handler_reports_the_image(tmp_path):
    text = RUNTIME_CLASS.format(handler="nvidia") + notebook("resources: {limits: {cpu: 1}}\n")
    findings = lint(tmp_path, text)
    assert gpu707(findings) == [("GPU707", 21, 18)]  # the image value
    (finding,) = [f for f in findings if f["code"] == "GPU707"]
    assert finding["severity"] == "warning"
    assert finding["path"].endswith("manifest.yaml")
    assert "rapidsai/notebooks:24.10-cuda12.5-py3.12" in finding["message"]
    assert "RuntimeClass nvidia has handler 'nvidia'" in finding["message"]
    assert "NVIDIA_VISIBLE_DEVICES=void" in finding["message"]
    assert [r["line"] for r in finding["related"]] == [5]  # the handler


def test_gpu_count_zero_is_named_in_the_message(tmp_path):
    text = RUNTIME_CLASS.format(handler="nvidia-cdi") + notebook(
        "resources:\n  limits:\n    nvidia.com/gpu: 0\n"
    )
    findings = lint(tmp_path, text)
    assert gpu707(findings) == [("GPU707", 21, 18)]
    assert "requests no GPU (nvidia.com/gpu: 0)" in findings[0]["message"]


def test_runtime_class_with_another_handler_is_silent_and_not_held(tmp_path):
    text = RUNTIME_CLASS.format(handler="runc") + notebook()
    path = tmp_path / "m.yaml"
    path.write_text(text)
    report = findings_json(str(path))
    assert gpu707(report["findings"]) == []
    assert "GPU707" not in held(report)


def test_runtime_class_handler_from_a_containerd_runtime_of_the_run(write, tmp_path):
    write(
        "node.toml",
        """
        version = 2
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.gpu]
          runtime_type = "io.containerd.runc.v2"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.gpu.options]
            BinaryName = "/usr/bin/nvidia-container-runtime"
        """,
    )
    write(
        "app.yaml",
        RUNTIME_CLASS.format(handler="gpu").replace("name: nvidia", "name: gpu")
        + notebook(runtime_class="gpu"),
    )
    findings = findings_json(str(tmp_path))["findings"]
    assert [
        (c, f["path"].rsplit("/", 1)[-1], f["line"])
        for f in findings
        for c in [f["code"]]
        if c == "GPU707"
    ] == [("GPU707", "app.yaml", 21)]


def test_runtime_class_name_alone_is_held_back(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(notebook())
    report = findings_json(str(path))
    assert gpu707(report["findings"]) == []
    assert held(report) == {"GPU707": ["nvidia-runtime"]}


def test_operator_of_the_run_creates_the_nvidia_runtime_class(write, tmp_path):
    write(
        "values.yaml",
        "toolkit:\n  enabled: true\ndriver:\n  enabled: false\n"
        "operator:\n  defaultRuntime: containerd\n",
    )
    write("app.yaml", notebook())
    findings = findings_json(str(tmp_path), "--values-for", "gpu-operator")["findings"]
    assert gpu707(findings) == [("GPU707", 15, 18)]
    assert (
        "the GPU Operator creates RuntimeClass nvidia, handler 'nvidia'" in findings[0]["message"]
    )


# --- the held-back case ----------------------------------------------------------------


def test_without_runtime_facts_the_finding_is_held_back(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(notebook(runtime_class=""))
    report = findings_json(str(path))
    assert gpu707(report["findings"]) == []
    assert held(report) == {"GPU707": ["nvidia-runtime"]}
    text = run_cli("check", str(path)).output
    assert "for nvidia-runtime, lint the nodes' containerd config" in text


# --- the containerd-default case -------------------------------------------------------

CLOUD_INIT = """\
#cloud-config
write_files:
  - path: /etc/containerd/config.toml
    content: |
      version = 2
      [plugins."io.containerd.grpc.v1.cri".containerd]
        default_runtime_name = "{default}"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/bin/nvidia-container-runtime"
"""


def test_containerd_default_nvidia_reports_pods_without_runtime_class(write, tmp_path):
    write("node-config.yaml", CLOUD_INIT.format(default="nvidia"))
    write("app.yaml", notebook(runtime_class=""))
    findings = findings_json(str(tmp_path))["findings"]
    (finding,) = [f for f in findings if f["code"] == "GPU707"]
    assert (finding["path"].rsplit("/", 1)[-1], finding["line"], finding["column"]) == (
        "app.yaml",
        14,
        18,
    )
    assert "(the default runtime of containerd config" in finding["message"]
    assert finding["related"][0]["path"].endswith("node-config.yaml")


def test_containerd_default_runc_is_silent_and_not_held(write, tmp_path):
    write("node-config.yaml", CLOUD_INIT.format(default="runc"))
    write("app.yaml", notebook(runtime_class=""))
    report = findings_json(str(tmp_path))
    assert gpu707(report["findings"]) == []
    assert "GPU707" not in held(report)


def test_operator_with_cdi_disabled_makes_nvidia_the_default(write, tmp_path):
    write("values.yaml", "cdi:\n  enabled: false\ntoolkit:\n  enabled: true\n")
    write("app.yaml", notebook(runtime_class=""))
    findings = findings_json(str(tmp_path), "--values-for", "gpu-operator")["findings"]
    assert gpu707(findings) == [("GPU707", 14, 18)]


def test_operator_set_as_default_true_in_toolkit_env(write, tmp_path):
    write(
        "values.yaml",
        'toolkit:\n  env:\n    - name: CONTAINERD_SET_AS_DEFAULT\n      value: "true"\n',
    )
    write("app.yaml", notebook(runtime_class=""))
    findings = findings_json(str(tmp_path), "--values-for", "gpu-operator")["findings"]
    assert gpu707(findings) == [("GPU707", 14, 18)]


def test_operator_defaults_leave_it_to_the_chart_version_and_hold_back(write, tmp_path):
    write("values.yaml", "toolkit:\n  enabled: true\n")
    write("app.yaml", notebook(runtime_class=""))
    report = findings_json(str(tmp_path), "--values-for", "gpu-operator")
    assert gpu707(report["findings"]) == []
    assert held(report) == {"GPU707": ["nvidia-runtime"]}


def test_operator_with_cdi_enabled_does_not_make_nvidia_the_default(write, tmp_path):
    write("values.yaml", "cdi:\n  enabled: true\ntoolkit:\n  enabled: true\n")
    write("app.yaml", notebook(runtime_class=""))
    report = findings_json(str(tmp_path), "--values-for", "gpu-operator")
    assert gpu707(report["findings"]) == [] and "GPU707" not in held(report)


# --- the toolkit refusing the variable -------------------------------------------------


def test_toolkit_refusing_the_variable_quiets_the_rule(write, tmp_path):
    write(
        "values.yaml",
        "cdi:\n  enabled: false\ntoolkit:\n  env:\n"
        "    - name: ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED\n"
        '      value: "false"\n'
        "devicePlugin:\n  env:\n    - name: DEVICE_LIST_STRATEGY\n      value: volume-mounts\n",
    )
    write("app.yaml", notebook(runtime_class=""))
    report = findings_json(str(tmp_path), "--values-for", "gpu-operator")
    assert gpu707(report["findings"]) == [] and "GPU707" not in held(report)


def test_toolkit_config_toml_refusing_the_variable_quiets_the_rule(write, tmp_path):
    write(
        "node-config.yaml",
        CLOUD_INIT.format(default="nvidia")
        + "  - path: /etc/nvidia-container-runtime/config.toml\n"
        "    content: |\n"
        "      accept-nvidia-visible-devices-envvar-when-unprivileged = false\n"
        "      accept-nvidia-visible-devices-as-volume-mounts = true\n",
    )
    write("app.yaml", notebook(runtime_class=""))
    assert gpu707(findings_json(str(tmp_path))["findings"]) == []


def test_refusal_text_must_be_a_setting_not_a_comment():
    assert refuses_envvar_text("accept-nvidia-visible-devices-envvar-when-unprivileged = false")
    assert not refuses_envvar_text(
        "#accept-nvidia-visible-devices-envvar-when-unprivileged = false"
    )
    assert not refuses_envvar_text("accept-nvidia-visible-devices-envvar-when-unprivileged = true")


# --- the void case and other ways the container hides or sets the variable -------------


def test_void_none_and_empty_hide_the_gpus(tmp_path):
    for value in ("void", "none", '""'):
        container = f"env:\n  - name: NVIDIA_VISIBLE_DEVICES\n    value: {value}\n"
        text = RUNTIME_CLASS.format(handler="nvidia") + notebook(container)
        assert gpu707(lint(tmp_path, text)) == [], value


def test_all_set_in_the_env_is_gpu701s_finding_alone(tmp_path):
    container = "env:\n  - name: NVIDIA_VISIBLE_DEVICES\n    value: all\n"
    findings = lint(tmp_path, RUNTIME_CLASS.format(handler="nvidia") + notebook(container))
    assert [f["code"] for f in findings if f["code"].startswith("GPU70")] == ["GPU701"]


def test_env_from_may_set_the_variable(tmp_path):
    container = "envFrom:\n  - configMapRef: {name: settings}\n"
    assert (
        gpu707(lint(tmp_path, RUNTIME_CLASS.format(handler="nvidia") + notebook(container))) == []
    )


def test_privileged_container_is_left_to_gpu703(tmp_path):
    container = "securityContext: {privileged: true}\n"
    assert (
        gpu707(lint(tmp_path, RUNTIME_CLASS.format(handler="nvidia") + notebook(container))) == []
    )


# --- the GPU-request and DRA cases -----------------------------------------------------


def test_a_container_that_requests_a_gpu_is_silent(tmp_path):
    for resources in ("nvidia.com/gpu: 1", "nvidia.com/mig-1g.10gb: 1", "nvidia.com/gpu: ${N}"):
        container = f"resources:\n  limits:\n    {resources}\n"
        text = RUNTIME_CLASS.format(handler="nvidia") + notebook(container)
        assert gpu707(lint(tmp_path, text)) == [], resources


def test_a_pod_of_another_accelerator_is_silent(tmp_path):
    # a Gaudi or Neuron pod runs on that accelerator's nodes, which hold no NVIDIA GPU
    for resource in ("habana.ai/gaudi: 8", "aws.amazon.com/neuron: 1"):
        container = f"resources:\n  limits:\n    {resource}\n"
        text = RUNTIME_CLASS.format(handler="nvidia") + notebook(container)
        assert gpu707(lint(tmp_path, text)) == [], resource


def test_a_container_with_a_dra_gpu_claim_is_silent(tmp_path):
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.nvidia.com
---
"""
    text = (
        claim
        + RUNTIME_CLASS.format(handler="nvidia")
        + notebook("resources:\n  claims:\n    - name: gpu\n")
        + "      resourceClaims:\n        - name: gpu\n"
        + "          resourceClaimTemplateName: one-gpu\n"
    )
    assert gpu707(lint(tmp_path, text)) == []


def test_a_claim_the_run_does_not_define_is_silent_too(tmp_path):
    text = (
        RUNTIME_CLASS.format(handler="nvidia")
        + notebook("resources:\n  claims:\n    - name: gpu\n")
        + "      resourceClaims:\n        - name: gpu\n          resourceClaimName: elsewhere\n"
    )
    assert gpu707(lint(tmp_path, text)) == []


# --- images ----------------------------------------------------------------------------


def test_images_not_known_to_set_the_variable_are_silent(tmp_path):
    for image in ("python:3.12", "nvcr.io/nvidia/pytorch:24.05-py3", "pytorch/pytorch:latest"):
        text = RUNTIME_CLASS.format(handler="nvidia") + notebook(image=image)
        assert gpu707(lint(tmp_path, text)) == [], image


def test_an_image_whose_own_dockerfile_sets_the_variable(tmp_path):
    # unseen6c: thaynes43/haynes-ops runs ollama/ollama with runtimeClassName nvidia and its
    # GPU requests commented out; ollama's Dockerfile sets NVIDIA_VISIBLE_DEVICES=all
    text = RUNTIME_CLASS.format(handler="nvidia") + notebook(image="ollama/ollama:0.9.0")
    findings = lint(tmp_path, text)
    assert gpu707(findings) == [("GPU707", 21, 18)]
    assert "ollama/ollama:0.9.0 (Ollama's image, whose config sets" in findings[0]["message"]
    rocm = RUNTIME_CLASS.format(handler="nvidia") + notebook(image="ollama/ollama:rocm")
    assert gpu707(lint(tmp_path, rocm)) == []


def test_the_image_table():
    assert visible_all_reason("nvidia/cuda:12.4.1-base-ubuntu22.04") == "a CUDA base image"
    assert visible_all_reason("docker.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04")
    assert visible_all_reason("nvcr.io/nvidia/cuda:12.5.1-base-ubi8")
    assert visible_all_reason("vllm/vllm-openai:v0.6.3")
    assert visible_all_reason("ghcr.io/huggingface/text-generation-inference:2.4.0")
    assert visible_all_reason("nvcr.io/nvidia/rapidsai/notebooks:24.10-cuda12.5-py3.12")
    assert visible_all_reason("pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime")
    assert visible_all_reason("ollama/ollama:0.9.0") == "Ollama's image"
    assert visible_all_reason("docker.io/ollama/ollama")
    assert visible_all_reason("ollama/ollama:0.6.2-rocm") is None  # a separate stage once
    assert visible_all_reason("jellyfin/jellyfin:10.10.3") == "Jellyfin's image"
    assert visible_all_reason("ghcr.io/jellyfin/jellyfin:10.10.3")
    assert visible_all_reason("localai/localai:latest-gpu-nvidia-cuda-12") == "LocalAI's image"
    assert visible_all_reason("quay.io/go-skynet/local-ai:v2.29.0")
    assert visible_all_reason("linuxserver/jellyfin:10.10.3") is None
    assert visible_all_reason("registry.example.com/nvidia/cuda:12") is None  # a mirror
    assert visible_all_reason("nvcr.io/nvidia/k8s-device-plugin:v0.17.0") is None
    assert visible_all_reason("${IMAGE}") is None


def test_go_bool_reads_values_as_the_toolkit_installer_does():
    assert [go_bool(v) for v in ("true", "1", "T", "False", "0", "yes", True)] == [
        True,
        True,
        True,
        False,
        False,
        None,
        True,
    ]


# --- pods and templates whose GPUs come from elsewhere ---------------------------------


def test_a_gpu_sharing_scheduler_annotation_is_silent(tmp_path):
    text = RUNTIME_CLASS.format(handler="nvidia") + notebook().replace(
        "      labels: {app: notebook}\n",
        '      labels: {app: notebook}\n      annotations: {gpu-fraction: "0.5"}\n',
    )
    assert gpu707(lint(tmp_path, text)) == []


def test_a_serving_runtime_template_is_silent(tmp_path):
    text = RUNTIME_CLASS.format(handler="nvidia") + textwrap.dedent(
        """\
        apiVersion: serving.kserve.io/v1alpha1
        kind: ClusterServingRuntime
        metadata:
          name: vllm
        spec:
          supportedModelFormats: [{name: huggingface}]
          containers:
            - name: kserve-container
              image: vllm/vllm-openai:v0.6.3
        """
    )
    assert gpu707(lint(tmp_path, text)) == []


# --- a ClusterPolicy, and the toolkit installer's env names ----------------------------

CLUSTER_POLICY = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
  cdi:
    enabled: false
  toolkit:
    enabled: true
---
"""


def test_a_cluster_policy_with_cdi_disabled_makes_nvidia_the_default(tmp_path):
    findings = lint(tmp_path, CLUSTER_POLICY + notebook(runtime_class=""))
    (finding,) = [f for f in findings if f["code"] == "GPU707"]
    assert (finding["line"], finding["column"]) == (24, 18)
    assert "per ClusterPolicy cluster-policy, the toolkit makes it" in finding["message"]
    assert [r["line"] for r in finding["related"]] == [8]  # spec.toolkit


def test_every_set_as_default_name_of_the_installer_is_read():
    from gpulint.model.runtime.runtime_classes import operator_toolkits_document

    for name in ("NVIDIA_RUNTIME_SET_AS_DEFAULT", "CONTAINERD_SET_AS_DEFAULT"):
        values = {"cdi": {"enabled": False}, "toolkit": {"env": [{"name": name, "value": "0"}]}}
        (toolkit,) = operator_toolkits_document(values, "gpu-operator")
        assert toolkit.default_state is False and toolkit.not_default is not None, name
