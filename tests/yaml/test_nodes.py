"""The node classes the C composer builds while gpulint parses, and only then."""

from __future__ import annotations

from ruamel.yaml import YAML, nodes

from gpulint.core.sources import Source
from gpulint.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from gpulint.yaml.parse import parse

TEXT = "a: !!str 1\nb: [x, {c: d}]\n"


def test_parse_builds_our_nodes_with_ruamel_fields():
    (document,), errors = parse(Source("m.yaml", TEXT))
    assert errors == []
    root = document.node
    assert type(root) is MappingNode
    (a_key, a_value), (b_key, b_value) = root.value
    assert type(a_key) is ScalarNode and a_key.value == "a" and a_key.style == ""
    assert str(a_value.ctag) == "tag:yaml.org,2002:str" and a_value.value == "1"
    assert type(b_value) is SequenceNode and b_value.flow_style is True
    assert (b_value.start_mark.line, b_value.start_mark.column) == (1, 3)
    assert (b_value.end_mark.line, b_value.end_mark.column) == (1, 14)
    assert document.data == {"a": "1", "b": ["x", {"c": "d"}]}
    # Still ruamel's nodes to anything written for them.
    assert isinstance(root, nodes.MappingNode) and isinstance(a_key, nodes.ScalarNode)


def test_ruamel_keeps_its_own_classes_outside_a_parse():
    parse(Source("m.yaml", TEXT))
    node = YAML(typ="safe", pure=False).compose(TEXT)
    assert type(node) is nodes.MappingNode
    assert type(node.value[0][0]) is nodes.ScalarNode


def test_a_parse_error_gives_ruamel_its_classes_back():
    _documents, errors = parse(Source("bad.yaml", "a: [1, 2\n"))
    assert errors and errors[0].line == 2
    node = YAML(typ="safe", pure=False).compose("k: v\n")
    assert type(node) is nodes.MappingNode
