"""The pod of the otwld ``ollama`` chart read from a GitOps release's inline values (issue 27):
what the Deployment template renders (kinds/ollama.py) and where the workload rules report it."""

from __future__ import annotations

import pytest

from gpulint.core.sources import Source
from gpulint.model.kinds.charts import chart_pods
from gpulint.yaml.parse import parse
from tests.helpers import lint, lint_known, where

HELMRELEASE = """\
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
    image:
      tag: 0.9.6
    ollama:
      gpu:
        enabled: true
        number: 2
    runtimeClassName: nvidia
    extraEnv:
      - name: OLLAMA_KEEP_ALIVE
        value: 24h
      - name: NVIDIA_VISIBLE_DEVICES
        value: all
    tolerations:
      - key: dedicated
        operator: Exists
"""
VALUES = ("spec", "values")
POD = VALUES + ("(pod)",)
CONTAINER = POD + ("containers", 0)


def _pods(text: str):
    documents, errors = parse(Source("release.yaml", text))
    assert not errors
    return list(chart_pods(documents[0].data))


def test_the_deployment_pod_with_the_gpu_limit_toleration_and_path_the_chart_adds():
    (pod,) = _pods(HELMRELEASE)
    assert (pod.name, pod.workload_kind, pod.replicas) == ("ollama", "Deployment", 1)
    assert pod.built.spec["runtimeClassName"] == "nvidia"
    # the chart's toleration first, then the values'
    assert pod.built.spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "dedicated", "operator": "Exists"},
    ]
    assert pod.built.spec["volumes"] == [{"name": "ollama-data", "emptyDir": {}}]
    ((path, container),) = pod.built.containers
    assert path == CONTAINER
    assert container["name"] == "ollama"
    assert container["image"] == "ollama/ollama:0.9.6"
    assert container["imagePullPolicy"] == "IfNotPresent"  # the chart's default
    assert [e["name"] for e in container["env"]] == [
        "PATH",
        "OLLAMA_KEEP_ALIVE",
        "NVIDIA_VISIBLE_DEVICES",
    ]
    assert container["resources"] == {"requests": {}, "limits": {"nvidia.com/gpu": 2}}
    assert container["volumeMounts"] == [{"name": "ollama-data", "mountPath": "/root/.ollama"}]
    redirects = dict(pod.built.redirects)
    gpu = VALUES + ("ollama", "gpu")
    # what the chart adds points at the value that causes it
    assert redirects[CONTAINER + ("resources", "limits", "nvidia.com/gpu")] == gpu + ("number",)
    assert redirects[POD + ("tolerations", 0)] == gpu + ("enabled",)
    assert redirects[CONTAINER + ("env", 0)] == gpu + ("enabled",)
    # what the values write, where they write it
    assert redirects[POD + ("tolerations", 1)] == VALUES + ("tolerations", 0)
    assert redirects[CONTAINER + ("env", 2)] == VALUES + ("extraEnv", 1)
    assert redirects[POD + ("runtimeClassName",)] == VALUES + ("runtimeClassName",)
    # the rest of the pod is the chart's own: its reference
    assert redirects[POD] == ("spec", "chart", "spec", "chart")


def test_nvidia_visible_devices_in_extra_env_is_gpu701_at_its_line(tmp_path):
    found = lint(tmp_path, HELMRELEASE, "--select", "GPU701")
    assert where(found) == [("GPU701", 24, 16)]  # value: all
    assert "holds 2 GPU(s)" in found[0]["message"]


def test_the_chart_tolerates_the_gpu_taint_itself(tmp_path):
    assert lint_known(tmp_path, HELMRELEASE, "--select", "GPU202") == []


def test_a_mig_slice_resource_gets_a_toleration_on_its_own_key_only(tmp_path):
    text = HELMRELEASE.replace(
        "        number: 2\n", "        number: 2\n        nvidiaResource: nvidia.com/mig-1g.10gb\n"
    ).replace("    tolerations:\n      - key: dedicated\n        operator: Exists\n", "")
    (pod,) = _pods(text)
    ((_, container),) = pod.built.containers
    assert container["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": 2}
    assert pod.built.spec["tolerations"][0]["key"] == "nvidia.com/mig-1g.10gb"
    # GPU nodes are tainted on nvidia.com/gpu: reported at the value that names the slice
    found = lint_known(tmp_path, text, "--select", "GPU202")
    assert where(found) == [("GPU202", 19, 9)]
    assert "does not count" in found[0]["message"]


def test_mig_devices_become_limits_and_tolerations_at_their_entries(tmp_path):
    text = HELMRELEASE.replace(
        "        number: 2\n",
        "        mig:\n          enabled: true\n          devices:\n"
        "            3g.40gb: 1\n            1g.10gb: 2\n",
    ).replace("    tolerations:\n      - key: dedicated\n        operator: Exists\n", "")
    (pod,) = _pods(text)
    ((_, container),) = pod.built.containers
    assert container["resources"]["limits"] == {
        "nvidia.com/mig-1g.10gb": 2,
        "nvidia.com/mig-3g.40gb": 1,
    }
    # Go ranges over a map in key order
    assert [t["key"] for t in pod.built.spec["tolerations"]] == [
        "nvidia.com/mig-1g.10gb",
        "nvidia.com/mig-3g.40gb",
    ]
    found = lint_known(tmp_path, text, "--select", "GPU202")
    assert where(found) == [("GPU202", 22, 13)]  # 1g.10gb: 2, the first toleration's cause


def test_gpu_disabled_renders_a_pod_without_gpus(tmp_path):
    text = HELMRELEASE.replace("        enabled: true\n", "        enabled: false\n")
    (pod,) = _pods(text)
    ((_, container),) = pod.built.containers
    assert container["resources"] == {"requests": {}, "limits": {}}
    assert [e["name"] for e in container["env"]] == ["OLLAMA_KEEP_ALIVE", "NVIDIA_VISIBLE_DEVICES"]
    assert [t["key"] for t in pod.built.spec["tolerations"]] == ["dedicated"]
    found = lint(tmp_path, text, "--select", "GPU701")
    assert "holds no GPU" in found[0]["message"]


def test_a_gpu_request_without_the_chart_s_limit_is_gpu101_at_the_request(tmp_path):
    text = HELMRELEASE.replace("        enabled: true\n", "        enabled: false\n").replace(
        "    runtimeClassName: nvidia\n",
        "    runtimeClassName: nvidia\n"
        "    resources:\n      requests:\n        nvidia.com/gpu: 1\n",
    )
    found = lint(tmp_path, text, "--select", "GPU101")
    assert where(found) == [("GPU101", 22, 9)]


def test_a_limit_the_values_write_wins_over_the_chart_s(tmp_path):
    text = HELMRELEASE.replace(
        "    runtimeClassName: nvidia\n",
        "    runtimeClassName: nvidia\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n",
    )
    (pod,) = _pods(text)
    ((_, container),) = pod.built.containers
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}  # sprig merge keeps it


def test_amd_gpus_are_reported_at_the_type():
    text = HELMRELEASE.replace("        number: 2\n", "        type: amd\n")
    (pod,) = _pods(text)
    ((_, container),) = pod.built.containers
    assert container["resources"]["limits"] == {"amd.com/gpu": 1}
    assert [e["name"] for e in container["env"]][0] != "PATH"
    assert [t["key"] for t in pod.built.spec["tolerations"]] == ["dedicated"]
    redirects = dict(pod.built.redirects)
    limit = CONTAINER + ("resources", "limits", "amd.com/gpu")
    assert redirects[limit] == VALUES + ("ollama", "gpu", "type")


def test_resources_null_renders_no_resources_and_no_gpu_limit():
    text = HELMRELEASE.replace(
        "    runtimeClassName: nvidia\n", "    runtimeClassName: nvidia\n    resources: null\n"
    )
    (pod,) = _pods(text)
    ((_, container),) = pod.built.containers
    assert "resources" not in container


@pytest.mark.parametrize(
    ("version", "read"),
    [("0.58.0", False), ("0.59.0", True), ("1.77.0", True), ('"^1.0"', True), ("v0.40.0", False)],
)
def test_versions_before_the_template_read_are_not_read(version, read):
    text = HELMRELEASE.replace("version: 1.24.0", f"version: {version}")
    assert bool(_pods(text)) is read


@pytest.mark.parametrize(
    "change",
    [
        (
            "    runtimeClassName: nvidia\n",
            "    runtimeClassName: nvidia\n    knative:\n      enabled: true\n",
        ),
        ("        number: 2\n", "        number: 2\n        draEnabled: true\n"),
        ("        number: 2\n", "        number: 2\n        type: 1\n"),
    ],
)
def test_knative_dra_and_template_errors_are_not_read(change):
    assert _pods(HELMRELEASE.replace(*change)) == []


def test_a_chart_not_in_the_table_yields_nothing(tmp_path):
    text = HELMRELEASE.replace("chart: ollama", "chart: open-webui")
    assert _pods(text) == []
    assert lint(tmp_path, text, "--select", "GPU701") == []


def test_a_chart_in_a_git_folder_is_not_otwld_s():
    text = HELMRELEASE.replace("chart: ollama", "chart: ./charts/ollama").replace(
        "kind: HelmRepository", "kind: GitRepository"
    )
    assert _pods(text) == []


ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ollama
spec:
  source:
    chart: ollama
    repoURL: https://otwld.github.io/ollama-helm/
    targetRevision: 1.77.0
    helm:
      valuesObject:
        ollama:
          gpu: {enabled: true}
        extraEnv:
          - {name: NVIDIA_VISIBLE_DEVICES, value: all}
"""


def test_an_argo_cd_application_of_otwld_s_repository(tmp_path):
    found = lint(tmp_path, ARGO, "--select", "GPU701")
    assert where(found) == [("GPU701", 15, 51)]
    assert "holds 1 GPU(s)" in found[0]["message"]


def test_another_publisher_s_chart_of_that_name_is_not_read():
    other = ARGO.replace(
        "https://otwld.github.io/ollama-helm/", "https://cowboysysop.github.io/charts/"
    )
    assert _pods(other) == []
    folder = ARGO.replace("    chart: ollama\n", "    path: apps/ollama\n")
    assert _pods(folder) == []


def test_argo_helm_values_string(tmp_path):
    text = ARGO.replace(
        "      valuesObject:\n        ollama:\n          gpu: {enabled: true}\n"
        "        extraEnv:\n          - {name: NVIDIA_VISIBLE_DEVICES, value: all}\n",
        "      values: |\n        ollama:\n          gpu:\n            enabled: true\n"
        "        extraEnv:\n          - name: NVIDIA_VISIBLE_DEVICES\n            value: all\n",
    )
    assert where(lint(tmp_path, text, "--select", "GPU701")) == [("GPU701", 17, 20)]


KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
helmCharts:
  - name: ollama
    repo: https://helm.otwld.com/
    version: 1.50.0
    releaseName: ollama
    valuesInline:
      ollama:
        gpu:
          enabled: true
          number: 1
      resources:
        requests:
          nvidia.com/gpu: 2
"""


def test_a_kustomize_helm_charts_entry(tmp_path):
    found = lint(tmp_path, KUSTOMIZATION, "--select", "GPU102", name="kustomization.yaml")
    assert where(found) == [("GPU102", 15, 11)]  # the request, against the chart's limit 1
    local = KUSTOMIZATION.replace("    repo: https://helm.otwld.com/\n", "")
    assert _pods(local) == []  # a chart of the chartHome folder


HELMFILE = """\
repositories:
  - name: otwld
    url: https://helm.otwld.com/
releases:
  - name: ollama
    namespace: ai
    chart: otwld/ollama
    version: 1.50.0
    values:
      - ollama:
          gpu:
            enabled: true
        extraEnv:
          - name: NVIDIA_VISIBLE_DEVICES
            value: all
"""


def test_a_helmfile_release(tmp_path):
    found = lint(tmp_path, HELMFILE, "--select", "GPU701", name="helmfile.yaml")
    assert where(found) == [("GPU701", 15, 20)]
    assert found[0]["resource"]["kind"] == "HelmfileRelease"
    assert (found[0]["resource"]["namespace"], found[0]["resource"]["name"]) == ("ai", "ollama")
    other = HELMFILE.replace("https://helm.otwld.com/", "https://cowboysysop.github.io/charts/")
    assert _pods(other) == []
    assert lint(tmp_path, other, "--select", "GPU701", name="helmfile.yaml") == []


def test_a_flux_release_whose_values_come_from_a_valuesfrom_configmap(tmp_path):
    # The GPU settings in the ConfigMap, NVIDIA_VISIBLE_DEVICES inline: one pod of the merged
    # values, GPU701 at the inline value, the chart's GPU count from the ConfigMap's block.
    release = HELMRELEASE.replace(
        "        enabled: true\n        number: 2\n", "        enabled: true\n"
    ).replace(
        "  values:\n", "  valuesFrom:\n    - kind: ConfigMap\n      name: ollama-gpu\n  values:\n"
    )
    configmap = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ollama-gpu\n  namespace: ai\n"
        "data:\n  values.yaml: |\n    ollama:\n      gpu:\n        number: 3\n"
    )
    found = lint(tmp_path, release + "---\n" + configmap, "--select", "GPU701")
    assert where(found) == [("GPU701", 26, 16)]  # value: all, two lines down (valuesFrom)
    assert "holds 3 GPU(s)" in found[0]["message"]  # number: 3, from the ConfigMap
