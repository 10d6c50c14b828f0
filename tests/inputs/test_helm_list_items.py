"""Helm list items the template gives no position: matched to their writer by what they hold.

``env:`` written as ``toYaml`` of the values' extra variables, then a literal
``- name: NVIDIA_VISIBLE_DEVICES`` item (sypticus/text-generation-webui-helm,
``templates/deployment.yaml``: GPU701 was reported at the ``toYaml`` of an empty
``extraEnvVars`` and named ``extraEnvVars.[0].value`` as the value's origin). The
chart-folder tests render with the real helm.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from gpulint.core.settings import RenderOptions
from gpulint.core.sources import Source
from gpulint.inputs.render.template_block import find_block
from gpulint.inputs.render.template_items import Items
from gpulint.inputs.render.template_map import find
from gpulint.inputs.render.values_origin import ValuesIndex
from gpulint.yaml.parse import parse
from tests.helpers import run_cli

CHART = "apiVersion: v2\nname: demo\nversion: 0.1.0\n"

# The text-generation-webui chart's env list, cut to its first literal item (lines 15-22).
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo
spec:
  selector:
    matchLabels: {app: demo}
  template:
    metadata:
      labels: {app: demo}
    spec:
      containers:
        - name: demo
          image: "example/demo:1.0"
          env:
            {{- with .Values.extraEnvVars }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- if .Values.cuda.enabled }}
            - name: NVIDIA_VISIBLE_DEVICES
              value: {{ .Values.cuda.visibleDevices | quote }}
            {{- end }}
"""

VALUES = 'extraEnvVars: []\ncuda:\n  enabled: true\n  visibleDevices: "all"\n'

# Line 21, `value: {{ .Values.cuda.visibleDevices | quote }}`: the value's columns.
LITERAL_VALUE = ("demo/templates/deployment.yaml", 21, 22, 63)
# Line 17, `{{- toYaml . | nindent 12 }}`.
TO_YAML = ("demo/templates/deployment.yaml", 17, 13, 41)
# Line 1, `apiVersion: apps/v1`: the template document's first line.
FIRST_LINE = ("demo/templates/deployment.yaml", 1, 1, 20)


@pytest.fixture
def workdir(tmp_path, monkeypatch, real_helm) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _chart(root: Path, values: str, template: str = TEMPLATE) -> None:
    (root / "demo" / "templates").mkdir(parents=True)
    (root / "demo" / "Chart.yaml").write_text(CHART)
    (root / "demo" / "values.yaml").write_text(values)
    (root / "demo" / "templates" / "deployment.yaml").write_text(template)


def _finding(*args: str) -> dict:
    result = run_cli("check", "--format", "json", "--select", "GPU701", "demo", *args)
    data = json.loads(result.output)
    assert data["errors"] == []
    (finding,) = data["findings"]
    return finding


def _at(finding: dict) -> tuple:
    return finding["path"], finding["line"], finding["column"], finding["endColumn"]


def _value(finding: dict) -> tuple | None:
    source = finding.get("valueSource")
    if source is None:
        return None
    where = source["location"]
    at = (where["path"], where["line"], where["column"]) if where else None
    return source["key"], at, source["setBy"]


# --- chart folders, rendered by the real helm ---


def test_a_literal_item_after_an_empty_to_yaml_list_is_found_by_its_name(workdir):
    _chart(workdir, VALUES)
    finding = _finding()
    assert finding["pointer"] == "/spec/template/spec/containers/0/env/0/value"
    assert _at(finding) == LITERAL_VALUE
    assert _value(finding) == ("cuda.visibleDevices", ("demo/values.yaml", 4, 3), None)


def test_a_literal_item_after_the_items_the_expression_renders(workdir):
    # extraEnvVars renders two items first: the literal item is env[2].
    values = (
        "extraEnvVars:\n  - name: HF_HOME\n    value: /cache\n"
        "  - name: NCCL_DEBUG\n    value: INFO\n"
        'cuda:\n  enabled: true\n  visibleDevices: "all"\n'
    )
    _chart(workdir, values)
    finding = _finding()
    assert finding["pointer"] == "/spec/template/spec/containers/0/env/2/value"
    assert _at(finding) == LITERAL_VALUE
    assert _value(finding) == ("cuda.visibleDevices", ("demo/values.yaml", 8, 3), None)


def test_an_item_the_expression_renders_points_at_it_and_names_its_values_item(workdir):
    # cuda.enabled is false: the variable comes from extraEnvVars[1], the literal item is
    # not rendered although its name matches.
    values = (
        "extraEnvVars:\n  - name: HF_HOME\n    value: /cache\n"
        "  - name: NVIDIA_VISIBLE_DEVICES\n    value: all\n"
        'cuda:\n  enabled: false\n  visibleDevices: "all"\n'
    )
    _chart(workdir, values)
    finding = _finding()
    assert finding["pointer"] == "/spec/template/spec/containers/0/env/1/value"
    assert _at(finding) == TO_YAML
    assert _value(finding) == ("extraEnvVars.[1].value", ("demo/values.yaml", 5, 5), None)


def test_a_values_file_that_empties_the_list_hides_the_charts_items(workdir):
    # values.yaml's extraEnvVars holds the name, but prod.yaml replaces the list (helm
    # replaces lists): the literal item wrote it.
    values = (
        "extraEnvVars:\n  - name: NVIDIA_VISIBLE_DEVICES\n    value: all\n"
        'cuda:\n  enabled: true\n  visibleDevices: "all"\n'
    )
    _chart(workdir, values)
    Path("prod.yaml").write_text("extraEnvVars: []\n")
    finding = _finding("-f", "prod.yaml")
    assert _at(finding) == LITERAL_VALUE
    assert _value(finding) == ("cuda.visibleDevices", ("demo/values.yaml", 6, 3), None)


def test_an_item_that_cannot_be_identified_falls_back_to_the_first_line(workdir):
    # The literal item's name is computed: nothing says which writer wrote env[0].
    template = TEMPLATE.replace("- name: NVIDIA_VISIBLE_DEVICES", "- name: {{ .Values.cuda.var }}")
    _chart(workdir, VALUES + "  var: NVIDIA_VISIBLE_DEVICES\n", template)
    finding = _finding()
    assert _at(finding) == FIRST_LINE
    assert _value(finding) is None


def test_a_set_that_writes_the_list_leaves_the_writer_undecided(workdir):
    # --set writes extraEnvVars[0]: what the expression renders is not read from a file, and
    # the literal item is conditional, so either may have written the variable (here: --set).
    _chart(workdir, VALUES)
    finding = _finding(
        "--set",
        "cuda.enabled=false,extraEnvVars[0].name=NVIDIA_VISIBLE_DEVICES",
        "--set",
        "extraEnvVars[0].value=all",
    )
    assert finding["pointer"] == "/spec/template/spec/containers/0/env/0/value"
    assert _at(finding) == FIRST_LINE
    assert _value(finding) is None


def test_a_name_the_rendered_list_holds_twice_falls_back_to_the_first_line(workdir):
    values = (
        "extraEnvVars:\n  - name: NVIDIA_VISIBLE_DEVICES\n    value: all\n"
        'cuda:\n  enabled: true\n  visibleDevices: "all"\n'
    )
    _chart(workdir, values)
    result = run_cli("check", "--format", "json", "--select", "GPU701", "demo")
    findings = json.loads(result.output)["findings"]
    assert findings and all(_at(f) == FIRST_LINE for f in findings)


# --- the matcher on its own ---


def _rendered(text: str):
    docs, _errors = parse(Source("rendered.yaml", textwrap.dedent(text)))
    return docs[0].node


SIDECAR = textwrap.dedent(
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


def test_find_matches_an_item_after_a_conditional_one_by_its_name():
    with_sidecar = _rendered(
        """\
        spec:
          containers:
          - name: sidecar
            image: busybox
          - name: main
            image: nvcr.io/nvidia/pytorch:24.05-py3
        """
    )
    items = Items(SIDECAR, with_sidecar)
    hit = find(SIDECAR, ("spec", "containers", 1, "image"), items)
    assert (hit.line, hit.column) == (8, 5)
    # The sidecar is conditional and nothing else in the list can write its name.
    hit = find(SIDECAR, ("spec", "containers", 0, "image"), items)
    assert (hit.line, hit.column) == (5, 5)
    alone = _rendered(
        "spec:\n  containers:\n  - name: main\n    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
    )
    hit = find(SIDECAR, ("spec", "containers", 0, "image"), Items(SIDECAR, alone))
    assert (hit.line, hit.column) == (8, 5)
    # Without the rendered items, positions alone decide (and cannot).
    assert find(SIDECAR, ("spec", "containers", 0, "image")) is None


def test_a_literal_item_that_disagrees_with_the_rendered_one_is_not_its_writer():
    rendered = _rendered(
        "spec:\n  containers:\n  - name: sidecar\n    image: alpine\n"
        "  - name: main\n    image: nvcr.io/nvidia/pytorch:24.05-py3\n"
    )
    # The template's sidecar writes `image: busybox`: the rendered `alpine` one is not it.
    assert find(SIDECAR, ("spec", "containers", 0, "image"), Items(SIDECAR, rendered)) is None


def test_an_include_before_an_item_that_always_renders_does_not_hide_it():
    template = textwrap.dedent(
        """\
        env:
          {{- include "chart.env" . | nindent 2 }}
          - name: NVIDIA_VISIBLE_DEVICES
            value: all
        """
    )
    rendered = _rendered(
        "env:\n  - name: A\n    value: x\n  - name: NVIDIA_VISIBLE_DEVICES\n    value: all\n"
    )
    hit = find(template, ("env", 1, "value"), Items(template, rendered))
    assert (hit.line, hit.column) == (4, 5)
    # Conditional, the item may not have rendered: the include may have written the name.
    guarded = template.replace("  - name: NVIDIA", "  {{- if .Values.gpu }}\n  - name: NVIDIA")
    guarded += "  {{- end }}\n"
    assert find(guarded, ("env", 1, "value"), Items(guarded, rendered)) is None


def test_an_item_an_expression_renders_after_literal_ones_names_its_values_item():
    template = textwrap.dedent(
        """\
        env:
          - name: CUDA_MODULE_LOADING
            value: LAZY
          {{- with .Values.extraEnv }}
          {{- toYaml . | nindent 2 }}
          {{- end }}
        """
    )
    rendered = _rendered(
        "env:\n  - name: CUDA_MODULE_LOADING\n    value: LAZY\n  - name: HF_HOME\n"
        "    value: /cache\n  - name: NVIDIA_VISIBLE_DEVICES\n    value: all\n"
    )
    values = _rendered(
        "- name: HF_HOME\n  value: /cache\n- name: NVIDIA_VISIBLE_DEVICES\n  value: all\n"
    )
    items = Items(template, rendered, lambda path: {("extraEnv",): ("found", values)}[path])
    block = find_block(template, ("env", 2, "value"), items)
    assert (block.line, block.column, block.end_column) == (5, 3, 30)
    assert block.values_path == ("extraEnv", 1, "value")
    # Values that do not hold the name: the expression did not write it, nor did anything else.
    items = Items(template, rendered, lambda path: ("found", _rendered("- name: X\n")))
    assert find_block(template, ("env", 2, "value"), items) is None
    # Without values (a stream linted beside its chart), the writer is undecided.
    assert find_block(template, ("env", 2, "value"), Items(template, rendered)) is None


# --- the values key ---


def test_an_empty_list_holds_no_item_and_a_string_holds_what_tpl_renders(tmp_path):
    (tmp_path / "values.yaml").write_text(
        "extraEnvVars: []\nextraEnv: |\n  - name: A\nnothing:\nresources: {}\n"
    )
    (tmp_path / "prod.yaml").write_text("extraEnvVars:\n  - name: A\n    value: x\n")
    index = ValuesIndex(str(tmp_path), RenderOptions())
    template = "chart/templates/x.yaml"
    assert index.origin(template, ("extraEnvVars", 0, "value")) is None
    assert index.origin(template, ("nothing", 0)) is None
    assert index.origin(template, ("resources", "limits", "nvidia.com/gpu")) is None
    found = index.origin(template, ("extraEnv", 0, "name"))
    assert (found.key, found.location.line, found.location.column) == ("extraEnv.[0].name", 2, 1)
    assert index.effective(template, ("extraEnvVars",))[0] == "found"
    assert index.effective(template, ("nothing", 0)) == ("absent", None)

    layered = ValuesIndex(str(tmp_path), RenderOptions(values=(str(tmp_path / "prod.yaml"),)))
    found = layered.origin(template, ("extraEnvVars", 0, "value"))
    assert (found.location.file.endswith("prod.yaml"), found.location.line) == (True, 3)
    assert layered.origin(template, ("extraEnvVars", 1, "value")) is None  # lists replace

    assignment = "extraEnvVars[0].value=y"
    set_by = ValuesIndex(str(tmp_path), RenderOptions(set_values=(assignment,)))
    assert set_by.origin(template, ("extraEnvVars", 0, "value")).set_by == assignment
    assert set_by.effective(template, ("extraEnvVars",)) == ("unknown", None)
    assert set_by.origin(template, ("extraEnvVars", 1, "value")) is None
