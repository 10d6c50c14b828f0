"""Helm: rendered streams (``# Source:``), chart folders, template-line mapping.

No wheel on the package index ships a Linux ``helm`` binary (``helm-package``
carries only macOS and Windows builds), so the chart-folder tests put a small
fake ``helm`` on PATH: it records its arguments and prints a rendered stream
(or fails like helm does). The helm-absent path is tested for real.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from gpulint.inputs.render.template_map import find
from tests.helpers import HELM_TEMPLATE, run_cli
from tests.text_scans import CountedText, count_text_scans

TEMPLATE = HELM_TEMPLATE  # the `chart` fixture's template (conftest.py)

RENDERED = """\
---
# Source: mychart/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rel-mychart
---
# Source: mychart/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rel-train
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: "nvcr.io/nvidia/pytorch:24.05-py3"
          resources:
            requests:
              nvidia.com/gpu: 1
"""

FAKE_HELM = """#!{python}
import json, os, sys
with open(os.environ["FAKE_HELM_ARGV"], "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("FAKE_HELM_SLEEP"):
    import time
    time.sleep(float(os.environ["FAKE_HELM_SLEEP"]))
if os.environ.get("FAKE_HELM_FAIL"):
    sys.stderr.write(os.environ["FAKE_HELM_FAIL"] + "\\n")
    sys.exit(1)
with open(os.environ["FAKE_HELM_OUTPUT"]) as rendered:
    sys.stdout.write(rendered.read())
"""


@pytest.fixture
def fake_helm(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    helm = bin_dir / "helm"
    helm.write_text(FAKE_HELM.format(python=sys.executable))
    helm.chmod(0o755)
    output = tmp_path / "rendered.yaml"
    output.write_text(RENDERED)
    argv_log = tmp_path / "helm-argv.jsonl"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_HELM_OUTPUT", str(output))
    monkeypatch.setenv("FAKE_HELM_ARGV", str(argv_log))
    monkeypatch.delenv("FAKE_HELM_FAIL", raising=False)

    class Fake:
        rendered = output

        @staticmethod
        def calls() -> list[list[str]]:
            if not argv_log.exists():
                return []
            return [json.loads(line) for line in argv_log.read_text().splitlines()]

    return Fake


@pytest.fixture
def no_helm(tmp_path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def _json(*args: str, input: str | None = None) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", "GPU101", *args, input=input)
    return result.exit_code, json.loads(result.output)


def _where(data: dict) -> list[tuple]:
    return [(f["path"], f["line"], f["column"], f["template"]) for f in data["findings"]]


# --- rendered streams ---


def test_stdin_stream_names_the_template(tmp_path):
    code, data = _json("-", input=RENDERED)
    assert code == 1
    assert _where(data) == [("<stdin>", 21, 15, "mychart/templates/deployment.yaml")]
    assert data["findings"][0]["templateLocation"] is None


def test_text_output_prints_the_template_after_the_message(tmp_path):
    out = run_cli("check", "--select", "GPU101", "-", input=RENDERED).output
    line = out.splitlines()[0]
    assert line.startswith("<stdin>:21:15: error [GPU101 gpu-limit-missing]")
    assert line.endswith("[template mychart/templates/deployment.yaml]")


def test_saved_stream_with_chart_dir_names_the_template_line(chart):
    Path("out.yaml").write_text(RENDERED)
    code, data = _json("out.yaml", "--chart-dir", "mychart")
    assert _where(data) == [("out.yaml", 21, 15, "mychart/templates/deployment.yaml")]
    located = data["findings"][0]["templateLocation"]
    assert (located["path"], located["line"], located["column"]) == (
        "mychart/templates/deployment.yaml",
        17,
        15,
    )


def test_sarif_has_the_template_as_related_and_logical_location(chart):
    Path("out.yaml").write_text(RENDERED)
    result = run_cli(
        "check", "--format", "sarif", "--select", "GPU101", "out.yaml", "--chart-dir", "mychart"
    )
    (finding,) = json.loads(result.output)["runs"][0]["results"]
    physical = finding["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "out.yaml"
    assert physical["region"]["startLine"] == 21
    related, value = finding["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == (
        "mychart/templates/deployment.yaml"
    )
    assert related["physicalLocation"]["region"]["startLine"] == 17
    # The template line reads `.Values.gpus`: its key in the chart's values.yaml.
    assert value["message"]["text"] == "value gpus"
    assert value["physicalLocation"]["artifactLocation"]["uri"] == "mychart/values.yaml"
    assert value["physicalLocation"]["region"]["startLine"] == 1
    logical = finding["locations"][0]["logicalLocations"]
    assert {"fullyQualifiedName": "mychart/templates/deployment.yaml", "kind": "module"} in logical


# --- chart folders with the real helm ---


def test_chart_folder_is_rendered_and_mapped_to_the_template(chart, real_helm):
    code, data = _json("mychart")
    assert data["errors"] == []
    assert code == 1
    assert _where(data) == [
        ("mychart/templates/deployment.yaml", 17, 15, "mychart/templates/deployment.yaml")
    ]
    assert data["findings"][0]["resource"]["name"] == "release-name-train"
    assert data["summary"]["files"] == 2  # the rendered stream and values.yaml


def test_helm_options_are_passed_through(chart, real_helm):
    (chart / "templates" / "deployment.yaml").write_text(
        TEMPLATE.replace(
            "  name: {{ .Release.Name }}-train",
            "  name: {{ .Release.Name }}-{{ .Values.tag }}-k{{ .Capabilities.KubeVersion.Minor }}\n"
            "  namespace: {{ .Release.Namespace }}",
        )
    )
    Path("prod.yaml").write_text("gpus: 2\ntag: prod\n")
    Path("gpu.yaml").write_text("gpus: 3\ntag: gpu\n")
    args = ["mychart", "--values", "prod.yaml", "-f", "gpu.yaml"]  # -f: helm's short form
    code, data = _json(*args, "--release-name", "prod", "--namespace", "ml")
    (finding,) = data["findings"]
    assert finding["resource"]["name"] == "prod-gpu-k" + _helm_default_minor(data)
    assert finding["resource"]["namespace"] == "ml"
    # The last --values file gave gpus; the template reads it on the reported line.
    assert finding["valueSource"] == {
        "key": "gpus",
        "location": {"path": "gpu.yaml", "line": 1, "column": 1, "endLine": 1, "endColumn": 8},
        "setBy": None,
    }
    code, data = _json(*args, "--set", "gpus=4", "--set", "tag=t", "--kube-version", "1.30.0")
    (finding,) = data["findings"]
    assert finding["resource"]["name"] == "release-name-t-k30"
    assert finding["valueSource"] == {"key": "gpus", "location": None, "setBy": "gpus=4"}


def _helm_default_minor(data: dict) -> str:
    # helm's built-in default kube version: whatever it is, it is not 30 given no flag.
    name = data["findings"][0]["resource"]["name"]
    return name.rsplit("-k", 1)[1]


def test_templates_folder_renders_its_chart(chart, real_helm):
    code, data = _json("mychart/templates")
    assert data["errors"] == []
    assert _where(data)[0][:3] == ("mychart/templates/deployment.yaml", 17, 15)


def test_two_documents_of_one_template_map_by_their_order(chart, real_helm):
    # The same template twice in one file: the n-th rendered document is the n-th written.
    (chart / "templates" / "deployment.yaml").write_text(TEMPLATE + "---\n" + TEMPLATE)
    code, data = _json("mychart")
    assert data["errors"] == []
    assert _where(data) == [
        ("mychart/templates/deployment.yaml", 17, 15, "mychart/templates/deployment.yaml"),
        ("mychart/templates/deployment.yaml", 35, 15, "mychart/templates/deployment.yaml"),
    ]


SERVICE = (
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-svc\n"
    "spec:\n  ports:\n    - port: 80\n"
)


def test_documents_of_one_template_map_by_kind_as_helm_sorts_them(chart, real_helm):
    # helm template writes a Service before a Deployment whatever the file's order
    # (NVIDIA/GenerativeAIExamples' rag-llm-pipeline: a Deployment, then its Service).
    written = TEMPLATE + "---\n" + SERVICE + "---\n" + TEMPLATE
    (chart / "templates" / "deployment.yaml").write_text(written)
    code, data = _json("mychart")
    assert data["errors"] == []
    second = 17 + TEMPLATE.count("\n") + 1 + SERVICE.count("\n") + 1
    assert [w[:3] for w in _where(data)] == [
        ("mychart/templates/deployment.yaml", 17, 15),
        ("mychart/templates/deployment.yaml", second, 15),
    ]
    # A part whose kind is an expression: written order, as many rendered as written.
    kind_expr = SERVICE.replace("kind: Service", '{{ print "kind: Service" }}')
    (chart / "templates" / "deployment.yaml").write_text(kind_expr + "---\n" + TEMPLATE)
    code, data = _json("mychart")
    assert [w[:3] for w in _where(data)] == [
        ("mychart/templates/deployment.yaml", 17 + SERVICE.count("\n") + 1, 15)
    ]


def test_helm_failure_is_an_input_error_with_helms_message(chart, real_helm):
    (chart / "templates" / "deployment.yaml").write_text(
        TEMPLATE.replace("{{ .Values.tag }}", "{{ .Values.image.tag }}")
    )
    result = run_cli("check", "mychart")
    assert result.exit_code == 2
    assert (
        "mychart/templates/deployment.yaml:14:51: error [input] helm template failed: "
        "template: mychart/templates/deployment.yaml:14:51: executing "
        '"mychart/templates/deployment.yaml" at <.Values.image.tag>: nil pointer evaluating '
        "interface {}.tag"
    ) in result.output


@pytest.mark.slow
def test_a_hanging_helm_is_stopped_at_the_timeout(chart, fake_helm, monkeypatch):
    monkeypatch.setenv("FAKE_HELM_SLEEP", "30")
    result = run_cli("check", "mychart", "--render-timeout", "1")
    assert result.exit_code == 2
    assert "helm template failed: helm did not finish within 1 s" in result.output


# --- helm absent (for real) ---


_NO_HELM = (
    "error [input] helm is not on PATH: this chart was not rendered, so what it produces is "
    "not checked (only its values.yaml was linted); install helm "
    "(https://helm.sh/docs/intro/install/), or pass --skip-unrenderable (config: "
    "skip-unrenderable: true) to accept that"
)


def test_without_helm_each_chart_is_an_input_error_and_values_are_still_linted(
    chart, no_helm, tmp_path
):
    other = tmp_path / "other"
    (other / "templates").mkdir(parents=True)
    (other / "Chart.yaml").write_text("apiVersion: v2\nname: other\nversion: 1.0.0\n")
    (other / "values.yaml").write_text("image: [unclosed\n")  # a real YAML error
    (other / "templates" / "x.yaml").write_text("{{- if .Values.x }}\nkind: {{ .Values.k }}\n")
    result = run_cli("check", "mychart", "other")
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if "[input]" in line]
    assert errors[0] == f"mychart/Chart.yaml:1:1: {_NO_HELM}"
    assert errors[1] == f"other/Chart.yaml:1:1: {_NO_HELM}"
    assert errors[2].startswith("other/values.yaml:2:1: error [input] invalid YAML")
    assert len(errors) == 3
    assert not any("templates" in line for line in result.output.splitlines())  # never parsed


def test_without_helm_a_chart_is_never_a_pass_unless_skipped(chart, no_helm, tmp_path):
    result = run_cli("check", "mychart")
    assert result.exit_code == 2  # what the chart produces was not checked
    assert "0 error(s), 0 warning(s), 0 note(s), 1 input error(s) in 1 file" in result.output
    skipped = run_cli("check", "--skip-unrenderable", "mychart")
    assert skipped.exit_code == 0
    assert (
        "note: mychart/Chart.yaml:1: not rendered (--skip-unrenderable): helm is not on PATH"
        in (skipped.output)
    )
    assert "0 error(s), 0 warning(s), 0 note(s) in 1 file" in skipped.output
    (tmp_path / "skip.gpulint.yaml").write_text("skip-unrenderable: true\n")
    by_config = run_cli("check", "--config", str(tmp_path / "skip.gpulint.yaml"), "mychart")
    assert by_config.exit_code == 0


# --- the template line finder ---


def test_find_uses_ancestors_and_list_positions():
    text = textwrap.dedent(
        """\
        spec:
          containers:
          - name: a
            resources:
              limits:
                nvidia.com/gpu: 1
          - name: b
            resources:
              limits:
                "nvidia.com/gpu": 2
        """
    )
    hit = find(text, ("spec", "containers", 1, "resources", "limits", "nvidia.com/gpu"))
    assert (hit.line, hit.column, hit.end_column, hit.value_column) == (10, 9, 25, 27)
    hit = find(text, ("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"))
    assert (hit.line, hit.column) == (6, 9)


def test_find_gives_up_on_keys_written_by_expressions():
    text = "spec:\n  template:\n    spec:\n      {{- toYaml .Values.pod | nindent 6 }}\n"
    assert find(text, ("spec", "template", "spec", "containers", 0, "image")) is None


def test_find_gives_up_when_two_documents_write_the_same_key():
    text = "kind: A\nspec:\n  replicas: 1\n---\nkind: A\nspec:\n  replicas: 2\n"
    assert find(text, ("spec", "replicas")) is None


def test_find_gives_up_when_a_conditional_item_may_come_first():
    text = textwrap.dedent(
        """\
        spec:
          containers:
          {{- if .Values.sidecar.enabled }}
          - name: sidecar
            image: busybox
          {{- end }}
          - name: main
            image: nvcr.io/nvidia/pytorch:24.05-py3
        """
    )
    # Rendered without the sidecar, containers[0] is `main`; with it, `sidecar`: unknowable.
    assert find(text, ("spec", "containers", 0, "image")) is None
    assert find(text, ("spec", "containers", 1, "image")) is None
    assert find(text, ("spec",)) is not None


def test_a_long_saved_stream_maps_each_finding_without_rescanning_it(chart, monkeypatch):
    """Findings of a stream of many documents from one template: mapping each back to
    the template finds its document once, not by rescanning the stream's `# Source:`
    lines (counted: the characters of the stream searched, for N and 2N copies)."""
    count_text_scans(monkeypatch)

    def scanned(copies: int) -> int:
        Path("out.yaml").write_text(RENDERED * copies)
        CountedText.scanned = 0
        _code, data = _json("out.yaml", "--chart-dir", "mychart", "--select", "GPU101")
        assert len(data["findings"]) == copies
        return CountedText.scanned

    small, large = scanned(300), scanned(600)
    assert large <= 2.2 * small, (small, large)


def test_a_chart_that_refuses_the_default_namespace_renders_in_its_own(chart, real_helm):
    # issue 24: charts guard against helm's default namespace (NVIDIA's DRA driver does);
    # rendered as their users install them, in a namespace of their own.
    guard = (
        '{{- if eq .Release.Namespace "default" }}\n'
        "{{- fail \"Running in the 'default' namespace is not recommended.\" }}\n"
        "{{- end }}\n"
    )
    (chart / "templates" / "guard.yaml").write_text(guard)
    result = run_cli("check", "--format", "json", "mychart")
    report = json.loads(result.stdout)
    assert report["errors"] == []
    assert {f["code"] for f in report["findings"]} >= {"GPU101"}
    given = run_cli("check", "--format", "json", "--namespace", "default", "mychart")
    assert [e["message"][:40] for e in json.loads(given.stdout)["errors"]] == [
        "helm template failed: execution error at"
    ]  # a namespace the user gave is the user's


def test_a_chart_that_requires_a_value_renders_with_its_ci_values(chart, real_helm):
    # issue 24: render as the chart's own CI installs it (chart-testing's ci/*-values.yaml)
    (chart / "templates" / "model.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: model\n"
        'data:\n  name: {{ required "modelName is required" .Values.modelName | quote }}\n'
    )
    failed = json.loads(run_cli("check", "--format", "json", "mychart").stdout)
    assert [e["path"] for e in failed["errors"]] == ["mychart/templates/model.yaml"]
    assert "modelName is required" in failed["errors"][0]["message"]
    (chart / "ci").mkdir()
    (chart / "ci" / "default-values.yaml").write_text("modelName: llama\n")
    report = json.loads(run_cli("check", "--format", "json", "mychart").stdout)
    assert report["errors"] == []
    assert "GPU101" in {f["code"] for f in report["findings"]}
    # values the user gives are the user's: no CI values are added to them
    given = run_cli("check", "--format", "json", "--set", "gpus=1", "mychart")
    assert "modelName is required" in json.loads(given.stdout)["errors"][0]["message"]
