"""The parser: documents, positions of every key, value and item, and YAML 1.1 scalars."""

from __future__ import annotations

import textwrap

import pytest

from gpulint.core.sources import Source
from gpulint.model.resource import resources_of
from gpulint.yaml.parse import parse
from gpulint.yaml.positions import locate


def docs(text: str, path: str = "f.yaml"):
    documents, errors = parse(Source(path, textwrap.dedent(text).lstrip("\n")))
    return documents, errors


MULTI = """
# leading comment
apiVersion: v1
kind: Pod
metadata:
  name: a
spec:
  containers:
    - name: c
      image: "img:1"
      resources:
        limits: {nvidia.com/gpu: 2}
---
---
# only a comment
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: b}
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: c, namespace: ns}
"""


def test_multi_document_stream_skips_empty_documents_and_counts_them():
    documents, errors = docs(MULTI)
    assert errors == []
    assert [d.index for d in documents] == [0, 3]
    assert [d.line for d in documents] == [2, 16]


def test_list_items_become_resources_with_their_path():
    documents, _ = docs(MULTI)
    resources = list(resources_of(documents[1]))
    assert [(r.kind, r.name, r.namespace, r.prefix) for r in resources] == [
        ("Pod", "b", None, ("items", 0)),
        ("Deployment", "c", "ns", ("items", 1)),
    ]


@pytest.mark.parametrize(
    ("path", "at", "span"),
    [
        # key and its scalar value on one line
        (("metadata", "name"), "key", (5, 3, 5, 10)),
        (("metadata", "name"), "value", (5, 9, 5, 10)),
        # a quoted value: the span covers the quotes
        (("spec", "containers", 0, "image"), "value", (9, 14, 9, 21)),
        # a sequence item that is a mapping: its first entry
        (("spec", "containers", 0), "key", (8, 7, 8, 14)),
        # a key inside a flow mapping
        (
            ("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"),
            "key",
            (11, 18, 11, 35),
        ),
        (
            ("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"),
            "value",
            (11, 34, 11, 35),
        ),
        # a key whose value is a mapping: the key alone
        (("spec",), "key", (6, 1, 6, 5)),
        # past what exists: the deepest node that does
        (("spec", "containers", 0, "resources", "requests", "cpu"), "key", (10, 7, 10, 16)),
        (("spec", "containers", 7), "key", (7, 3, 7, 13)),
    ],
)
def test_positions(path, at, span):
    documents, _ = docs(MULTI)
    location, _pointer = locate(documents[0], path, at)
    assert (location.line, location.column, location.end_line, location.end_column) == span


def test_json_pointer_escapes_slashes():
    documents, _ = docs(MULTI)
    _, pointer = locate(
        documents[0], ("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu")
    )
    assert pointer == "/spec/containers/0/resources/limits/nvidia.com~1gpu"


def test_json_file_positions():
    text = '{\n  "apiVersion": "v1",\n  "kind": "Pod",\n  "metadata": {"name": "j"}\n}\n'
    documents, errors = parse(Source("p.json", text))
    assert errors == []
    location, _ = locate(documents[0], ("metadata", "name"), "value")
    assert (location.line, location.column) == (4, 24)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ('"2"', "2"),
        ("0.5", 0.5),
        ("1e3", 1000.0),
        ("1.10", 1.1),
        ("yes", True),
        ("on", True),
        ("off", False),
        ("~", None),
        ("", None),
        ("0777", 511),
        ("0x1f", 31),
        ("500m", "500m"),
        ("'true'", "true"),
        ("v0.16.2", "v0.16.2"),
        ("!!python/object:os.system rm", "rm"),
        ("!!str 1", "1"),
    ],
)
def test_scalars_resolve_as_the_api_server_reads_them(text, value):
    documents, errors = docs(f"key: {text}\n")
    assert errors == []
    assert documents[0].data["key"] == value


def test_merge_keys_and_anchors():
    documents, errors = docs(
        """
        base: &base {cpu: "1", memory: 1Gi}
        limits:
          <<: *base
          memory: 2Gi
        """
    )
    assert errors == []
    assert documents[0].data["limits"] == {"memory": "2Gi", "cpu": "1"}
    location, _ = locate(documents[0], ("limits", "cpu"), "value")
    assert (location.line, location.column) == (1, 19)


def test_duplicate_keys_are_recorded_and_the_last_wins():
    documents, errors = docs(
        """
        limits:
          nvidia.com/gpu: 1
          nvidia.com/gpu: 4
        """
    )
    assert errors == []
    assert documents[0].data["limits"]["nvidia.com/gpu"] == 4
    (dup,) = documents[0].duplicates
    assert (dup.path, dup.key, dup.first_line, dup.line, dup.column) == (
        ("limits",),
        "nvidia.com/gpu",
        2,
        3,
        3,
    )
    location, _ = locate(documents[0], ("limits", "nvidia.com/gpu"), "value")
    assert location.line == 3


def test_helm_source_comments_attribute_each_document():
    documents, _ = docs(
        """
        ---
        # Source: trainer/templates/job.yaml
        apiVersion: batch/v1
        kind: Job
        metadata: {name: a}
        ---
        # Source: trainer/templates/svc.yaml
        apiVersion: v1
        kind: Service
        metadata: {name: b}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: c}
        """
    )
    assert [d.template for d in documents] == [
        "trainer/templates/job.yaml",
        "trainer/templates/svc.yaml",
        None,
    ]


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("a: [1\nb: 2\n", 2, 2, "flow sequence"),
        ("a: b\n\tc: d\n", 2, 1, "tab"),
        ("a: *nope\n", 1, 4, "undefined alias"),
        ("a: b: c\n", 1, 5, "mapping values are not allowed"),
        ("? [a]\n: b\n", 1, 3, "mapping key must be a scalar"),
    ],
)
def test_parse_errors_are_data_with_positions(text, line, column, words):
    documents, errors = parse(Source("bad.yaml", text))
    (error,) = errors
    assert (error.file, error.line, error.column) == ("bad.yaml", line, column)
    assert words in error.message


def test_documents_before_an_error_are_kept():
    documents, errors = parse(Source("x.yaml", "a: 1\n---\nb: [\n"))
    assert [d.data for d in documents] == [{"a": 1}]
    assert len(errors) == 1


def test_alias_bomb_is_refused_not_expanded():
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    documents, errors = parse(Source("bomb.yaml", "\n".join(lines) + "\n"))
    assert documents == []
    (error,) = errors
    assert "alias" in error.message and error.file == "bomb.yaml"
