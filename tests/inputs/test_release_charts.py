"""A GitOps release of a chart in the linted repository renders that chart with the release's
values (issue 27): an Argo CD Application's ``path`` source of this repository, a Flux
HelmRelease whose chart comes from a GitRepository of this repository. A finding the
release's values cause is reported at the template line, naming where the release writes
the value; anything the run cannot establish renders nothing."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from gpulint.core.settings import Settings
from gpulint.inputs.discover import ChartRelease, Target
from gpulint.inputs.project_scan import project_of
from gpulint.inputs.release_charts import MAX_RENDERS, ReleaseCharts
from gpulint.inputs.render.helm import release_command
from tests.helpers import put_files, run_cli

TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-train
spec:
  replicas: 1
  selector:
    matchLabels: {app: train}
  template:
    metadata:
      labels: {app: train}
    spec:
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:24.01-py3
          resources:
            requests: {cpu: "1", memory: 1Gi}
            limits:
              cpu: "1"
              memory: 1Gi
              nvidia.com/gpu: {{ .Values.gpus }}
"""
GPU_LINE, GPU_COLUMN = 21, 31  # `{{ .Values.gpus }}` in the template


def _repo(root: Path, remote: str | None = "https://github.com/acme/gpu-infra.git") -> Path:
    chart = root / "charts" / "train"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: train\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("gpus: 1\n")
    (chart / "templates" / "deploy.yaml").write_text(TEMPLATE)
    if remote is not None:
        (root / ".git").mkdir()
        (root / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n')
    return root


def _put1(root: Path, name: str, text: str) -> None:
    put_files(root, {name: text})


def _check(*args: str) -> dict:
    return json.loads(run_cli("check", "--format", "json", *args, ".").stdout)


def _gpu103(report: dict) -> list[tuple]:
    return [
        (
            f["path"],
            f["line"],
            f["column"],
            f["message"],
            (f["valueSource"] or {}).get("location"),
        )
        for f in report["findings"]
        if f["code"] == "GPU103"
    ]


def _at(path: str, line: int, column: int) -> dict:
    return {"path": path, "line": line, "column": column}


def _located(location: dict | None) -> dict | None:
    if location is None:
        return None
    return {key: location[key] for key in ("path", "line", "column")}


APPLICATION = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: train
  namespace: argocd
spec:
  project: default
  source:
    repoURL: {url}
    targetRevision: main
    path: {path}
    helm:
{helm}
  destination:
    server: https://kubernetes.default.svc
    namespace: ml
"""


def _application(
    helm: str, url: str = "https://github.com/acme/gpu-infra", path: str = "charts/train"
) -> str:
    return APPLICATION.format(url=url, path=path, helm=textwrap.indent(helm, " " * 6))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return _repo(tmp_path)


def _one_release_finding(report: dict, value_at: dict) -> None:
    found = _gpu103(report)
    assert [(p, line, column, m) for p, line, column, m, _v in found] == [
        (
            "charts/train/templates/deploy.yaml",
            GPU_LINE,
            GPU_COLUMN,
            "nvidia.com/gpu limit 0.5 must be an integer",
        )
    ]
    assert _located(found[0][4]) == value_at


def test_an_application_of_this_repository_renders_the_chart_with_its_values_object(
    repo, real_helm
):
    _put1(repo, "apps/train.yaml", _application("valuesObject:\n  gpus: 0.5\n"))
    report = _check()
    assert report["errors"] == []
    _one_release_finding(report, _at("apps/train.yaml", 14, 9))


def test_a_values_string_is_placed_inside_the_block(repo, real_helm):
    _put1(repo, "apps/train.yaml", _application("values: |\n  replicas: 1\n  gpus: 0.5\n"))
    _one_release_finding(_check(), _at("apps/train.yaml", 15, 9))


def test_parameters_over_the_values_object_name_the_parameter(repo, real_helm):
    helm = "valuesObject:\n  gpus: 2\nparameters:\n  - name: gpus\n    value: '0.5'\n"
    _put1(repo, "apps/train.yaml", _application(helm))
    _one_release_finding(_check(), _at("apps/train.yaml", 17, 11))


def test_a_values_file_of_the_chart_folder_is_read_below_the_inline_values(repo, real_helm):
    _put1(repo, "charts/train/values-prod.yaml", "image: x\ngpus: 0.5\n")
    _put1(repo, "apps/train.yaml", _application("valueFiles: [values-prod.yaml]\n"))
    _one_release_finding(_check(), _at("charts/train/values-prod.yaml", 2, 1))
    # the inline values win over the file's
    _put1(
        repo,
        "apps/train.yaml",
        _application("valueFiles: [values-prod.yaml]\nvaluesObject:\n  gpus: 2\n"),
    )
    assert _gpu103(_check()) == []


def test_a_values_file_that_is_not_there_is_an_input_error_at_its_name(repo):
    _put1(repo, "apps/train.yaml", _application("valueFiles:\n  - values-prod.yaml\n"))
    report = _check()
    assert [
        (e["path"], e["line"], e["column"])
        for e in report["errors"]
        if "values-prod" in e["message"]
    ] == [("apps/train.yaml", 14, 11)]
    _put1(
        repo,
        "apps/train.yaml",
        _application("valueFiles: [values-prod.yaml]\nignoreMissingValueFiles: true\n"),
    )
    assert not [e for e in _check()["errors"] if "values-prod" in e["message"]]


def test_a_finding_both_renders_give_is_reported_once(repo, real_helm):
    _put1(repo, "charts/train/values.yaml", "gpus: 0.5\n")
    _put1(repo, "apps/train.yaml", _application("valuesObject:\n  replicas: 2\n"))
    found = _gpu103(_check())
    assert len(found) == 1
    assert _located(found[0][4]) == _at("charts/train/values.yaml", 1, 1)


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://github.com/someone/else", "charts/train"),  # another repository's folder
        ("https://github.com/acme/gpu-infra", "'{{.path.path}}'"),  # a generator fills it
        ("https://github.com/acme/gpu-infra", "../outside/train"),  # out of the tree
        ("https://github.com/acme/gpu-infra", "charts"),  # a folder that is no chart
    ],
)
def test_what_the_run_cannot_establish_renders_nothing(repo, real_helm, url, path):
    _put1(repo, "apps/train.yaml", _application("valuesObject:\n  gpus: 0.5\n", url, path))
    report = _check()
    assert _gpu103(report) == []
    assert report["errors"] == []


def test_without_an_identity_a_folder_of_the_tree_is_this_repository(
    tmp_path, monkeypatch, real_helm
):
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, remote=None)
    _put1(tmp_path, "apps/train.yaml", _application("valuesObject:\n  gpus: 0.5\n"))
    _one_release_finding(_check(), _at("apps/train.yaml", 14, 9))


FLUX = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  url: {url}
  ref: {{branch: main}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: train-values
  namespace: ml
data:
  values.yaml: |
    gpus: 0.5
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: train
  namespace: ml
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/train
      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}
{extra}
  valuesFrom:
    - kind: ConfigMap
      name: train-values
"""


def test_a_flux_release_from_a_git_repository_of_this_tree_renders_with_values_from(
    repo, real_helm
):
    _put1(
        repo,
        "clusters/main/train.yaml",
        FLUX.format(url="ssh://git@github.com/acme/gpu-infra", extra=""),
    )
    _one_release_finding(_check(), _at("clusters/main/train.yaml", 18, 5))


@pytest.mark.parametrize(
    ("url", "extra"),
    [
        ("https://github.com/someone/else", ""),
        # values files that replace the chart's values.yaml as its defaults
        ("ssh://git@github.com/acme/gpu-infra", "      valuesFiles: [charts/train/gpu.yaml]"),
    ],
)
def test_a_flux_release_of_another_repository_or_without_the_chart_defaults_renders_nothing(
    repo, real_helm, url, extra
):
    _put1(repo, "charts/train/gpu.yaml", "gpus: 1\n")
    _put1(repo, "clusters/main/train.yaml", FLUX.format(url=url, extra=extra))
    assert _gpu103(_check()) == []


OURS_SSH = "ssh://git@github.com/acme/gpu-infra"
VALUES_FILES = "      valuesFiles: [charts/train/values.yaml, charts/train/gpu.yaml]"


def test_flux_values_files_after_the_chart_defaults_are_read_below_the_release_values(
    repo, real_helm
):
    _put1(repo, "charts/train/gpu.yaml", "replicas: 1\ngpus: 0.5\n")
    text = FLUX.format(url=OURS_SSH, extra=VALUES_FILES).replace("gpus: 0.5", "replicas: 2")
    _put1(repo, "clusters/main/train.yaml", text)
    _one_release_finding(_check(), _at("charts/train/gpu.yaml", 2, 1))


def test_a_flux_values_file_that_is_not_there_is_an_input_error_at_its_name(repo):
    _put1(repo, "clusters/main/train.yaml", FLUX.format(url=OURS_SSH, extra=VALUES_FILES))
    errors = _check()["errors"]
    assert [(e["path"], e["line"], e["column"]) for e in errors if "gpu.yaml" in e["message"]] == [
        ("clusters/main/train.yaml", 31, 47)
    ]


def test_releases_past_the_budget_are_not_rendered_and_the_run_says_so(repo):
    apps = [
        _application(f"valuesObject:\n  gpus: {n}\n").replace("name: train\n", f"name: t{n}\n", 1)
        for n in range(MAX_RENDERS + 10)
    ]
    _put1(repo, "apps/many.yaml", "---\n".join(apps))
    scan = ReleaseCharts(Settings(linted_paths=(".",)))
    scan.see(Target("apps/many.yaml"), (repo / "apps" / "many.yaml").read_bytes())
    targets, notices = scan.targets(project_of((".",), []), {})
    assert len(targets) == MAX_RENDERS
    assert {t.kind for t in targets} == {"helm-release"}
    assert notices and notices[0].startswith(f"{MAX_RENDERS} GitOps releases")
    assert targets[0].release.origins == ((("gpus",), targets[0].release.origins[0][1]),)
    assert targets[0].release.origins[0][1].line == 14


def test_nothing_a_release_writes_becomes_a_flag_of_helm(tmp_path):
    release = ChartRelease(
        "Application x (a.yaml:1)",
        "--post-renderer=./pwn",
        "{}",
        value_files=("--post-renderer=pwn.yaml",),
    )
    target = Target("charts/train", "helm-release", release=release)
    argv = release_command("/usr/bin/helm", target, "/tmp/v.json", Settings())
    assert argv[:3] == ["/usr/bin/helm", "template", "--namespace=--post-renderer=./pwn"]
    assert argv[3] == f"--values={os.path.abspath('--post-renderer=pwn.yaml')}"
    assert argv[-3:] == ["--", "release-name", os.path.abspath("charts/train")]
    assert all(a.startswith("--") and "=" in a for a in argv[2:-3])
