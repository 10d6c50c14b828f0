"""NVIDIA chart values of a kustomize ``helmCharts`` entry with ``valuesMerge: merge`` and
``additionalValuesFiles`` (issue 27): judged as kustomize hands them to Helm
(``gpulint/inputs/kustomize_chart_values.py``), each finding where its value is written."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.helpers import findings_json, placed, put_files


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # findings name files relative to the working directory


def _lint(root: Path, files: dict[str, str]) -> dict:
    put_files(root, files)
    return findings_json("kustomization.yaml", "--select", "GPU401,GPU402")


def _kustomization(fields: str) -> str:
    head = """\
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        helmCharts:
          - name: gpu-operator
            repo: https://helm.ngc.nvidia.com/nvidia
            version: v25.3.1
            releaseName: gpu-operator
        """
    return textwrap.dedent(head) + textwrap.indent(textwrap.dedent(fields), "    ")


VALUES = """
driver:
  enabled: false
mig:
  strategy: mixd
"""


def test_gpu402_merge_keeps_the_files_value_over_the_inline_one(tmp_path):
    text = _kustomization("""\
        valuesFile: values.yaml
        valuesMerge: merge
        valuesInline:
          mig:
            strategy: mixed
        """)
    found = _lint(tmp_path, {"kustomization.yaml": text, "values.yaml": VALUES})
    # merge: the file's mixd stays (override would have put the inline mixed over it)
    assert placed(found) == [("GPU402", "values.yaml", 4, 13)]
    override = text.replace("valuesMerge: merge", "valuesMerge: override")
    assert _lint(tmp_path, {"kustomization.yaml": override})["findings"] == []


def test_gpu401_merge_inline_values_fill_only_what_the_file_lacks(tmp_path):
    text = _kustomization("""\
        valuesFile: values.yaml
        valuesMerge: merge
        valuesInline:
          mig:
            strategy: singel
          devicePlugin:
            version: latest
        """)
    values = VALUES.replace("mixd", "mixed")
    found = _lint(tmp_path, {"kustomization.yaml": text, "values.yaml": values})
    # mig.strategy singel is under the file's mixed: not the chart's; devicePlugin fills
    assert placed(found) == [("GPU401", "kustomization.yaml", 14, 18)]


def test_gpu402_merge_fills_a_null_of_the_file(tmp_path):
    text = _kustomization("""\
        valuesFile: values.yaml
        valuesMerge: merge
        valuesInline:
          mig:
            strategy: mixd
        """)
    values = "mig:\n  strategy: null\n"
    found = _lint(tmp_path, {"kustomization.yaml": text, "values.yaml": values})
    assert placed(found) == [("GPU402", "kustomization.yaml", 12, 19)]


def test_merge_over_an_empty_file_value_is_not_established(tmp_path):
    # mergo's versions disagree on a false, 0, "" or [] under an inline value: no value of
    # the release is judged (not even the file's devicePlugin.version: latest)
    text = _kustomization("""\
        valuesFile: values.yaml
        valuesMerge: merge
        valuesInline:
          mig:
            strategy: mixd
        """)
    values = 'mig:\n  strategy: ""\ndevicePlugin:\n  version: latest\n'
    found = _lint(tmp_path, {"kustomization.yaml": text, "values.yaml": values})
    assert found["findings"] == [] and found["errors"] == []


def test_merge_without_a_values_file_reads_no_inline_values(tmp_path):
    # under the chart's own values.yaml, which is not in the repository
    text = _kustomization("""\
        valuesMerge: merge
        valuesInline:
          mig:
            strategy: mixd
        """)
    assert _lint(tmp_path, {"kustomization.yaml": text})["findings"] == []
    override = text.replace("valuesMerge: merge", "valuesMerge: override")
    found = _lint(tmp_path, {"kustomization.yaml": override})
    assert placed(found) == [("GPU402", "kustomization.yaml", 11, 19)]


def test_gpu402_additional_values_files_over_the_file_and_inline_in_order(tmp_path):
    text = _kustomization("""\
        valuesFile: values.yaml
        additionalValuesFiles:
          - first.yaml
          - second.yaml
        valuesInline:
          mig:
            strategy: singel
        """)
    files = {
        "kustomization.yaml": text,
        "values.yaml": VALUES,
        "first.yaml": "# first\nmig:\n  strategy: mixxed\n",
        "second.yaml": "# second\ndevicePlugin:\n  version: latest\n",
    }
    found = _lint(tmp_path, files)
    # the file's mixd and the inline singel are under first.yaml's mixxed
    assert placed(found) == [
        ("GPU402", "first.yaml", 3, 13),
        ("GPU401", "second.yaml", 3, 12),
    ]
    files["second.yaml"] = "mig:\n  strategy: mixed\n"
    # a later additional file overrides first.yaml's value: nothing to report
    assert _lint(tmp_path, files)["findings"] == []


def test_gpu402_additional_values_files_without_a_values_file(tmp_path):
    text = _kustomization("""\
        additionalValuesFiles: [more.yaml]
        valuesInline:
          mig:
            strategy: mixd
        """)
    files = {"kustomization.yaml": text, "more.yaml": "devicePlugin:\n  version: latest\n"}
    found = _lint(tmp_path, files)
    assert placed(found) == [
        ("GPU402", "kustomization.yaml", 11, 19),
        ("GPU401", "more.yaml", 2, 12),
    ]
    merge = "valuesMerge: replace\n    additionalValuesFiles:"
    replace = text.replace("additionalValuesFiles:", merge)
    # replace: the inline values, then the additional file over them
    assert placed(_lint(tmp_path, {"kustomization.yaml": replace})) == [
        ("GPU402", "kustomization.yaml", 12, 19),  # a line further down
        ("GPU401", "more.yaml", 2, 12),
    ]


def test_additional_values_files_not_read_are_input_errors_at_their_names(tmp_path):
    (tmp_path.parent / "outside.yaml").write_text("mig:\n  strategy: mixd\n")
    (tmp_path / "linked.yaml").symlink_to(tmp_path.parent / "outside.yaml")
    (tmp_path / "folder").mkdir()
    text = _kustomization("""\
        additionalValuesFiles:
          - missing.yaml
          - ../outside.yaml
          - linked.yaml
          - https://example.com/values.yaml
          - "values/\\0plugin.yaml"
          - folder
        """)
    found = _lint(tmp_path, {"kustomization.yaml": text})
    assert found["findings"] == []
    errors = [(e["path"], e["line"], e["column"], e["message"]) for e in found["errors"]]
    assert [e[:3] for e in errors] == [("kustomization.yaml", line, 9) for line in range(9, 15)]
    assert "'missing.yaml' not found" in errors[0][3]
    assert "'../outside.yaml' lies outside the linted tree" in errors[1][3]
    assert "'linked.yaml' lies outside the linted tree" in errors[2][3]
    assert "remote values file 'https://example.com/values.yaml' not fetched" in errors[3][3]
    assert "'values/\\x00plugin.yaml' holds a NUL character" in errors[4][3]
    assert "'folder' is a folder, not a file" in errors[5][3]
