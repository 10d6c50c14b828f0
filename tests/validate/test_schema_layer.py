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
