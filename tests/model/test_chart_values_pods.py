"""Pods read from the inline values of charts whose values are pod specs (issue 27): bjw-s
app-template in a Flux HelmRelease, an Argo CD Application and a kustomize ``helmCharts``
entry; the workload rules report at the values' lines."""

from __future__ import annotations

import textwrap

from gpulint.core.sources import Source
from gpulint.model.kinds.charts import chart_pods
from gpulint.yaml.parse import parse
from tests.helpers import findings_json, lint, where

HELMRELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: jellyfin
  namespace: media
spec:
  chart:
    spec:
      chart: app-template
      version: 4.6.2
      sourceRef: {kind: HelmRepository, name: bjw-s}
  values:
    defaultPodOptions:
      runtimeClassName: nvidia
    controllers:
      jellyfin:
        type: statefulset
        containers:
          app:
            image:
              repository: jellyfin/jellyfin
              tag: 10.11.11
              pullPolicy: Always
            env:
              TZ: Europe/Helsinki
              NVIDIA_VISIBLE_DEVICES: all
            resources:
              requests:
                memory: 4Gi
                nvidia.com/gpu: 1
              limits:
                nvidia.com/gpu: 1
                memory: 4Gi
      off:
        enabled: false
        containers:
          app:
            image: {repository: busybox, tag: "1.36"}
"""


def _pods(text: str):
    documents, errors = parse(Source("hr.yaml", text))
    assert not errors
    return list(chart_pods(documents[0].data))


def test_each_enabled_controller_is_a_pod_with_its_containers_and_default_pod_options():
    (pod,) = _pods(HELMRELEASE)
    assert (pod.name, pod.workload_kind, pod.replicas) == ("jellyfin", "StatefulSet", 1)
    assert pod.built.spec == {"runtimeClassName": "nvidia"}
    ((path, container),) = pod.built.containers
    assert path == ("spec", "values", "controllers", "jellyfin", "containers", "app")
    assert container["image"] == "jellyfin/jellyfin:10.11.11"
    assert container["imagePullPolicy"] == "Always"
    assert container["env"] == [
        {"name": "TZ", "value": "Europe/Helsinki"},
        {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
    ]
    redirects = dict(pod.built.redirects)
    assert redirects[path + ("env", 1, "value")] == path + ("env", "NVIDIA_VISIBLE_DEVICES")
    assert redirects[path[:-2] + ("pod", "runtimeClassName")] == (
        "spec",
        "values",
        "defaultPodOptions",
        "runtimeClassName",
    )


def test_workload_rules_report_at_the_values_lines(tmp_path):
    found = lint(tmp_path, HELMRELEASE, "--select", "GPU701")
    assert where(found) == [("GPU701", 26, 39)]  # NVIDIA_VISIBLE_DEVICES: all


def test_a_controller_pod_option_overrides_the_default(tmp_path):
    text = HELMRELEASE.replace(
        "        type: statefulset\n",
        "        type: statefulset\n        pod:\n          runtimeClassName: runc\n",
    )
    (pod,) = _pods(text)
    assert pod.built.spec == {"runtimeClassName": "runc"}


def test_default_resource_claims_are_the_pod_s_and_its_containers_may_use_them(tmp_path):
    # app-template writes defaultPodOptions.resourceClaims into the pod (Kubernetes 1.32 on):
    # billimek/k8s-gitops's Frigate uses DRA claims gpu and coral this way.
    claims = (
        "    defaultPodOptions:\n"
        "      resourceClaims:\n"
        "        - {name: gpu, resourceClaimTemplateName: gpu}\n"
    )
    text = HELMRELEASE.replace("    defaultPodOptions:\n", claims).replace(
        "              requests:\n                memory: 4Gi\n                nvidia.com/gpu: 1\n"
        "              limits:\n                nvidia.com/gpu: 1\n                memory: 4Gi\n",
        "              claims:\n                - name: gpu\n",
    )
    assert "claims:\n                - name: gpu" in text
    (pod,) = _pods(text)
    assert pod.built.spec["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]
    assert lint(tmp_path, text, "--select", "GPU801") == []
    undeclared = text.replace("                - name: gpu\n", "                - name: tpu\n")
    assert where(lint(tmp_path, undeclared, "--select", "GPU801")) == [("GPU801", 31, 25)]


ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: comfyui
spec:
  source:
    chart: app-template
    repoURL: https://bjw-s-labs.github.io/helm-charts
    targetRevision: 4.4.0
    helm:
      valuesObject:
        controllers:
          main:
            containers:
              main:
                image:
                  repository: ghcr.io/ai-dock/comfyui
                  tag: v2-cuda-12.1.1
                env:
                  - name: NVIDIA_VISIBLE_DEVICES
                    value: all
"""


def test_an_argo_cd_application_s_values_object(tmp_path):
    found = lint(tmp_path, ARGO, "--select", "GPU701")
    assert where(found) == [("GPU701", 21, 28)]


def test_a_chart_not_in_the_table_is_never_read_as_app_template():
    assert _pods(HELMRELEASE.replace("chart: app-template", "chart: jellyfin")) == []


VALUES_FROM = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: jellyfin
spec:
  chart:
    spec:
      chart: app-template
      version: 4.6.2
      sourceRef: {kind: HelmRepository, name: bjw-s}
  valuesFrom:
    - kind: ConfigMap
      name: jellyfin-values
  values:
    controllers:
      jellyfin:
        containers:
          app:
            resources:
              limits:
                nvidia.com/gpu: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: jellyfin-values
data:
  values.yaml: |
    controllers:
      jellyfin:
        containers:
          app:
            image:
              repository: jellyfin/jellyfin
              tag: 10.11.11
            env:
              NVIDIA_VISIBLE_DEVICES: all
            resources:
              requests:
                nvidia.com/gpu: 1
"""


def test_pods_of_values_merged_from_a_valuesfrom_configmap(tmp_path):
    # the request in the ConfigMap, the limit inline: one container, with both (no GPU101)
    found = lint(tmp_path, VALUES_FROM, "--select", "GPU101,GPU102,GPU701")
    assert where(found) == [("GPU701", 37, 39)]  # `all`, inside the ConfigMap's block
    assert found[0]["resource"]["kind"] == "HelmRelease"


def test_the_rules_a_values_file_alone_triggers_judge_the_release(tmp_path, monkeypatch):
    # NVIDIA_VISIBLE_DEVICES is written only in the ConfigMap's file: GPU701 still reads
    # the release's pods (its trigger searches the values read from elsewhere too)
    release, configmap = VALUES_FROM.split("---\n")
    (tmp_path / "release.yaml").write_text(release)
    (tmp_path / "values.yaml").write_text(configmap)
    monkeypatch.chdir(tmp_path)
    found = findings_json(".", "--select", "GPU701")["findings"]
    assert [(f["path"], f["line"], f["column"]) for f in found] == [("values.yaml", 15, 39)]
    # a kustomization named alone: its values file is read, and searched for triggers, with it
    (tmp_path / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nhelmCharts:\n"
        "  - name: app-template\n    version: 4.6.2\n    valuesFile: jellyfin.yaml\n"
    )
    values = configmap.split("values.yaml: |\n", 1)[1]
    (tmp_path / "jellyfin.yaml").write_text(textwrap.dedent(values))
    found = findings_json("kustomization.yaml", "--select", "GPU701")["findings"]
    assert [(f["path"], f["line"], f["column"]) for f in found] == [("jellyfin.yaml", 9, 35)]


HELMFILE = """\
releases:
  - name: plex
    namespace: media
    chart: bjw-s/app-template
    values:
      - controllers:
          plex:
            containers:
              app:
                image: {repository: ghcr.io/home-operations/plex, tag: 1.41.3}
                env:
                  NVIDIA_VISIBLE_DEVICES: all
  - name: device-plugin
    chart: nvdp/nvidia-device-plugin
    values:
      - migStrategy: single
"""


def test_a_helmfile_release_is_read_as_a_resource_of_its_own(tmp_path):
    found = lint(tmp_path, HELMFILE, "--select", "GPU701", name="helmfile.yaml")
    assert where(found) == [("GPU701", 12, 43)]
    assert found[0]["resource"]["kind"] == "HelmfileRelease"
    assert (found[0]["resource"]["namespace"], found[0]["resource"]["name"]) == ("media", "plex")


def test_a_helmfile_release_s_pods_from_its_values_file(tmp_path, monkeypatch):
    # a Helmfile release of app-template is a resource of its own; its values file is
    # merged with the release's mappings, and findings land in the file
    monkeypatch.chdir(tmp_path)
    values = VALUES_FROM.split("values.yaml: |\n", 1)[1]
    (tmp_path / "jellyfin.yaml").write_text(textwrap.dedent(values))
    (tmp_path / "helmfile.yaml").write_text(
        "releases:\n  - name: jellyfin\n    namespace: media\n    chart: bjw-s/app-template\n"
        "    version: 4.6.2\n    values:\n      - jellyfin.yaml\n      - controllers:\n"
        "          jellyfin:\n            containers:\n              app:\n"
        "                resources:\n                  limits:\n"
        "                    nvidia.com/gpu: 1\n"
    )
    found = findings_json("helmfile.yaml", "--select", "GPU101,GPU701")["findings"]
    assert [(f["code"], f["path"], f["line"], f["column"]) for f in found] == [
        ("GPU701", "jellyfin.yaml", 9, 35)
    ]
