"""The NVIDIA charts' values where GitOps objects keep them inline (issue 27): a Flux
HelmRelease, an Argo CD Application or ApplicationSet, kustomize's helmCharts, a Helmfile
release; every values rule judges them at their own lines."""

from __future__ import annotations

import pytest

from tests.helpers import lint, where

HELM_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  chart:
    spec:
      chart: nvidia-device-plugin
      sourceRef: {kind: HelmRepository, name: nvdp}
  values:
    migStrategy: mig-mixed
"""

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: gpu-operator
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: gpu-operator
  sources:
    - repoURL: https://github.com/example/values.git
      targetRevision: main
      ref: values
    - repoURL: https://helm.ngc.nvidia.com/nvidia
      chart: gpu-operator
      targetRevision: v24.9.0
      helm:
        valuesObject:
          mig:
            strategy: mixd
"""

APPLICATION_SET = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: plugins
spec:
  generators:
    - list:
        elements: [{cluster: a}]
  template:
    metadata:
      name: "{{cluster}}-plugin"
    spec:
      project: default
      destination: {namespace: kube-system, name: "{{cluster}}"}
      source:
        repoURL: https://nvidia.github.io/k8s-device-plugin
        chart: nvidia-device-plugin
        targetRevision: 0.17.0
        helm:
          valuesObject:
            migStrategy: both
"""

KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
helmCharts:
  - name: nvidia-device-plugin
    repo: https://nvidia.github.io/k8s-device-plugin
    version: 0.17.0
    releaseName: nvdp
    valuesInline:
      migStrategy: mixd
"""

HELMFILE = """\
releases:
  - name: nvdp
    namespace: kube-system
    chart: nvdp/nvidia-device-plugin
    version: 0.17.0
    values:
      - values/common.yaml
      - migStrategy: singel
"""


@pytest.mark.parametrize(
    ("text", "name", "spot"),
    [
        (HELM_RELEASE, "release.yaml", (12, 18)),
        (APPLICATION, "application.yaml", (20, 23)),
        (APPLICATION_SET, "appset.yaml", (21, 26)),
        (KUSTOMIZATION, "kustomization.yaml", (9, 20)),
        (HELMFILE, "helmfile.yaml", (8, 22)),
    ],
)
def test_inline_values_are_judged_at_their_lines(tmp_path, text, name, spot):
    found = lint(tmp_path, text, "--select", "GPU402", name=name)
    assert where(found) == [("GPU402", *spot)]
    assert found[0]["severity"] == "error"


def test_another_chart_of_the_same_shape_is_not_read(tmp_path):
    other = HELM_RELEASE.replace("chart: nvidia-device-plugin", "chart: my-plugin")
    assert lint(tmp_path, other, "--select", "GPU402") == []


def test_a_plugin_config_written_under_the_charts_config_is_one_finding(tmp_path):
    text = HELM_RELEASE.replace(
        "    migStrategy: mig-mixed\n",
        "    config:\n      version: v1\n      sharing:\n        mps:\n"
        "          resources:\n            - name: nvidia.com/gpu\n              replicas: 4\n",
    )
    found = lint(tmp_path, text, "--select", "GPU403")
    assert where(found) == [("GPU403", 12, 5)]
    assert (
        "config holds a device plugin config file itself (version, sharing)"
        in (found[0]["message"])
    )


@pytest.mark.parametrize(
    ("version", "floating"),
    [
        (None, True),
        ('"*"', True),
        ('">=0.14.0"', True),
        ("0.x", True),
        ('"^0.17.0"', True),
        ('"0.17"', True),
        ("0.17.4", False),
        ("v0.17.4", False),
    ],
)
def test_a_release_that_floats_its_chart_version_is_unpinned(tmp_path, version, floating):
    line = f"      version: {version}\n" if version else ""
    text = HELM_RELEASE.replace(
        "      chart: nvidia-device-plugin\n", "      chart: nvidia-device-plugin\n" + line
    )
    found = lint(tmp_path, text, "--select", "GPU401")
    spot = ("GPU401", 10, 16) if version else ("GPU401", 9, 14)
    assert where(found) == ([spot] if floating else [])


def test_chart_versions_in_argo_kustomize_and_helmfile(tmp_path):
    argo = APPLICATION.replace("      targetRevision: v24.9.0\n", "      targetRevision: 24.*\n")
    found = lint(tmp_path, argo, "--select", "GPU401", name="app.yaml")
    assert where(found) == [("GPU401", 16, 23)]
    assert "a GPU Operator release (driver, toolkit and plugin versions)" in found[0]["message"]
    # a Git source's targetRevision is a branch: not a chart version
    assert lint(tmp_path, APPLICATION, "--select", "GPU401", name="app.yaml") == []
    unversioned = KUSTOMIZATION.replace("    version: 0.17.0\n", "")
    found = lint(tmp_path, unversioned, "--select", "GPU401", name="kustomization.yaml")
    assert where(found) == [("GPU401", 4, 11)]
    assert lint(tmp_path, HELMFILE, "--select", "GPU401", name="helmfile.yaml") == []


ARGO_VALUES_STRING = """\
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
        migStrategy: mig-mixed
        tolerations: []
"""


def test_argo_helm_values_string_is_judged_inside_at_its_line(tmp_path):
    found = lint(tmp_path, ARGO_VALUES_STRING, "--select", "GPU402")
    assert where(found) == [("GPU402", 12, 22)]  # `mig-mixed` inside the literal block
    # gpulint's edits address the file's own YAML, not YAML inside a string: no fix here
    assert found[0].get("fix") is None


def test_app_template_pods_inside_argo_helm_values(tmp_path):
    text = (
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: comfy\n"
        "spec:\n  source:\n    chart: app-template\n    targetRevision: 4.4.0\n"
        "    helm:\n      values: |\n        controllers:\n          main:\n"
        "            containers:\n              main:\n"
        "                image: {repository: ghcr.io/ai-dock/comfyui, tag: v2}\n"
        "                env:\n                  NVIDIA_VISIBLE_DEVICES: all\n"
        "                resources:\n                  limits: {nvidia.com/gpu: 1}\n"
    )
    assert where(lint(tmp_path, text, "--select", "GPU701")) == [("GPU701", 17, 43)]
