"""Charts written the way charts are written, rendered by the real helm.

``toYaml``/``nindent`` of values under ``with``, ``include`` of a named
template, ``range`` over values, vendored subcharts, library charts,
``values.schema.json`` and ``required``: every finding lands on a file that
exists (the template line of the expression that wrote the block) and names
the values key its value came from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli

CHART = "apiVersion: v2\nname: {name}\nversion: 0.1.0\n{extra}"

# What `helm create` writes for a Deployment's resources (lines 1-17 of a template).
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-train
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: "nvcr.io/nvidia/pytorch:24.05-py3"
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
"""

VALUES = """\
replicaCount: 1
resources:
  requests:
    nvidia.com/gpu: 1
nodeSelector: {}
"""


def _chart(root: Path, name: str, templates: dict[str, str], values: str = "", extra: str = ""):
    (root / "templates").mkdir(parents=True, exist_ok=True)
    (root / "Chart.yaml").write_text(CHART.format(name=name, extra=extra))
    if values:
        (root / "values.yaml").write_text(values)
    for file, text in templates.items():
        (root / "templates" / file).write_text(text)
    return root


@pytest.fixture
def workdir(tmp_path, monkeypatch, real_helm) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*args: str, select: str = "GPU101") -> dict:
    result = run_cli("check", "--format", "json", "--select", select, *args)
    data = json.loads(result.output)
    for finding in data["findings"]:  # never a path that does not exist
        assert Path(finding["path"]).is_file(), finding["path"]
    for error in data["errors"]:
        assert Path(error["path"]).is_file(), error["path"]
    return data


def _at(finding: dict) -> tuple:
    return finding["path"], finding["line"], finding["column"], finding["endColumn"]


def _value(finding: dict) -> tuple:
    source = finding["valueSource"]
    where = source["location"]
    at = (where["path"], where["line"], where["column"]) if where else None
    return source["key"], at, source["setBy"]


def test_to_yaml_block_points_at_the_expression_and_the_values_key(workdir):
    _chart(workdir / "gpu", "gpu", {"deployment.yaml": DEPLOYMENT}, VALUES)
    data = _check("gpu")
    assert data["errors"] == []
    (finding,) = data["findings"]
    # `{{- toYaml . | nindent 12 }}` on line 13, columns 13-41.
    assert _at(finding) == ("gpu/templates/deployment.yaml", 13, 13, 41)
    assert _value(finding) == (
        "resources.requests.nvidia\\.com/gpu",
        ("gpu/values.yaml", 4, 5),
        None,
    )


def test_values_file_and_set_that_override_are_named(workdir):
    _chart(workdir / "gpu", "gpu", {"deployment.yaml": DEPLOYMENT}, VALUES)
    Path("prod.yaml").write_text("# prod\nresources:\n  requests:\n    nvidia.com/gpu: 2\n")
    (finding,) = _check("gpu", "-f", "prod.yaml")["findings"]
    assert _value(finding) == ("resources.requests.nvidia\\.com/gpu", ("prod.yaml", 4, 5), None)
    assert "requested (2)" in finding["message"]
    assignment = "resources.requests.nvidia\\.com/gpu=4"
    (finding,) = _check("gpu", "-f", "prod.yaml", "--set", assignment)["findings"]
    assert _value(finding) == ("resources.requests.nvidia\\.com/gpu", None, assignment)
    assert "requested (4)" in finding["message"]


def test_github_and_sarif_name_the_template_file(workdir):
    _chart(workdir / "gpu", "gpu", {"deployment.yaml": DEPLOYMENT}, VALUES)
    github = run_cli("check", "--format", "github", "--select", "GPU101", "gpu").output
    assert github.startswith(
        "::error file=gpu/templates/deployment.yaml,line=13,col=13,endLine=13,endColumn=41,"
    )
    assert "[value resources.requests.nvidia\\.com/gpu from gpu/values.yaml:4:5]" in github
    sarif = json.loads(run_cli("check", "--format", "sarif", "--select", "GPU101", "gpu").output)
    (result,) = sarif["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "gpu/templates/deployment.yaml"
    values = [r for r in result["relatedLocations"] if r["message"]["text"].startswith("value")]
    assert values[0]["physicalLocation"]["artifactLocation"]["uri"] == "gpu/values.yaml"
    assert values[0]["physicalLocation"]["region"]["startLine"] == 4


def test_include_of_a_named_template_points_at_the_include(workdir):
    helpers = (
        '{{- define "gpu.resources" -}}\n'
        "requests:\n"
        "  nvidia.com/gpu: {{ .Values.gpus }}\n"
        "{{- end }}\n"
    )
    template = DEPLOYMENT.replace(
        "          {{- with .Values.resources }}\n          resources:\n"
        "            {{- toYaml . | nindent 12 }}\n          {{- end }}\n",
        '          resources:\n            {{- include "gpu.resources" . | nindent 12 }}\n',
    )
    files = {"deployment.yaml": template, "_helpers.tpl": helpers}
    _chart(workdir / "gpu", "gpu", files, "gpus: 1\n")
    (finding,) = _check("gpu")["findings"]
    assert _at(finding) == ("gpu/templates/deployment.yaml", 12, 13, 58)
    assert "valueSource" not in finding  # what a named template reads is its own business


def test_range_over_values_lands_in_the_template(workdir):
    template = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        {{- range .Values.workers }}
        - name: {{ .name }}
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            {{- toYaml .resources | nindent 12 }}
        {{- end }}
"""
    values = "workers:\n  - name: a\n    resources:\n      requests:\n        nvidia.com/gpu: 1\n"
    _chart(workdir / "gpu", "gpu", {"job.yaml": template}, values)
    (finding,) = _check("gpu")["findings"]
    # Items written by `range` have no fixed position: the finding stays in the template.
    assert finding["path"] == "gpu/templates/job.yaml"


def test_vendored_subchart_maps_to_its_template_and_the_parents_override(workdir):
    parent = _chart(
        workdir / "app",
        "app",
        {},
        "trainer:\n  resources:\n    requests:\n      nvidia.com/gpu: 2\n",
    )
    _chart(parent / "charts" / "trainer", "trainer", {"deployment.yaml": DEPLOYMENT}, VALUES)
    (finding,) = _check("app")["findings"]
    assert _at(finding) == ("app/charts/trainer/templates/deployment.yaml", 13, 13, 41)
    assert _value(finding) == (
        "resources.requests.nvidia\\.com/gpu",
        ("app/values.yaml", 4, 7),
        None,
    )
    assert "requested (2)" in finding["message"]


def test_library_chart_template_is_reported_at_the_include(workdir):
    lib_template = (
        '{{- define "lib.job" -}}\n'
        "apiVersion: batch/v1\n"
        "kind: Job\n"
        "metadata:\n"
        "  name: {{ .Release.Name }}\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      restartPolicy: Never\n"
        "      containers:\n"
        "        - name: main\n"
        "          image: nvcr.io/nvidia/pytorch:24.05-py3\n"
        "          resources:\n"
        "            requests:\n"
        "              nvidia.com/gpu: {{ .Values.gpus }}\n"
        "{{- end }}\n"
    )
    app = _chart(workdir / "app", "app", {"job.yaml": '{{ include "lib.job" . }}\n'}, "gpus: 1\n")
    _chart(app / "charts" / "lib", "lib", {"_job.tpl": lib_template}, extra="type: library\n")
    (finding,) = _check("app")["findings"]
    # The rendered Job says `# Source: app/templates/job.yaml`: one line, the include.
    assert _at(finding) == ("app/templates/job.yaml", 1, 1, 26)


def test_values_schema_violation_is_an_input_error_at_the_schema(workdir):
    chart = _chart(workdir / "gpu", "gpu", {"deployment.yaml": DEPLOYMENT}, VALUES)
    (chart / "values.schema.json").write_text('{"type": "object", "required": ["gpuProduct"]}\n')
    data = _check("gpu")
    (error,) = data["errors"]
    assert (error["path"], error["line"]) == ("gpu/values.schema.json", 1)
    assert "gpuProduct is required" in error["message"]


def test_required_and_fail_are_input_errors_at_their_template_line(workdir):
    template = DEPLOYMENT.replace(
        "  name: {{ .Release.Name }}-train",
        '  name: {{ required "name is required" .Values.name }}',
    )
    _chart(workdir / "gpu", "gpu", {"deployment.yaml": template}, VALUES)
    (error,) = _check("gpu")["errors"]
    assert (error["path"], error["line"], error["column"]) == (
        "gpu/templates/deployment.yaml",
        4,
        11,
    )
    assert error["message"] == (
        "helm template failed: execution error at (gpu/templates/deployment.yaml:4:11): "
        "name is required"
    )
    (workdir / "gpu" / "templates" / "deployment.yaml").write_text(
        DEPLOYMENT + '{{- fail "set gpus" }}\n'
    )
    (error,) = _check("gpu")["errors"]
    assert (error["path"], error["line"]) == ("gpu/templates/deployment.yaml", 19)
    assert error["message"].endswith("set gpus")


def test_a_key_whose_block_an_expression_writes_names_that_values_key():
    from gpulint.inputs.render.template_block import value_reference
    from gpulint.inputs.render.template_map import find

    text = (
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      {{- with .Values.tolerations }}\n"
        "      tolerations:\n"
        "        {{- toYaml . | nindent 8 }}\n"
        "      {{- end }}\n"
    )
    hit = find(text, ("spec", "template", "spec", "tolerations"))
    assert (hit.line, hit.column) == (5, 7)
    assert value_reference(text, hit) == ("tolerations",)


def test_a_source_comment_outside_the_chart_names_no_values_file(tmp_path):
    from gpulint.core.settings import RenderOptions
    from gpulint.inputs.render.values_origin import ValuesIndex

    (tmp_path / "values.yaml").write_text("gpus: 1\n")
    index = ValuesIndex(str(tmp_path / "chart"), RenderOptions())
    assert index.origin("chart/charts/../../templates/x.yaml", ("gpus",)) is None
