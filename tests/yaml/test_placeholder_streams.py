"""A stream that stops parsing at a non-Helm placeholder ({{HF_TOKEN}} in a Secret, to be
filled in by sed or envsubst): the documents before it are linted, and the input error names
the placeholder at its line and column instead of asking for a Helm render."""

from __future__ import annotations

from tests.helpers import findings_json, where

_STREAM = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1
---
apiVersion: v1
kind: Secret
metadata:
  name: hf-secret
type: Opaque
stringData:
  hf_api_token: {{HF_TOKEN}}
"""


def test_documents_before_a_placeholder_are_linted(tmp_path):
    path = tmp_path / "serve.yaml"
    path.write_text(_STREAM)
    report = findings_json(str(path), "--select", "GPU101")
    assert where(report["findings"]) == [("GPU101", 11, 11)]
    (error,) = report["errors"]
    assert (error["path"], error["line"], error["column"]) == (str(path), 19, 17)
    assert "{{HF_TOKEN}} is a placeholder to fill in" in error["message"]
    assert "the documents before it were linted" in error["message"]
    assert "helm template" not in error["message"]


def test_a_placeholder_in_the_first_document_claims_nothing_was_linted(tmp_path):
    path = tmp_path / "secret.yaml"
    path.write_text(_STREAM.split("---\n", 1)[1])
    report = findings_json(str(path))
    (error,) = report["errors"]
    assert (error["line"], error["column"]) == (7, 17)
    assert "placeholder to fill in" in error["message"]
    assert "documents before it" not in error["message"]


def test_the_error_names_the_placeholder_that_stopped_parsing(tmp_path):
    # An earlier document's {{ }} inside a valid string is not the cause: the one near the
    # failure is.
    text = _STREAM.replace(
        "  name: p\n", '  name: p\n  annotations:\n    summary: "GPU {{ $labels.gpu }} is hot"\n'
    )
    path = tmp_path / "serve.yaml"
    path.write_text(text)
    report = findings_json(str(path), "--select", "GPU101")
    assert where(report["findings"]) == [("GPU101", 13, 11)]
    (error,) = report["errors"]
    assert (error["line"], error["column"]) == (21, 17)
    assert "{{HF_TOKEN}} is a placeholder to fill in" in error["message"]
