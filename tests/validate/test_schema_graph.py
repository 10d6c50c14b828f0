"""A config schema as a graph: its patterns by keyword, its $ref loops that never descend."""

from __future__ import annotations

import pytest

from gpulint.validate.schema_graph import SchemaGraph

LOOP = "refers back to itself without descending"


@pytest.mark.parametrize(
    "schema, at",
    [
        ({"$ref": "#"}, ("$ref",)),
        ({"allOf": [{"$ref": "#"}]}, ("allOf", 0, "$ref")),
        ({"not": {"$ref": "#"}}, ("not", "$ref")),
        ({"if": {"$ref": "#"}, "then": {}}, ("if", "$ref")),
        ({"dependentSchemas": {"a": {"$ref": "#"}}}, ("dependentSchemas", "a", "$ref")),
        (
            {
                "$ref": "#/$defs/a",
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            },
            ("$defs", "b", "$ref"),
        ),
        (
            {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/x"}], "$defs": {"x": {"$ref": "#"}}},
            ("$defs", "x", "$ref"),
        ),
        ({"$ref": "#me", "$anchor": "me"}, ("$ref",)),
        ({"$dynamicRef": "#node", "$dynamicAnchor": "node"}, ("$dynamicRef",)),
        (
            {"properties": {"a": {"$id": "inner", "allOf": [{"$ref": "#"}]}}},
            ("properties", "a", "allOf", 0, "$ref"),
        ),
    ],
)
def test_a_loop_that_never_descends_is_found_at_its_reference(schema, at):
    ((path, message),) = SchemaGraph(schema).problems()
    assert path == at
    assert LOOP in message


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"children": {"items": {"$ref": "#"}}}},
        {
            "$ref": "#/$defs/node",
            "$defs": {"node": {"additionalProperties": {"$ref": "#/$defs/node"}}},
        },
        {"propertyNames": {"$ref": "#"}},  # names are strings: one step down
        {"$defs": {"a": {"$ref": "#/$defs/a"}}},  # never applied: jsonschema never follows it
        {"$ref": "#/$defs/ok", "$defs": {"ok": True}},
        {"$ref": "https://gpulint.dev/schemas/config.schema.json"},
        {"prefixItems": [{"$ref": "#"}], "contains": {"$ref": "#/prefixItems/0"}},
    ],
)
def test_descending_trees_and_shipped_schemas_are_fine(schema):
    assert list(SchemaGraph(schema).problems()) == []


def test_a_local_reference_to_nothing_is_found():
    problems = list(SchemaGraph({"properties": {"a": {"$ref": "#/$defs/missing"}}}).problems())
    assert problems == [
        (("properties", "a", "$ref"), "$ref '#/$defs/missing' names nothing in this schema")
    ]


def test_patterns_are_found_by_keyword_not_by_name():
    schema = {
        "properties": {
            "pattern": {"type": "string", "pattern": "^a+$"},  # a property named pattern
            "labels": {"patternProperties": {"^team-": {}, "(x+)+": {"pattern": "^b"}}},
        },
        "enum": [{"pattern": "(a+)+$"}],  # data, never a pattern
        "$defs": {"d": {"pattern": "%[0-9]"}},
    }
    found = sorted(SchemaGraph(schema).patterns())
    assert found == [
        (("$defs", "d", "pattern"), "%[0-9]", "value"),
        (("properties", "labels", "patternProperties", "(x+)+"), "(x+)+", "key"),
        (("properties", "labels", "patternProperties", "(x+)+", "pattern"), "^b", "value"),
        (("properties", "labels", "patternProperties", "^team-"), "^team-", "key"),
        (("properties", "pattern", "pattern"), "^a+$", "value"),
    ]
