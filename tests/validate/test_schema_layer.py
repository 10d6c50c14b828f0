"""gpulint/validate/schema.py: the one JSON Schema layer (shipped schemas, custom rules)."""

from __future__ import annotations

import pytest

from gpulint.validate import schema as schema_check


def _at_most(bound: int, instance: object) -> str | None:
    too_many = isinstance(instance, int) and instance > bound
    return f"{instance} is more than {bound}" if too_many else None


def test_a_keyword_of_ones_own_reports_through_the_same_problems() -> None:
    validator = schema_check.make_validator(
        {"type": "object", "properties": {"gpus": {"atMost": 2}}}, {"atMost": _at_most}
    )
    assert schema_check.check({"gpus": 3}, validator) == [
        schema_check.SchemaProblem(("gpus",), "3 is more than 2", "value", "atMost")
    ]
    assert schema_check.check({"gpus": 2}, validator) == []


def test_an_invalid_schema_says_where() -> None:
    with pytest.raises(schema_check.InvalidSchema) as found:
        schema_check.make_validator({"properties": {"gpus": {"type": 7}}})
    assert found.value.path == ("properties", "gpus", "type")
    assert "7 is not valid" in found.value.message


def test_a_shipped_schema_is_read_beside_the_module() -> None:
    path = schema_check.schema_path("config.schema.json")
    assert path.endswith("gpulint/validate/schemas/config.schema.json")
    assert schema_check.load_schema("config.schema.json")["type"] == "object"


def test_did_you_mean_names_a_key_of_a_block_with_its_place() -> None:
    nested = {"driver": ["manager", "env"], "toolkit": ["env"], "a": ["env"], "b": ["env"]}
    top = ["driver", "toolkit", "migManager"]
    # an exact key of one block before the close top-level choice
    assert schema_check.did_you_mean("manager", top) == "; did you mean 'migManager'?"
    assert schema_check.did_you_mean("manager", top, nested) == "; did you mean 'driver.manager'?"
    assert schema_check.did_you_mean("env", top, {"driver": ["env"], "toolkit": ["env"]}) == (
        "; did you mean 'driver.env' or 'toolkit.env'?"
    )
    assert schema_check.did_you_mean("env", top, nested) == (
        "; did you mean 'env' inside a block (a.env, b.env, driver.env and 1 more)?"
    )
    # a close key of a block only when it is closer than every top-level choice
    assert schema_check.did_you_mean("drivers", top, nested) == "; did you mean 'driver'?"
    assert schema_check.did_you_mean("manger", top, nested) == "; did you mean 'driver.manager'?"
    assert schema_check.did_you_mean("nothing", top, nested) == ""


def test_shipped_nested_keys_name_blocks_of_their_schema() -> None:
    for name in ("gpu-operator-values.schema.json", "device-plugin-values.schema.json"):
        schema = schema_check.load_schema(name)
        nested = schema_check.nested_keys(schema)
        assert "values.yaml" in schema[schema_check.NESTED_KEYS]["source"]
        assert nested and set(nested) <= set(schema["properties"])
        assert all(keys and keys == sorted(set(keys)) for keys in nested.values())
    operator = schema_check.nested_keys(schema_check.load_schema("gpu-operator-values.schema.json"))
    assert "manager" in operator["driver"]


def test_an_x_annotation_asserts_nothing() -> None:
    from gpulint.validate import quick

    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"driver": {}},
        schema_check.NESTED_KEYS: {"source": "a values.yaml", "keys": {"driver": ["manager"]}},
    }
    assert quick.certainly_valid({"driver": {"manager": {}}}, schema)  # not left to jsonschema
    assert not quick.certainly_valid({"manager": {}}, schema)
    validator = schema_check.make_validator(schema)
    assert schema_check.check({"driver": {"manager": {}}}, validator) == []
    ((problem,),) = [schema_check.check({"manager": {}}, validator)]
    assert problem.message == "unknown key 'manager'; did you mean 'driver.manager'?"
