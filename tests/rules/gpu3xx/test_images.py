"""GPU301 gpu-image-pull-always and GPU302 gpu-image-unpinned, and image reference parsing."""

from __future__ import annotations

import pytest

from gpulint.model.values.images import parse_image
from tests.helpers import lint, lint_with, where


def _pod(*containers: tuple[str, str, bool]) -> str:
    """Containers (image, pull policy, holds a GPU); each takes 6 lines from line 7."""
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
    for i, (image, policy, gpu) in enumerate(containers):
        text += f"    - name: c{i}\n      image: {image}\n"
        text += f"      imagePullPolicy: {policy}\n" if policy else "      stdin: false\n"
        text += "      resources:\n        limits:\n"
        text += "          nvidia.com/gpu: 1\n" if gpu else "          cpu: 1\n"
    return text


def test_gpu301_always_on_gpu_containers_only(tmp_path):
    text = _pod(
        ("nvcr.io/nvidia/tritonserver:24.05-py3", "Always", True),
        ("nginx:1.27", "Always", False),
        ("vllm/vllm-openai:v0.6.3", "IfNotPresent", True),
    )
    found = lint(tmp_path, text, "--select", "GPU301")
    assert where(found) == [("GPU301", 9, 7)]
    assert "tritonserver:24.05-py3" in found[0]["message"]
    assert found[0]["severity"] == "note"  # cached layers are reused: a registry round-trip


def test_gpu301_is_opt_in_selected_by_flag_or_config(tmp_path, monkeypatch):
    text = _pod(("nvcr.io/nvidia/tritonserver:24.05-py3", "Always", True))
    monkeypatch.chdir(tmp_path)
    assert "GPU301" not in {f["code"] for f in lint(tmp_path, text)}  # not in the default set
    assert "GPU301" not in {f["code"] for f in lint(tmp_path, text, "--select", "GPU3")}
    assert where(lint(tmp_path, text, "--extend-select", "gpu-image-pull-always")) == [
        ("GPU301", 9, 7),
        ("GPU106", 11, 9),
    ]
    (tmp_path / ".gpulint.yaml").write_text("extend-select: [GPU301]\n")
    assert ("GPU301", 9, 7) in where(lint(tmp_path, text))


SERVER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: infer
spec:
  selector:
    matchLabels: {app: infer}
  template:
    metadata:
      labels: {app: infer}
    spec:
      containers:
        - name: server
          image: IMAGE
          ports: [{containerPort: 8000}]
          resources:
            limits: {nvidia.com/gpu: 1, cpu: 4, memory: 16Gi}
"""


def test_gpu302_leaves_a_short_name_to_the_local_build_it_names(tmp_path):
    local = SERVER.replace("IMAGE", "ai-inference-gpu:latest")
    assert lint(tmp_path, local, "--select", "GPU302") == []
    hosted = SERVER.replace("IMAGE", "registry.example.com:5000/ai-inference-gpu:latest")
    assert where(lint(tmp_path, hosted, "--select", "GPU302")) == [("GPU302", 14, 11)]
    owned = SERVER.replace("IMAGE", "intel/ai-inference-gpu:latest")
    assert where(lint(tmp_path, owned, "--select", "GPU302")) == [("GPU302", 14, 11)]


def test_gpu301_skips_gpu_infrastructure(tmp_path):
    text = _pod(("nvcr.io/nvidia/k8s-device-plugin:v0.17.0", "Always", True))
    assert lint(tmp_path, text, "--select", "GPU301") == []


def test_gpu302_latest_and_untagged(tmp_path):
    text = _pod(
        ("vllm/vllm-openai:latest", "", True),
        ("lmsysorg/sglang", "", True),
        ("localhost:5000/team/trainer", "", True),
        ("ubuntu", "", False),
    )
    found = lint(tmp_path, text, "--select", "GPU302")
    assert where(found) == [("GPU302", 8, 7), ("GPU302", 14, 7), ("GPU302", 20, 7)]
    assert "uses the tag latest" in found[0]["message"]
    assert "'lmsysorg/sglang' has no tag" in found[1]["message"]
    # a registry port is not a tag
    assert "'localhost:5000/team/trainer' has no tag" in found[2]["message"]


def test_gpu302_a_cuda_version_in_the_repository_name_is_a_note(tmp_path):
    dlc = "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/"
    text = _pod(
        (dlc + "huggingface-text-generation-inference-cu124.2-3.ubuntu2204.py311", "", True),
        ("team/trainer-cuda12.4:latest", "", True),
        ("team/cudnn8-trainer", "", True),  # cuDNN's version, not CUDA's
    )
    found = lint(tmp_path, text, "--select", "GPU302")
    assert where(found) == [("GPU302", 8, 7), ("GPU302", 14, 7), ("GPU302", 20, 7)]
    assert [f["severity"] for f in found] == ["note", "note", "warning"]
    assert "its repository name fixes the CUDA version (cu124)" in found[0]["message"]
    assert "(cuda12.4)" in found[1]["message"]


def test_gpu302_a_release_in_the_repository_name_is_a_note(tmp_path):
    dlc = "us-central1-docker.pkg.dev/example/deep-learning-images/"
    text = _pod(
        (dlc + "huggingface-text-generation-inference-gpu.3.0.1", "", True),
        ("team/pytorch-gpu.2-1.py310:latest", "", True),
        ("team/ray2.24.0-py310-vllm-gpu:latest", "", True),  # Ray's release, not vLLM's
        ("nvcr.io/nim/nvidia/llama-3.3-nemotron-super-49b-v1.5:latest", "", True),  # the model's
    )
    found = lint(tmp_path, text, "--select", "GPU302")
    assert [f["line"] for f in found] == [8, 14, 20, 26]
    assert [f["severity"] for f in found] == ["note", "note", "warning", "warning"]
    assert "its repository name fixes the release (3.0.1)" in found[0]["message"]
    assert "(2-1)" in found[1]["message"]


def test_gpu302_the_default_pull_policy_of_a_moving_tag_that_is_not_latest(tmp_path):
    # Kubernetes defaults to Always only for no tag and :latest; :nightly gets IfNotPresent
    found = lint(tmp_path, _pod(("vllm/vllm-openai:nightly", "", True)), "--select", "GPU302")
    assert where(found) == [("GPU302", 8, 7)]
    assert "default imagePullPolicy (IfNotPresent for this tag)" in found[0]["message"]
    assert "becomes Always" not in found[0]["message"]


def test_gpu302_says_what_the_pull_policy_does(tmp_path):
    text = _pod(
        ("vllm/vllm-openai:latest", "", True),
        ("vllm/vllm-openai:latest", "IfNotPresent", True),
        ("vllm/vllm-openai:latest", "Always", True),
    )
    found = lint(tmp_path, text, "--select", "GPU302")
    assert where(found) == [("GPU302", 8, 7), ("GPU302", 14, 7), ("GPU302", 20, 7)]
    assert "the default imagePullPolicy becomes Always" in found[0]["message"]
    assert (
        "imagePullPolicy: IfNotPresent, each node runs the version it pulled first"
        in (found[1]["message"])
    )
    assert "the default" not in found[1]["message"]
    assert "Always pulls it again on every start" in found[2]["message"]


def test_gpu302_digest_and_placeholders_pass(tmp_path):
    text = _pod(
        ("vllm/vllm-openai@sha256:" + "a" * 64, "", True),
        ("vllm/vllm-openai:latest@sha256:" + "b" * 64, "", True),
        ('"${IMAGE}"', "", True),
        ("registry.example.com:443/ml/train:2024.05", "", True),
    )
    assert lint(tmp_path, text, "--select", "GPU302") == []


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("ubuntu", (None, "ubuntu", None, None)),
        ("nvcr.io/nvidia/pytorch:24.05-py3", ("nvcr.io", "nvidia/pytorch", "24.05-py3", None)),
        ("localhost:5000/x", ("localhost:5000", "x", None, None)),
        ("repo/x@sha256:ab", (None, "repo/x", None, "sha256:ab")),
        ("r.io:5000/a/b:1@sha256:cd", ("r.io:5000", "a/b", "1", "sha256:cd")),
    ],
)
def test_parse_image(image, expected):
    ref = parse_image(image)
    assert (ref.registry, ref.repository, ref.tag, ref.digest) == expected


def test_parse_image_leaves_templates_alone():
    assert parse_image("{{ .Values.image }}") is None
    assert parse_image("") is None


def test_latest_with_pull_always_is_one_finding(tmp_path):
    """One root cause, one finding: GPU302 reports the unpinned image and names the policy."""
    text = _pod(
        ("vllm/vllm-openai:latest", "Always", True),
        ("lmsysorg/sglang", "Always", True),
        ("nvcr.io/nvidia/tritonserver:24.05-py3", "Always", True),
    )
    found = lint(tmp_path, text, "--select", "GPU301,GPU302")
    assert where(found) == [("GPU302", 8, 7), ("GPU302", 14, 7), ("GPU301", 21, 7)]
    assert "imagePullPolicy: Always pulls it again on every start" in found[0]["message"]
    assert "use IfNotPresent" in found[1]["message"]


def test_gpu301_leaves_a_placeholder_image_to_whoever_fills_it_in(tmp_path):
    # Whether `Always` costs anything depends on the tag, and a placeholder has none yet.
    text = _pod(("<your-registry>/server", "Always", True), ("${REGISTRY}/x:1.0", "Always", True))
    assert lint(tmp_path, text, "--select", "GPU301,GPU302") == []


@pytest.mark.parametrize(
    "image",
    [
        "REPLACE_MODEL_SERVER_IMAGE",
        "<your-registry>/server",
        "__IMAGE__",
        "'{{workflow.parameters.image}}'",
        "$(IMAGE)",
        "$IMAGE",
        "your-registry.example.com/llm/server",
        "YOUR_IMAGE:latest",
        "registry.local/app:%VERSION%",
        "REPO_HERE.azurecr.io/falcon-40b-instruct:TAG_HERE",
        "REPO/llama-2-13b-chat:TAG",
    ],
)
def test_gpu302_leaves_placeholders_alone(tmp_path, image):
    assert lint(tmp_path, _pod((image, "", True)), "--select", "GPU302") == []


@pytest.mark.parametrize(
    "image", ["nvcr.io/nvidia/todo-server", "replace/server:latest", "repo/server:tag"]
)
def test_gpu302_words_in_lower_case_are_ordinary_names(tmp_path, image):
    # a bare Pod that serves nothing is a batch run: the option `batch` reports it
    found = lint_with(tmp_path, _BATCH_TOO, _pod((image, "", True)), "--select", "GPU302")
    assert where(found) == [("GPU302", 8, 7)]
    assert lint(tmp_path, _pod((image, "", True)), "--select", "GPU302") == []


_BATCH_TOO = "rules:\n  GPU302:\n    batch: true\n"


@pytest.mark.parametrize(
    ("tag", "moves"),
    [
        ("nightly", True),
        ("serving-gpu", True),
        ("latest-intel", True),
        ("v2-latest", True),
        ("main", True),
        ("24.05-py3", False),
        ("cuda12", False),
        ("nightly-2024-05-01", False),
    ],
)
def test_gpu302_a_tag_that_names_no_version_moves(tmp_path, tag, moves):
    found = lint(tmp_path, _pod((f"vllm/vllm-openai:{tag}", "", True)), "--select", "GPU302")
    assert where(found) == ([("GPU302", 8, 7)] if moves else [])
    if moves and tag not in ("latest",):
        assert f"uses the tag {tag}, which names no version" in found[0]["message"]


_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: run
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: {image}
          command: [{command}]
          imagePullPolicy: {policy}
          resources:
            limits:
              nvidia.com/gpu: 8
"""


def test_gpu302_judges_servers_by_default_and_batch_runs_with_the_option(tmp_path):
    job = _JOB.format(image="nvcr.io/nvidia/pytorch:latest", command="torchrun, train.py",
                      policy="IfNotPresent")  # fmt: skip
    assert lint(tmp_path, job, "--select", "GPU302") == []
    assert where(lint_with(tmp_path, _BATCH_TOO, job, "--select", "GPU302")) == [("GPU302", 11, 11)]


@pytest.mark.parametrize(
    ("image", "command", "policy"),
    [
        ("ghcr.io/example/nccl-tests:latest", "all_reduce_perf, -b, 8, -e, 8G", "IfNotPresent"),
        ("example/gpu-burn:latest", "/app/gpu_burn, '120'", "Always"),
        ("nvcr.io/nvidia/pytorch:latest", "torchrun, train.py", "Never"),  # loaded by hand
    ],
)
def test_gpu302_leaves_benchmarks_and_hand_loaded_images_alone(tmp_path, image, command, policy):
    job = _JOB.format(image=image, command=command, policy=policy)
    assert lint_with(tmp_path, _BATCH_TOO, job, "--select", "GPU301,GPU302") == []


def test_gpu302_leaves_a_classic_init_container_to_gpu105(tmp_path):
    text = _pod(("vllm/vllm-openai:v0.6.3", "", True)).replace(
        "  containers:\n",
        "  initContainers:\n    - name: fetch\n      image: ghcr.io/example/fetch:latest\n"
        "      resources: {limits: {nvidia.com/gpu: 1}}\n  containers:\n",
    )
    assert lint(tmp_path, text, "--select", "GPU302") == []
    sidecar = text.replace(
        "    - name: fetch\n", "    - name: fetch\n      restartPolicy: Always\n"
    )
    assert where(lint(tmp_path, sidecar, "--select", "GPU302")) == [("GPU302", 9, 7)]
