"""GPU408: NVIDIA Container Toolkit and GPU Operator releases with a published advisory
(issue 27). Each advisory of the catalog fires at its last affected release and not at its
first fixed one; each input form is judged at its own line."""

from __future__ import annotations

import pytest

from gpulint import catalog
from tests.helpers import lint, where

CLUSTER_POLICY = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {{name: cluster-policy}}
spec:
  toolkit: {{enabled: true, version: {version}}}
"""

HELM_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: gpu-operator
  namespace: gpu-operator
spec:
  chart:
    spec:
      chart: gpu-operator
      version: {version}
      sourceRef: {{kind: HelmRepository, name: nvidia}}
  values:
    driver:
      enabled: false
"""

# The same release, its values choosing the toolkit.
HELM_RELEASE_WITH_TOOLKIT = (
    HELM_RELEASE.replace("{version}", "v24.6.1") + "    toolkit:\n      version: {version}\n"
)

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: gpu-operator, namespace: argocd}
spec:
  project: default
  destination: {server: "https://kubernetes.default.svc", namespace: gpu-operator}
  source:
    repoURL: https://helm.ngc.nvidia.com/nvidia
    chart: gpu-operator
    targetRevision: v25.3.1
    helm:
      valuesObject:
        driver:
          enabled: false
        toolkit:
          version: v1.17.3-ubuntu20.04
"""

DAEMON_SET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-container-toolkit
  namespace: gpu-operator
spec:
  selector:
    matchLabels: {{app: toolkit}}
  template:
    metadata:
      labels: {{app: toolkit}}
    spec:
      containers:
        - name: toolkit
          image: nvcr.io/nvidia/k8s/container-toolkit:{version}
"""

OPERATOR_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gpu-operator
  namespace: gpu-operator
spec:
  selector:
    matchLabels: {app: gpu-operator}
  template:
    metadata:
      labels: {app: gpu-operator}
    spec:
      containers:
        - name: gpu-operator
          image: nvcr.io/nvidia/gpu-operator:v24.9.1
"""

ADVISORIES = catalog.raw()["advisories"]


def _cves(findings: list[dict]) -> str:
    return " ".join(f["message"] for f in findings if f["code"] == "GPU408")


@pytest.mark.parametrize("advisory", ADVISORIES, ids=[a["cve"] for a in ADVISORIES])
def test_gpu408_toolkit_boundary_of_each_advisory(tmp_path, advisory):
    ranges = advisory["container_toolkit"]
    last = lint(tmp_path, CLUSTER_POLICY.format(version=f"v{ranges['affected_through']}"))
    assert where(last, "GPU408") == [("GPU408", 5, 37)]
    assert advisory["cve"] in _cves(last)
    assert f"fixed in {ranges['fixed']}" in _cves(last)
    first = lint(tmp_path, CLUSTER_POLICY.format(version=f"v{ranges['fixed']}"))
    assert f"{advisory['cve']} (" not in _cves(first)


@pytest.mark.parametrize("advisory", ADVISORIES, ids=[a["cve"] for a in ADVISORIES])
def test_gpu408_operator_boundary_of_each_advisory(tmp_path, advisory):
    ranges = advisory["gpu_operator"]
    last = lint(tmp_path, HELM_RELEASE.format(version=ranges["affected_through"]))
    assert where(last, "GPU408") == [("GPU408", 10, 16)]
    assert advisory["cve"] in _cves(last)
    first = lint(tmp_path, HELM_RELEASE.format(version=ranges["fixed"]))
    assert f"{advisory['cve']} (" not in _cves(first)


def test_gpu408_the_newest_advisories_end_at_the_published_releases(tmp_path):
    # NVIDIA's records: toolkit 1.17.7 and operator 25.3.0 are the last affected releases.
    assert lint(tmp_path, CLUSTER_POLICY.format(version="v1.17.8-ubuntu20.04")) == []
    assert lint(tmp_path, HELM_RELEASE.format(version="v25.3.1")) == []
    found = lint(tmp_path, HELM_RELEASE.format(version="v25.3.0"))
    assert "CVE-2025-23266" in _cves(found) and "Upgrade to 25.3.1 or later" in _cves(found)


def test_gpu408_one_finding_names_every_cve_and_the_release_fixed_for_all(tmp_path):
    found = lint(tmp_path, CLUSTER_POLICY.format(version="v1.16.1-ubuntu20.04"))
    assert where(found) == [("GPU408", 5, 37)]
    message = found[0]["message"]
    for cve in ("CVE-2024-0132", "CVE-2024-0133", "CVE-2024-0135", "CVE-2025-23359"):
        assert cve in message
    assert "Upgrade to 1.17.8 or later" in message
    assert found[0]["severity"] == "warning"  # accepted and runs: not an error


def test_gpu408_says_the_mode_an_advisory_applies_in(tmp_path):
    cdi = CLUSTER_POLICY.format(version="v1.17.4") + "  cdi: {enabled: true}\n"
    older = _cves(lint(tmp_path, cdi))
    assert "at this release in CDI mode only" in older  # CVE-2025-23266 before 1.17.5
    newer = _cves(lint(tmp_path, CLUSTER_POLICY.format(version="v1.17.5")))
    assert "CVE-2025-23266" in newer and "CDI mode only" not in newer
    legacy = _cves(lint(tmp_path, CLUSTER_POLICY.format(version="v1.16.1")))
    assert "in the default (legacy) mode, not with CDI" in legacy


def test_gpu408_judges_an_advisory_only_in_the_mode_the_run_sets(tmp_path):
    # CVE-2025-23266 reaches toolkit 1.17.4 only in CDI mode: without cdi.enabled the run
    # runs the legacy mode (the chart's default for such releases), so it is not named
    assert lint(tmp_path, CLUSTER_POLICY.format(version="v1.17.4")) == []
    # CVE-2024-0132 spares CDI mode: with CDI the default for every container it is not named
    cdi = CLUSTER_POLICY.format(version="v1.16.1") + "  cdi: {enabled: true, default: true}\n"
    named = _cves(lint(tmp_path, cdi))
    assert "CVE-2024-0132" not in named and "CVE-2024-0135" in named
    assert "Upgrade to 1.17.8 or later" in named  # 1.17.5-1.17.7 are affected in every mode


def test_gpu408_operator_values_file(tmp_path):
    values = "driver:\n  enabled: true\ntoolkit:\n  version: v1.16.2-ubi8\n"
    found = lint(tmp_path, values, name="values.yaml")
    assert where(found) == [("GPU408", 4, 12)]
    assert "CVE-2024-0134" in found[0]["message"]


def test_gpu408_flux_values_decide_over_the_chart_version(tmp_path):
    vulnerable = lint(tmp_path, HELM_RELEASE_WITH_TOOLKIT.format(version="v1.16.1"))
    assert where(vulnerable) == [("GPU408", 16, 16)]  # the toolkit, not chart v24.6.1
    assert lint(tmp_path, HELM_RELEASE_WITH_TOOLKIT.format(version="v1.17.8")) == []


def test_gpu408_argo_application_value_object(tmp_path):
    found = lint(tmp_path, APPLICATION, name="app.yaml")
    assert where(found) == [("GPU408", 16, 20)]
    assert "CVE-2025-23359" in found[0]["message"]


def test_gpu408_container_images(tmp_path):
    only = ("--select", "GPU408")
    toolkit = lint(tmp_path, DAEMON_SET.format(version="v1.16.1-ubuntu20.04"), *only)
    assert where(toolkit) == [("GPU408", 15, 18)]
    assert lint(tmp_path, DAEMON_SET.format(version="v1.17.8-ubuntu20.04"), *only) == []
    found = lint(tmp_path, OPERATOR_DEPLOYMENT, *only)
    assert where(found) == [("GPU408", 15, 18)]
    assert "CVE-2025-23359" in found[0]["message"]


@pytest.mark.parametrize(
    "version",
    ["v1.17.0-rc.1", "v1.16", "'${TOOLKIT_VERSION}'", "latest"],
)
def test_gpu408_judges_only_releases(tmp_path, version):
    assert lint(tmp_path, CLUSTER_POLICY.format(version=version), "--select", "GPU408") == []


def test_gpu408_a_floating_chart_version_is_not_a_release(tmp_path):
    text = HELM_RELEASE.format(version="'>=24.6.0'")
    assert lint(tmp_path, text, "--select", "GPU408") == []


def test_gpu408_a_disabled_toolkit_is_not_judged(tmp_path):
    text = CLUSTER_POLICY.format(version="v1.16.1").replace("enabled: true", "enabled: false")
    assert lint(tmp_path, text) == []
