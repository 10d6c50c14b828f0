"""The config file: discovery, every setting, validation with positions, flags over the file."""

from __future__ import annotations

import json
import textwrap

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpulint.rules.registry import default_registry
from tests.helpers import ROOT, run_cli, where

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
  namespace: research
spec:
  containers:
    - name: trainer
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1
"""


def _write(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def _check(*args: str):
    result = run_cli("check", "--format", "json", *args)
    data = json.loads(result.stdout) if result.stdout.strip() else None
    return result, data


def _codes(data: dict, active_only: bool = True) -> set[str]:
    return {f["code"] for f in data["findings"] if not (active_only and f["suppressed"])}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder as the working directory, with one failing manifest."""
    _write(tmp_path / "manifests" / "pod.yaml", POD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_found_from_the_working_directory_upward(project, monkeypatch):
    _write(project / ".gpulint.yaml", "ignore: [GPU101]\n")
    monkeypatch.chdir(project / "manifests")
    _, data = _check("pod.yaml")
    assert "GPU101" not in _codes(data)
    assert "GPU106" in _codes(data)


def test_yml_spelling_is_found_too(project):
    _write(project / ".gpulint.yml", "select: [gpu-limit-missing]\n")
    _, data = _check("manifests")
    assert _codes(data) == {"GPU101"}


def test_explicit_config_and_no_config(project):
    _write(project / ".gpulint.yaml", "ignore: [GPU101]\n")
    _write(project / "other.yaml", "select: [GPU101]\n")
    _, data = _check("--config", "other.yaml", "manifests")
    assert _codes(data) == {"GPU101"}
    _, data = _check("--no-config", "manifests")
    assert {"GPU101", "GPU106"} <= _codes(data)


def test_missing_explicit_config_is_exit_2(project):
    result, _ = _check("--config", "nope.yaml", "manifests")
    assert result.exit_code == 2
    assert "config file nope.yaml not found" in result.stderr


def test_select_and_ignore_by_code_prefix_and_name(project):
    _write(
        project / ".gpulint.yaml", "select: [GPU1]\nignore: [gpu-container-resources-incomplete]\n"
    )
    _, data = _check("manifests")
    codes = _codes(data)
    assert "GPU101" in codes and "GPU106" not in codes
    assert all(code.startswith("GPU1") for code in codes)


def test_severity_per_rule_by_code_and_name(project):
    _write(
        project / ".gpulint.yaml",
        """\
        severity:
          GPU101: note
          gpu-container-resources-incomplete: error
        """,
    )
    _, data = _check("--select", "GPU101,GPU106", "manifests")
    severities = {f["code"]: f["severity"] for f in data["findings"]}
    assert severities == {"GPU101": "note", "GPU106": "error"}


def test_fail_on_from_file_and_flag_over_file(project):
    _write(project / ".gpulint.yaml", "select: [GPU101]\nseverity: {GPU101: note}\nfail-on: note\n")
    result, _ = _check("manifests")
    assert result.exit_code == 1
    result, _ = _check("--fail-on", "warning", "manifests")
    assert result.exit_code == 0


def test_select_flag_replaces_the_files_select(project):
    _write(project / ".gpulint.yaml", "select: [GPU101]\n")
    _, data = _check("--select", "GPU106", "manifests")
    assert _codes(data) == {"GPU106"}


def test_exclude_gitignore_style(project):
    _write(
        project / ".gpulint.yaml",
        """\
        exclude:
          - vendor/
          - "**/*.generated.yaml"
          - "!vendor/ours.yaml"
        """,
    )
    for name in ("vendor/chart.yaml", "deep/x/app.generated.yaml", "kept/app.yaml"):
        _write(project / name, POD)
    _, data = _check("--select", "GPU101", ".")
    files = {f["path"] for f in data["findings"]}
    # A file inside an excluded folder stays excluded (as in git), negation or not.
    assert files == {"kept/app.yaml", "manifests/pod.yaml"}


def test_exclude_applies_to_files_named_on_the_command_line(project):
    """pre-commit passes files one by one: the excludes must hold for them too."""
    _write(project / ".gpulint.yaml", "exclude: [manifests/pod.yaml]\n")
    _write(project / "keep.yaml", POD)
    _, data = _check("--select", "GPU101", "manifests/pod.yaml", "keep.yaml")
    assert {f["path"] for f in data["findings"]} == {"keep.yaml"}
    result, _ = _check("--select", "GPU101", "--exclude", "keep.yaml", "keep.yaml")
    assert result.exit_code == 0


def test_exclude_patterns_are_relative_to_the_config_file(project, monkeypatch):
    _write(project / ".gpulint.yaml", "exclude: [/manifests/]\n")
    monkeypatch.chdir(project / "manifests")
    result, data = _check("--select", "GPU101", ".")
    assert data["findings"] == [] and result.exit_code == 0


def _held(data: dict) -> dict[str, list[str]]:
    return {h["code"]: h["needs"] for h in data.get("heldBack", [])}


def test_max_gpus_per_node(project):
    big = POD.replace("requests:", "limits:").replace("gpu: 1", "gpu: 12")
    _write(project / "manifests" / "pod.yaml", big)
    _, data = _check("--select", "GPU104", "manifests")
    # 12 fits a 16-GPU server: without the cluster's node size the finding is held back.
    assert data["findings"] == [] and _held(data) == {"GPU104": ["max-gpus-per-node"]}
    _write(project / ".gpulint.yaml", "max-gpus-per-node: 8\n")  # the older top-level key
    _, data = _check("--select", "GPU104", "manifests")
    assert where(data["findings"]) == [("GPU104", 12, 11)] and _held(data) == {}
    _write(project / ".gpulint.yaml", "cluster:\n  max-gpus-per-node: 16\n")
    _, data = _check("--select", "GPU104", "manifests")
    assert data["findings"] == [] and _held(data) == {}


_TOLERATED = POD.replace(
    "  containers:",
    "  tolerations:\n    - key: example.com/gpu\n      operator: Exists\n  containers:",
).replace("requests:", "limits:")


@pytest.mark.skipif(default_registry().get("GPU202") is None, reason="GPU202 not in this build")
def test_gpu_taint_keys(project):
    _write(project / "manifests" / "pod.yaml", _TOLERATED)
    _, data = _check("--select", "GPU202", "manifests")
    assert data["findings"] == [] and _held(data) == {"GPU202": ["gpu-taints"]}
    _write(project / ".gpulint.yaml", "gpu-taint-keys: [nvidia.com/gpu]\n")  # older key
    _, data = _check("--select", "GPU202", "manifests")
    assert where(data["findings"]) == [("GPU202", 7, 3)]
    _write(project / ".gpulint.yaml", "cluster:\n  gpu-taints: [example.com/gpu]\n")
    _, data = _check("--select", "GPU202", "manifests")
    assert data["findings"] == [] and _held(data) == {}
    _write(project / ".gpulint.yaml", "cluster:\n  gpu-taints: []\n")  # untainted GPU nodes
    _, data = _check("--select", "GPU202", "manifests")
    assert data["findings"] == [] and _held(data) == {}


@pytest.mark.skipif(default_registry().get("GPU202") is None, reason="GPU202 not in this build")
def test_extended_resource_toleration_switch(project):
    _write(project / "manifests" / "pod.yaml", POD.replace("requests:", "limits:"))
    tainted = "cluster:\n  gpu-taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n"
    _write(project / ".gpulint.yaml", tainted)
    _, data = _check("--select", "GPU202", "manifests")
    assert _codes(data) == {"GPU202"}
    _write(project / ".gpulint.yaml", tainted + "  extended-resource-toleration: true\n")
    _, data = _check("--select", "GPU202", "manifests")
    assert data["findings"] == []
    _write(project / ".gpulint.yaml", tainted + "extended-resource-toleration: yes\n")  # older key
    _, data = _check("--select", "GPU202", "manifests")
    assert data["findings"] == []


@pytest.mark.skipif(default_registry().get("GPU202") is None, reason="GPU202 not in this build")
def test_provider_gke_taints_gpu_nodes_and_adds_the_toleration(project):
    _write(project / "manifests" / "pod.yaml", POD.replace("requests:", "limits:"))
    _write(project / ".gpulint.yaml", "cluster:\n  provider: gke\n")
    _, data = _check("--select", "GPU202", "manifests")
    assert data["findings"] == [] and _held(data) == {}


def test_cluster_section_errors_are_located(project):
    _write(project / ".gpulint.yaml", "cluster:\n  provider: gcp\n  gpu-models: nvidia-l4\n")
    result, _ = _check("manifests")
    assert result.exit_code == 2
    lines = sorted(result.stderr.splitlines())
    assert lines[0].startswith(".gpulint.yaml:2:13: error [config] cluster.provider: ")
    assert lines[1].startswith(".gpulint.yaml:3:15: error [config] cluster.gpu-models: ")


DEPLOYMENT = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-vendor-agent
  namespace: gpu-operator
spec:
  template:
    spec:
      containers:
        - name: agent
          image: example.com/agent:1.0
          resources:
            requests:
              nvidia.com/gpu: 1
"""


@pytest.mark.parametrize(
    "exemption",
    [
        "namespaces: [gpu-*]",
        "kinds: [DaemonSet]",
        "names: [nvidia-*]",
        "containers: [agent]",
        "kinds: [DaemonSet]\n    namespaces: [gpu-operator]\n    rules: [gpu-limit-missing]",
    ],
)
def test_exemptions_by_namespace_kind_name_container(project, exemption):
    _write(project / "vendor.yaml", DEPLOYMENT)
    config = f"exemptions:\n  - {exemption}\n    reason: vendor chart, cannot edit\n"
    _write(project / ".gpulint.yaml", config)
    _, data = _check("--select", "GPU101", "vendor.yaml", "manifests")
    state = {(f["path"], f["suppressed"]) for f in data["findings"]}
    assert state == {("vendor.yaml", True), ("manifests/pod.yaml", False)}
    vendor = next(f for f in data["findings"] if f["path"] == "vendor.yaml")
    assert vendor["suppression"] == {"kind": "config", "reason": "vendor chart, cannot edit"}


def test_exemption_needs_every_given_field_to_match(project):
    _write(project / "vendor.yaml", DEPLOYMENT)
    config = """\
    exemptions:
      - kinds: [DaemonSet]
        namespaces: [kube-system]
        reason: only kube-system DaemonSets
      - names: [nvidia-*]
        rules: [GPU106]
        reason: another rule only
    """
    _write(project / ".gpulint.yaml", config)
    _, data = _check("--select", "GPU101", "vendor.yaml")
    assert [f["suppressed"] for f in data["findings"]] == [False]


def test_no_suppressions_ignores_exemptions(project):
    _write(project / ".gpulint.yaml", "exemptions:\n  - namespaces: [research]\n    reason: x\n")
    result, data = _check("--select", "GPU101", "manifests")
    assert result.exit_code == 0 and data["findings"][0]["suppressed"]
    result, data = _check("--select", "GPU101", "--no-suppressions", "manifests")
    assert result.exit_code == 1 and not data["findings"][0]["suppressed"]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "select: [GPU101]\nfail_on: error\n",
            ".gpulint.yaml:2:1: error [config] fail_on: unknown key 'fail_on'; "
            "did you mean 'fail-on'?",
        ),
        (
            "fail-on: eror\n",
            ".gpulint.yaml:1:10: error [config] fail-on: 'eror' is not one of error, warning, "
            "note; did you mean 'error'?",
        ),
        (
            'max-gpus-per-node: "8"\n',
            ".gpulint.yaml:1:20: error [config] max-gpus-per-node: '8' is not of type 'integer'",
        ),
        (
            "select:\n  - GPU101\n  - GPU777\n",
            ".gpulint.yaml:3:5: error [config] select.1: unknown rule 'GPU777'",
        ),
        (
            "severity:\n  gpu-limit-missin: note\n",
            ".gpulint.yaml:2:3: error [config] severity.gpu-limit-missin: unknown rule "
            "'gpu-limit-missin'",
        ),
        (
            "severity:\n  GPU101: fatal\n",
            ".gpulint.yaml:2:11: error [config] severity.GPU101: 'fatal' is not one of error, "
            "warning, note",
        ),
        (
            "exemptions:\n  - kinds: [DaemonSet]\n",
            ".gpulint.yaml:2:5: error [config] exemptions.0: 'reason' is a required property",
        ),
        (
            "exclude: vendor/\n",
            ".gpulint.yaml:1:10: error [config] exclude: 'vendor/' is not of type 'array'",
        ),
        ("select: [\n", ".gpulint.yaml:2:1: error [input] "),
    ],
)
def test_mistakes_are_errors_at_the_key_with_exit_2(project, text, expected):
    _write(project / ".gpulint.yaml", text)
    result, data = _check("manifests")
    assert result.exit_code == 2
    assert data is None  # nothing is linted with a broken config
    first = result.stderr.splitlines()[0]
    if "[input]" in expected:  # a YAML error: the parser's message, at its position
        assert first.startswith(".gpulint.yaml:") and "[config] invalid YAML" in first
    else:
        assert first == expected


def test_every_mistake_is_reported_in_line_order(project):
    _write(project / ".gpulint.yaml", "fail-on: eror\nselct: [GPU101]\nignore: [GPU999]\n")
    result, _ = _check("manifests")
    assert result.exit_code == 2
    lines = [line.split(" error ")[0] for line in result.stderr.splitlines()]
    assert lines == [".gpulint.yaml:1:10:", ".gpulint.yaml:2:1:"]  # schema first, then rules


def test_empty_config_file_means_defaults(project):
    _write(project / ".gpulint.yaml", "# nothing yet\n")
    result, data = _check("--select", "GPU101", "manifests")
    assert result.exit_code == 1 and _codes(data) == {"GPU101"}


def test_config_schema_command_prints_the_shipped_schema():
    result = run_cli("config-schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert {"select", "ignore", "severity", "fail-on", "exclude", "exemptions"} <= set(
        schema["properties"]
    )


def test_documented_example_config_is_valid(project):
    """The complete example in docs/configuration.md is accepted as it is."""

    doc = (ROOT / "docs" / "configuration.md").read_text()
    example = doc.split("<!-- example-config -->")[1].split("```yaml\n")[1].split("```")[0]
    _write(project / ".gpulint.yaml", example)
    result, data = _check("manifests")
    assert result.exit_code in (0, 1), result.stderr
    assert data is not None


def test_a_valid_config_does_not_import_jsonschema(project):
    """pre-commit runs gpulint on every commit: a valid config must not cost jsonschema's import."""
    import subprocess
    import sys

    _write(project / ".gpulint.yaml", "ignore: [GPU201]\nfail-on: error\nexclude: [vendor/]\n")
    code = (
        "import sys\nfrom gpulint.cli.main import cli\n"
        "try:\n    cli(['check', 'manifests'])\n"
        "except SystemExit as exc:\n    print(exc.code, 'jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "1 False"


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 20), st.sampled_from(["", "error", "GPU101", "x"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["reason", "kinds", "names", "rules", "code", "GPU101", "schema", "x"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)
_CONFIGS = st.dictionaries(
    st.sampled_from(
        [
            "select",
            "severity",
            "fail-on",
            "exclude",
            "max-gpus-per-node",
            "exemptions",
            "custom-rules",
            "extended-resource-toleration",
            "gpu-taint-keys",
            "unknown",
        ]
    ),
    _VALUES,
    max_size=4,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_CONFIGS)
def test_quick_check_never_vouches_for_an_invalid_config(config):
    from gpulint.config.file import SCHEMA_NAME
    from gpulint.validate.quick import certainly_valid
    from gpulint.validate.schema import load_schema

    schema = load_schema(SCHEMA_NAME)
    if certainly_valid(config, schema):
        jsonschema.validate(config, schema)
