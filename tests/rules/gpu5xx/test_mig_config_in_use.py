"""GPU506 against the mig-parted config MIG manager reads (issue 27, "MIG config in use"):
a ClusterPolicy's or the operator chart's ``migManager.config.name`` picks one ConfigMap,
and a node's ``nvidia.com/mig.config`` must name a config of that one."""

from __future__ import annotations

import json

import pytest

from gpulint.model.nvidia import mig_manager
from tests.helpers import run_cli


def configmap(name: str, configs: tuple[str, ...], namespace: str | None = "gpu-operator") -> str:
    """A ConfigMap holding a mig-parted config under ``config.yaml``, one entry per config."""
    meta = f"  name: {name}\n" + (f"  namespace: {namespace}\n" if namespace else "")
    body = "".join(
        f"      {c}:\n        - devices: all\n          mig-enabled: false\n" for c in configs
    )
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + meta + "data:\n  config.yaml: |\n"
        "    version: v1\n    mig-configs:\n" + body
    )


CUSTOM = configmap("custom-mig-config", ("all-disabled", "inference-7x1g"))
OTHER = configmap("other-mig-config", ("all-disabled", "training-3x3g"))

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels:
    nvidia.com/mig.config: {name}
"""

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-mig
spec:
  template:
    metadata:
      labels:
        nvidia.com/mig.config: {name}
"""


def policy(config: str | None) -> str:
    """A ClusterPolicy; ``config`` is the YAML of spec.migManager.config (None: no config)."""
    text = (
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: cluster-policy\n"
        "spec:\n  migManager:\n    enabled: true\n"
    )
    if config is not None:
        text += "    config:\n" + "".join(f"      {line}\n" for line in config.splitlines())
    return text


def helmrelease(config: str, namespace: str = "gpu-operator") -> str:
    """A Flux HelmRelease of gpu-operator whose inline values set migManager.config."""
    return (
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n"
        "  name: gpu-operator\n  namespace: flux-system\nspec:\n"
        f"  targetNamespace: {namespace}\n  interval: 1h\n  chart:\n    spec:\n"
        "      chart: gpu-operator\n      sourceRef:\n        kind: HelmRepository\n"
        "        name: nvidia\n  values:\n    migManager:\n      config:\n"
        + "".join(f"        {line}\n" for line in config.splitlines())
    )


def lint_files(tmp_path, files: dict[str, str]) -> list[dict]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run_cli("check", "--format", "json", "--select", "GPU506", str(tmp_path))
    return json.loads(result.output)["findings"]


def places(found: list[dict]) -> list[tuple[str, str, int, int]]:
    return sorted((f["code"], f["path"].rsplit("/", 1)[1], f["line"], f["column"]) for f in found)


# --- ClusterPolicy ----------------------------------------------------------------------------


def test_label_defined_only_in_a_configmap_not_in_use_is_reported(tmp_path):
    files = {
        "custom.yaml": CUSTOM,
        "other.yaml": OTHER,
        "policy.yaml": policy("name: custom-mig-config"),
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "node.yaml", 6, 28)]
    message = found[0]["message"]
    assert message.startswith(
        "Node gpu-1 label nvidia.com/mig.config names MIG config 'training-3x3g', which "
        "ConfigMap custom-mig-config does not define (all-disabled, inference-7x1g); MIG "
        "manager reads that config (ClusterPolicy cluster-policy spec.migManager.config.name)"
    )
    assert "'training-3x3g' is defined in the mig-parted config 'config.yaml' in ConfigMap " in (
        message
    )
    assert "other-mig-config, which MIG manager does not read" in message
    related = found[0]["related"]
    assert [(r["path"].rsplit("/", 1)[1], r["line"]) for r in related] == [("policy.yaml", 9)]


def test_label_defined_in_the_configmap_in_use_is_silent(tmp_path):
    files = {
        "custom.yaml": CUSTOM,
        "other.yaml": OTHER,
        "policy.yaml": policy("name: custom-mig-config"),
        "node.yaml": NODE.format(name="inference-7x1g"),
    }
    assert lint_files(tmp_path, files) == []


def test_configmap_in_use_missing_from_the_run_says_nothing(tmp_path):
    """The ConfigMap MIG manager reads is applied elsewhere: its names are unknown."""
    files = {
        "other.yaml": OTHER,
        "policy.yaml": policy("name: custom-mig-config\ndefault: all-disabled"),
        "node.yaml": NODE.format(name="anything-at-all"),
    }
    assert lint_files(tmp_path, files) == []


def test_a_configmap_without_the_config_yaml_key_is_not_read(tmp_path):
    text = CUSTOM.replace("config.yaml: |", "mig.yaml: |")
    files = {
        "custom.yaml": text,
        "policy.yaml": policy("name: custom-mig-config"),
        "node.yaml": NODE.format(name="anything-at-all"),
    }
    assert lint_files(tmp_path, files) == []


@pytest.mark.parametrize("name", ["all-disabled", "all-balanced", "all-1g.10gb", "all-1g.23gb.me"])
def test_default_configmap_accepts_the_default_names(tmp_path, name):
    """No config.name: the operator's default config, whose names (all-<profile> from the
    node's GPUs) are accepted, even where another ConfigMap of the run lacks them."""
    for config in (None, "name: default-mig-parted-config", 'name: ""'):
        files = {
            "other.yaml": OTHER,
            "policy.yaml": policy(config),
            "node.yaml": NODE.format(name=name),
        }
        assert lint_files(tmp_path, files) == [], (name, config)


def test_default_configmap_rejects_a_custom_config_name(tmp_path):
    files = {
        "other.yaml": OTHER,
        "policy.yaml": policy("default: all-disabled"),
        "pool.yaml": NODEPOOL.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "pool.yaml", 9, 32)]
    message = found[0]["message"]
    assert "which the operator's default config does not define (all-disabled, all-enabled, " in (
        message
    )
    assert "(ClusterPolicy cluster-policy sets no spec.migManager.config.name)" in message
    assert "defined in the mig-parted config 'config.yaml' in ConfigMap other-mig-config" in message


def test_default_config_name_typo_gets_a_did_you_mean(tmp_path):
    files = {
        "other.yaml": OTHER,
        "policy.yaml": policy(None),
        "node.yaml": NODE.format(name="all-1g.10gbb"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "node.yaml", 6, 28)]
    assert found[0]["message"].endswith("did you mean 'all-1g.10gb'?")


def test_cluster_policy_default_missing_from_the_config_in_use(tmp_path):
    """The operator labels unlabelled MIG nodes all-disabled: the custom config must have it."""
    files = {
        "custom.yaml": configmap("custom-mig-config", ("inference-7x1g",)),
        "other.yaml": OTHER,
        "policy.yaml": policy("name: custom-mig-config\ndefault: all-disabled"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "policy.yaml", 10, 16)]
    message = found[0]["message"]
    assert message.startswith(
        "ClusterPolicy cluster-policy spec.migManager.config.default names MIG config "
        "'all-disabled', which ConfigMap custom-mig-config does not define (inference-7x1g)"
    )
    assert "CRD accepts only" not in message  # all-disabled is what the CRD allows


def test_cluster_policy_turned_off_or_templated_says_nothing_about_the_config(tmp_path):
    """MIG manager off, or a name still a placeholder: any config of the run will do."""
    for text in (
        policy("name: custom-mig-config").replace("enabled: true", "enabled: false"),
        policy("name: '{{ .Values.migConfig }}'"),
    ):
        files = {
            "custom.yaml": CUSTOM,
            "other.yaml": OTHER,
            "policy.yaml": text,
            "node.yaml": NODE.format(name="training-3x3g"),
        }
        assert lint_files(tmp_path, files) == []


# --- the operator chart's values ---------------------------------------------------------------


def test_values_file_names_the_configmap(tmp_path):
    values = "driver:\n  enabled: true\nmigManager:\n  config:\n    name: custom-mig-config\n"
    files = {
        "custom.yaml": CUSTOM,
        "other.yaml": OTHER,
        "values.yaml": values,
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "node.yaml", 6, 28)]
    assert (
        "MIG manager reads that config (GPU Operator values migManager.config.name)"
        in (found[0]["message"])
    )
    files["node.yaml"] = NODE.format(name="inference-7x1g")
    assert lint_files(tmp_path, files) == []


def test_values_without_a_name_leave_the_choice_open(tmp_path):
    """Another values file of the release may set the name: any config of the run will do."""
    values = "driver:\n  enabled: true\nmigManager:\n  config:\n    default: all-disabled\n"
    files = {
        "custom.yaml": CUSTOM,
        "other.yaml": OTHER,
        "values.yaml": values,
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    assert lint_files(tmp_path, files) == []


def test_values_that_create_the_configmap_from_data(tmp_path):
    values = (
        "driver:\n  enabled: true\nmigManager:\n  config:\n    name: custom-mig-config\n"
        "    create: true\n    default: all-disabled\n    data:\n      config.yaml: |\n"
        "        version: v1\n        mig-configs:\n          all-disabled:\n"
        "            - devices: all\n              mig-enabled: false\n"
    )
    files = {
        "other.yaml": OTHER,
        "values.yaml": values,
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "node.yaml", 6, 28)]
    assert (
        "(GPU Operator values migManager.config.name, created from migManager.config.data)"
        in found[0]["message"]
    )
    files["node.yaml"] = NODE.format(name="all-disabled")
    assert lint_files(tmp_path, files) == []


def test_helmrelease_matches_the_configmap_in_the_operator_namespace(tmp_path):
    """The release's target namespace is where MIG manager runs and mounts the ConfigMap."""
    elsewhere = configmap("custom-mig-config", ("training-3x3g",), namespace="ml-team")
    files = {
        "custom.yaml": CUSTOM,
        "elsewhere.yaml": elsewhere,
        "release.yaml": helmrelease("name: custom-mig-config"),
        "pool.yaml": NODEPOOL.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "pool.yaml", 9, 32)]
    message = found[0]["message"]
    assert "which ConfigMap custom-mig-config in namespace gpu-operator does not define" in message
    assert "(HelmRelease gpu-operator values migManager.config.name)" in message
    assert "ConfigMap custom-mig-config, which MIG manager does not read" in message


def test_helmrelease_whose_configmap_sits_only_in_another_namespace_says_nothing(tmp_path):
    elsewhere = configmap("custom-mig-config", ("inference-7x1g",), namespace="ml-team")
    files = {
        "elsewhere.yaml": elsewhere,
        "release.yaml": helmrelease("name: custom-mig-config"),
        "pool.yaml": NODEPOOL.format(name="training-3x3g"),
    }
    assert lint_files(tmp_path, files) == []


def test_argo_application_values_string_and_default(tmp_path):
    application = (
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n"
        "  name: gpu-operator\n  namespace: argocd\nspec:\n  project: default\n"
        "  destination:\n    server: https://kubernetes.default.svc\n"
        "    namespace: gpu-operator\n  source:\n    repoURL: https://helm.ngc.nvidia.com/nvidia\n"
        "    chart: gpu-operator\n    targetRevision: v25.10.1\n    helm:\n      values: |\n"
        "        migManager:\n          config:\n            name: custom-mig-config\n"
        "            default: balanced\n"
    )
    files = {"custom.yaml": CUSTOM, "app.yaml": application}
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "app.yaml", 20, 22)]
    message = found[0]["message"]
    assert message.startswith(
        "Application gpu-operator values migManager.config.default names MIG config "
        "'balanced', which ConfigMap custom-mig-config in namespace gpu-operator does not define"
    )
    assert "the ClusterPolicy CRD accepts only 'all-disabled' or '' here" in message


def test_one_finding_per_label_when_two_inputs_name_the_config(tmp_path):
    """A ClusterPolicy and values that agree: one config MIG manager reads, one finding."""
    values = "driver:\n  enabled: true\nmigManager:\n  config:\n    name: custom-mig-config\n"
    files = {
        "custom.yaml": CUSTOM,
        "policy.yaml": policy("name: custom-mig-config"),
        "values.yaml": values,
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "node.yaml", 6, 28)]
    message = found[0]["message"]
    assert "which ConfigMap custom-mig-config does not define (all-disabled, inference-7x1g)" in (
        message
    )
    assert (
        "(ClusterPolicy cluster-policy spec.migManager.config.name and GPU Operator values "
        "migManager.config.name)" in message
    )


def test_two_inputs_that_name_two_configs(tmp_path):
    """The label must be in one of them; the message names both and who gave each."""
    values = 'driver:\n  enabled: true\nmigManager:\n  config:\n    name: ""\n'
    files = {
        "custom.yaml": CUSTOM,
        "other.yaml": OTHER,
        "policy.yaml": policy("name: custom-mig-config"),
        "values.yaml": values,
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("GPU506", "node.yaml", 6, 28)]
    assert (
        "which none of the configs MIG manager is given defines (ConfigMap custom-mig-config "
        "(all-disabled, inference-7x1g), by ClusterPolicy cluster-policy "
        "spec.migManager.config.name; the operator's default config (all-disabled, "
        "all-enabled, all-balanced, all-<profile>), by GPU Operator values "
        "migManager.config.name)" in found[0]["message"]
    )
    for name in ("inference-7x1g", "all-3g.40gb"):
        files["node.yaml"] = NODE.format(name=name)
        assert lint_files(tmp_path, files) == [], name


def test_two_inputs_one_of_them_unknown_say_nothing_about_labels(tmp_path):
    values = "driver:\n  enabled: true\nmigManager:\n  config:\n    name: missing-config\n"
    files = {
        "custom.yaml": CUSTOM,
        "policy.yaml": policy("name: custom-mig-config"),
        "values.yaml": values,
        "node.yaml": NODE.format(name="training-3x3g"),
    }
    assert lint_files(tmp_path, files) == []


# --- the model ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("all-disabled", True),
        ("all-enabled", True),
        ("all-balanced", True),
        ("all-3g.40gb", True),
        ("all-1g.10gb.me", True),
        ("all-1g.24gb-me", True),
        ("all-1g.24gb.me.all", True),
        ("all-1g.10gb+me", False),  # the config name writes '+' as '.'
        ("all-3g", False),
        ("inference-7x1g", False),
    ],
)
def test_default_config_names(name, expected):
    assert mig_manager.is_default_name(name) is expected


@pytest.mark.parametrize(
    ("data", "prefix", "expected"),
    [
        (
            {
                "apiVersion": "helm.toolkit.fluxcd.io/v2",
                "kind": "HelmRelease",
                "metadata": {"namespace": "flux-system"},
                "spec": {"values": {}},
            },
            ("spec", "values"),
            "flux-system",
        ),
        (
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "ApplicationSet",
                "spec": {"template": {"spec": {"destination": {"namespace": "{{name}}"}}}},
            },
            ("spec", "template", "spec", "source", "helm", "valuesObject"),
            None,
        ),
        (
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "helmCharts": [{"name": "gpu-operator", "namespace": "gpu-operator"}],
            },
            ("helmCharts", 0, "valuesInline"),
            "gpu-operator",
        ),
        (
            {"releases": [{"chart": "nvidia/gpu-operator", "namespace": "nvidia"}]},
            ("releases", 0, "values", 0),
            "nvidia",
        ),
        ({"migManager": {}}, (), None),
    ],
)
def test_release_namespace(data, prefix, expected):
    assert mig_manager.release_namespace(data, prefix) == expected


# --- a rendered operator chart ------------------------------------------------------------------

CHART_VALUES = """\
driver:
  enabled: true
migManager:
  enabled: true
  config:
    name: custom-mig-config
    create: true
    default: all-disabled
    data:
      config.yaml: |
        version: v1
        mig-configs:
          inference-7x1g:
            - devices: all
              mig-enabled: true
              mig-devices:
                "1g.10gb": 7
"""

# Two templates written for this test after the operator chart's: the ClusterPolicy gets the
# config's name and default, and the ConfigMap is made from data when create is true.
CHART_POLICY = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
  migManager:
    enabled: {{ .Values.migManager.enabled }}
    config:
      name: {{ .Values.migManager.config.name }}
      default: {{ .Values.migManager.config.default | quote }}
"""

CHART_CONFIGMAP = """\
{{- if .Values.migManager.config.create }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Values.migManager.config.name }}
  namespace: {{ .Release.Namespace }}
data: {{ toYaml .Values.migManager.config.data | nindent 2 }}
{{- end }}
"""


def test_chart_values_and_the_cluster_policy_they_render_give_one_finding(tmp_path, real_helm):
    """The default is said twice (values, rendered ClusterPolicy): one finding, at the values."""
    chart = tmp_path / "gpu-operator"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: gpu-operator\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(CHART_VALUES)
    (chart / "templates" / "clusterpolicy.yaml").write_text(CHART_POLICY)
    (chart / "templates" / "mig-config.yaml").write_text(CHART_CONFIGMAP)
    result = run_cli("check", "--format", "json", "--select", "GPU506", str(chart))
    found = json.loads(result.output)["findings"]
    assert places(found) == [("GPU506", "values.yaml", 8, 14)]
    message = found[0]["message"]
    assert message.startswith(
        "GPU Operator values migManager.config.default names MIG config 'all-disabled', which "
        "ConfigMap custom-mig-config does not define (inference-7x1g)"
    )
    related = [(r["path"].rsplit("/", 1)[1], r["line"]) for r in found[0]["related"]]
    assert related == [("values.yaml", 6), ("clusterpolicy.yaml", 10)]
