"""Whose chart a release of a chart named ``ollama`` is (issue 27): the otwld table applies
only where the chart's repository, when the run says it, is one otwld publishes the chart at
(``model/kinds/charts.py``): a Flux ``HelmRepository`` the release's ``sourceRef`` names
(in its unit, or elsewhere in the run by an explicit namespace), an Argo CD ``repoURL``, a
kustomize ``repo``, a Helmfile repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulint.model.kinds.charts import otwld_repository
from tests.helpers import findings_json, placed, put_files


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # findings name files relative to the working directory


RELEASE = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ollama
  namespace: ai
spec:
  chart:
    spec:
      chart: ollama
      version: 1.24.0
      sourceRef: {kind: HelmRepository, name: otwld}
  values:
    ollama:
      gpu: {enabled: true}
    extraEnv:
      - {name: NVIDIA_VISIBLE_DEVICES, value: all}
"""
# GPU701 at the value of NVIDIA_VISIBLE_DEVICES, in a pod the table reads
FINDING = ("GPU701", "release.yaml", 16, 47)


def _repository(url: str, namespace: str | None = "ai", name: str = "otwld") -> str:
    meta = f"  name: {name}\n" + (f"  namespace: {namespace}\n" if namespace else "")
    return (
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\n"
        f"metadata:\n{meta}spec:\n  url: {url}\n"
    )


def _lint(root: Path, files: dict[str, str], named: str = ".") -> dict:
    put_files(root, files)
    return findings_json(named, "--select", "GPU701")


@pytest.mark.parametrize(
    "url",
    ["https://otwld.github.io/ollama-helm/", "https://helm.otwld.com", "HTTP://HELM.OTWLD.COM/"],
)
def test_a_helm_repository_of_otwld_in_the_release_s_file(tmp_path, url):
    text = RELEASE + "---\n" + _repository(url)
    assert placed(_lint(tmp_path, {"release.yaml": text})) == [FINDING]


@pytest.mark.parametrize(
    "url",
    [
        "https://cowboysysop.github.io/charts/",
        "oci://ghcr.io/otwld/charts",  # otwld publishes no OCI form
        "https://mirror.example.com/otwld/",  # otwld's name in another host's path
    ],
)
def test_a_helm_repository_of_another_publisher_is_not_read_as_otwld_s(tmp_path, url):
    text = RELEASE + "---\n" + _repository(url)
    assert _lint(tmp_path, {"release.yaml": text})["findings"] == []


def test_a_helm_repository_in_another_file_of_the_unit(tmp_path):
    files = {
        "release.yaml": RELEASE,
        "repository.yaml": _repository("https://cowboysysop.github.io/charts/"),
    }
    assert _lint(tmp_path, files)["findings"] == []
    files["repository.yaml"] = _repository("https://otwld.github.io/ollama-helm/")
    assert placed(_lint(tmp_path, files)) == [FINDING]


def test_a_helm_repository_elsewhere_in_the_run_by_its_explicit_namespace(tmp_path):
    # Flux sources live apart (a flux-system folder), named by namespace and name
    release = RELEASE.replace(
        "{kind: HelmRepository, name: otwld}",
        "{kind: HelmRepository, name: otwld, namespace: flux-system}",
    )
    other = _repository("https://cowboysysop.github.io/charts/", "flux-system")
    files = {"apps/release.yaml": release, "sources/otwld.yaml": other}
    assert _lint(tmp_path, files)["findings"] == []
    files["sources/otwld.yaml"] = _repository("https://helm.otwld.com/", "flux-system")
    assert placed(_lint(tmp_path, files)) == [("GPU701", "apps/release.yaml", 16, 47)]


def test_a_helm_repository_the_run_does_not_establish_leaves_the_chart_s_name_to_decide(
    tmp_path,
):
    # not in the run: the name decides, as before
    assert placed(_lint(tmp_path, {"release.yaml": RELEASE})) == [FINDING]
    other = "https://cowboysysop.github.io/charts/"
    # in another namespace, or elsewhere in the run without a namespace (each unit's apply
    # gives it one): not the release's source
    for files in (
        {"release.yaml": RELEASE, "repository.yaml": _repository(other, "flux-system")},
        {"release.yaml": RELEASE, "sources/otwld.yaml": _repository(other, None)},
    ):
        (tmp_path / "repository.yaml").unlink(missing_ok=True)
        assert placed(_lint(tmp_path, files)) == [FINDING]


def test_helm_repositories_that_disagree_are_not_read_as_otwld_s(tmp_path):
    release = RELEASE.replace(
        "{kind: HelmRepository, name: otwld}",
        "{kind: HelmRepository, name: otwld, namespace: flux-system}",
    )
    files = {
        "apps/release.yaml": release,
        "prod/otwld.yaml": _repository("https://helm.otwld.com/", "flux-system"),
        "staging/otwld.yaml": _repository("https://cowboysysop.github.io/charts/", "flux-system"),
    }
    assert _lint(tmp_path, files)["findings"] == []


ARGO = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ollama
spec:
  source:
    chart: ollama
    repoURL: https://helm.otwld.com/
    targetRevision: 1.77.0
    helm:
      valuesObject:
        ollama:
          gpu: {enabled: true}
        extraEnv:
          - {name: NVIDIA_VISIBLE_DEVICES, value: all}
"""


def test_an_argo_cd_repo_url_must_be_otwld_s(tmp_path):
    assert placed(_lint(tmp_path, {"app.yaml": ARGO})) == [("GPU701", "app.yaml", 15, 51)]
    for url in ("https://mirror.example.com/otwld/", "oci://ghcr.io/otwld/ollama-helm"):
        text = ARGO.replace("https://helm.otwld.com/", url)
        assert _lint(tmp_path, {"app.yaml": text})["findings"] == []


HELMFILE = """
repositories:
  - name: charts
    url: https://otwld.github.io/ollama-helm
releases:
  - name: ollama
    chart: charts/ollama
    values:
      - ollama:
          gpu: {enabled: true}
        extraEnv:
          - {name: NVIDIA_VISIBLE_DEVICES, value: all}
"""


def test_a_helmfile_repository_url_must_be_otwld_s(tmp_path):
    found = _lint(tmp_path, {"helmfile.yaml": HELMFILE}, named="helmfile.yaml")
    assert placed(found) == [("GPU701", "helmfile.yaml", 11, 51)]
    text = HELMFILE.replace("https://otwld.github.io/ollama-helm", "https://example.com/otwld")
    assert _lint(tmp_path, {"helmfile.yaml": text}, named="helmfile.yaml")["findings"] == []


def test_otwld_repository_urls():
    assert otwld_repository("https://otwld.github.io/ollama-helm/")
    assert otwld_repository(" https://helm.otwld.com ")
    assert not otwld_repository("https://otwld.github.io/other-helm/")
    assert not otwld_repository("otwld.github.io/ollama-helm")  # no scheme: not a Helm URL
    assert not otwld_repository("oci://helm.otwld.com/ollama")
    assert not otwld_repository("")
