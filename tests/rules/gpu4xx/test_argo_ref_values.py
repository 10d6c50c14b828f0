"""Argo CD multi-source Applications: a ``$ref/path`` values file of this repository is read
under the source's inline values (issue 27), so the operator and device plugin rules judge
the values the chart gets, at the line where each is written."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.helpers import run_cli

APPLICATION = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: op
  namespace: argocd
spec:
  project: default
  sources:
    - repoURL: https://helm.ngc.nvidia.com/nvidia
      chart: gpu-operator
      targetRevision: v25.3.1
      helm:
        valueFiles:
          - {file}
{inline}
    - repoURL: {values_repo}
      targetRevision: main
      ref: values
  destination:
    server: https://kubernetes.default.svc
    namespace: gpu-operator
"""
VULNERABLE = "toolkit:\n  version: v1.16.1-ubuntu20.04\n"
OURS = "https://github.com/acme/gpu-infra.git"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme/gpu-infra.git\n'
    )
    (tmp_path / "values").mkdir()
    (tmp_path / "values" / "operator.yaml").write_text(VULNERABLE)
    (tmp_path / "apps").mkdir()
    return tmp_path


def _app(repo: Path, file: str = "$values/values/operator.yaml", inline: str = "", url: str = OURS):
    text = APPLICATION.format(file=file, inline=textwrap.indent(inline, " " * 8), values_repo=url)
    (repo / "apps" / "op.yaml").write_text(textwrap.dedent(text).lstrip("\n"))


def _report() -> dict:
    return json.loads(run_cli("check", "--format", "json", ".").stdout)


def _gpu408(report: dict) -> list[tuple[str, int, int]]:
    return [
        (f["path"], f["line"], f["column"]) for f in report["findings"] if f["code"] == "GPU408"
    ]


def test_a_values_file_of_this_repository_is_read_at_its_line(repo):
    _app(repo)
    report = _report()
    assert report["errors"] == []
    assert _gpu408(report) == [("values/operator.yaml", 2, 12)]


def test_the_inline_values_win_over_the_file(repo):
    _app(repo, inline="valuesObject:\n  toolkit:\n    version: v1.17.8-ubuntu20.04\n")
    assert _gpu408(_report()) == []


@pytest.mark.parametrize(
    ("file", "url"),
    [
        ("$values/values/operator.yaml", "https://github.com/someone/else.git"),  # not this repo
        ("$other/values/operator.yaml", OURS),  # no source has that ref
        ("values-prod.yaml", OURS),  # a file of the chart's own package
    ],
)
def test_a_file_the_run_cannot_read_leaves_the_inline_values_alone(repo, file, url):
    _app(repo, file=file, url=url)
    report = _report()
    assert _gpu408(report) == []
    assert report["errors"] == []


def test_a_values_file_that_is_not_there_is_an_input_error_at_its_name(repo):
    _app(repo, file="$values/values/missing.yaml")
    errors = [(e["path"], e["line"], e["column"]) for e in _report()["errors"]]
    assert errors == [("apps/op.yaml", 14, 13)]


RECOGNISABLE = VULNERABLE + "driver:\n  enabled: false\ndevicePlugin:\n  version: v0.17.0\n"


def test_a_file_a_release_reads_is_judged_through_it_not_again_alone(repo):
    # the file alone reads as operator values by its keys; the release overrides its
    # toolkit version, so the vulnerable one never reaches the cluster
    (repo / "values" / "operator.yaml").write_text(RECOGNISABLE)
    _app(repo, inline="valuesObject:\n  toolkit:\n    version: v1.17.8-ubuntu20.04\n")
    assert _gpu408(_report()) == []
    _app(repo)
    assert _gpu408(_report()) == [("values/operator.yaml", 2, 12)]


def test_a_file_no_release_reads_is_still_judged_by_its_keys(repo):
    (repo / "values" / "operator.yaml").write_text(RECOGNISABLE)
    assert _gpu408(_report()) == [("values/operator.yaml", 2, 12)]
