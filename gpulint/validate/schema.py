"""JSON Schema validation whose problems point at the offending key.

Schemas live in ``gpulint/schemas/*.json``. A validator is built once per
schema (building one per document costs 15x more), and jsonschema is imported
only when a run validates something.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class SchemaProblem:
    path: tuple  # to the offending key or value, relative to the validated instance
    message: str
    at: str  # "key" (an unknown or misplaced key) or "value" (a wrong value)


@cache
def load_schema(name: str) -> dict:
    """A schema shipped in ``gpulint/schemas`` by file name (``config.schema.json``)."""
    text = resources.files("gpulint.validate").joinpath("schemas", name).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator(name: str) -> Any:
    from jsonschema.validators import validator_for

    schema = load_schema(name)
    cls = validator_for(schema)
    return cls(schema)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice most like ``word`` (a case-only difference counts), or None."""
    choices = sorted(choices)
    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if match:
        return match[0]
    lowered = {c.lower(): c for c in choices}
    return lowered.get(word.lower())


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    match = closest(word, choices)
    return f"; did you mean {match!r}?" if match else ""


def check(instance: Any, schema: str | Any) -> list[SchemaProblem]:
    """Problems of ``instance`` against a shipped schema name or a prepared validator."""
    validator = _validator(schema) if isinstance(schema, str) else schema
    problems = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path))):
        problems.extend(_explain(error))
    return problems


def _explain(error: Any) -> list[SchemaProblem]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema.get("properties") or {}).keys())
        patterns = error.schema.get("patternProperties") or {}
        import re

        extra = [
            k
            for k in error.instance
            if k not in allowed and not any(re.search(p, k) for p in patterns)
        ]
        return [
            SchemaProblem(path + (k,), f"unknown key {k!r}{did_you_mean(k, allowed)}", "key")
            for k in extra
        ]
    if error.validator == "required":
        return [SchemaProblem(path, error.message, "key")]
    if error.validator == "enum":
        choices = [str(c) for c in error.validator_value]
        hint = did_you_mean(str(error.instance), choices)
        return [
            SchemaProblem(
                path,
                f"{error.instance!r} is not one of {', '.join(choices)}{hint}",
                "value",
            )
        ]
    return [SchemaProblem(path, error.message, "value")]
