"""JSON Schema validation whose problems point at the offending key: gpulint's one schema layer.

Shipped schemas live in ``gpulint/validate/schemas/*.json``; a validator is built
once per schema (building one per document costs 15x more). An instance that
:mod:`gpulint.validate.quick` can vouch for is never shown to jsonschema, and
jsonschema is imported only when a run needs it (its import would be most of a
one-file run). The custom rules of the config file get their validators here too
(:func:`make_validator`), with keywords of their own.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from gpulint.core.record import field, record
from gpulint.validate import quick, refs

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
# A keyword of one's own: (the keyword's value in the schema, the instance) -> a problem or None.
Keyword = Callable[[Any, Any], "str | None"]


@record(frozen=True)
class SchemaProblem:
    """One violation, as data: callers build their own messages from ``keyword`` and
    ``params``, never from ``message`` (jsonschema's English, kept for display)."""

    path: tuple  # to the offending key or value, relative to the validated instance
    message: str
    at: str  # "key" (an unknown or misplaced key) or "value" (a wrong value)
    keyword: str = ""  # the failing JSON Schema keyword: "required", "type", "minimum"...
    # What the keyword needed: required {"property"}, additionalProperties {"key",
    # "allowed"}, type {"types"}, minimum {"minimum"}, enum {"choices"}; else {}.
    params: dict[str, Any] = field(default_factory=dict)


@cache
def load_schema(name: str) -> dict:
    """A schema shipped in ``gpulint/validate/schemas`` by file name (``config.schema.json``)."""
    with open(schema_path(name), encoding="utf-8") as handle:
        return json.load(handle)


def schema_path(name: str) -> str:
    """The file of a shipped schema. Beside the module, not through importlib.resources:
    that import (with tempfile and zipfile) would be every run's start-up."""
    return os.path.join(SCHEMAS, name)


@cache
def _validator(name: str) -> Any:
    from jsonschema.validators import validator_for

    schema = load_schema(name)
    cls = validator_for(schema)
    return cls(schema)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice most like ``word`` (a case-only difference counts), or None."""
    choices = sorted(choices)
    import difflib  # only to suggest a name

    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if match:
        return match[0]
    lowered = {c.lower(): c for c in choices}
    return lowered.get(word.lower())


# An object schema's annotation (validates nothing): {"source": ..., "keys": {block: [keys]}},
# the keys the tool declares inside each of the object's blocks, one level down. A key
# written one level too high is named with its place ("did you mean 'driver.manager'?").
NESTED_KEYS = "x-nested-keys"
# Most places one hint names; a key more blocks declare (env, enabled) is named with the first.
_MAX_PLACES = 3


def did_you_mean(
    word: str, choices: Iterable[str], nested: Mapping[str, Iterable[str]] | None = None
) -> str:
    """``; did you mean 'x'?`` for the choice most like ``word``, or "". With ``nested``
    (block -> the keys declared inside it), a word that is a key of a block is named with
    its dotted path: a key exactly so declared before any close choice, and a close key
    of a block only when it is closer than every choice."""
    choices = sorted(choices)
    places = {block: set(keys) for block, keys in (nested or {}).items()}
    if word in {key for keys in places.values() for key in keys}:
        return _places(word, places)
    match = closest(word, choices)
    below = closest(word, {key for keys in places.values() for key in keys}) if places else None
    if below is not None and (match is None or _likeness(word, below) > _likeness(word, match)):
        return _places(below, places)
    return f"; did you mean {match!r}?" if match else ""


def _likeness(word: str, other: str) -> float:
    import difflib  # only to suggest a name

    return difflib.SequenceMatcher(None, word.lower(), other.lower()).ratio()


def _places(key: str, places: Mapping[str, set]) -> str:
    paths = sorted(f"{block}.{key}" for block, keys in places.items() if key in keys)
    if len(paths) == 1:
        return f"; did you mean {paths[0]!r}?"
    if len(paths) <= _MAX_PLACES:
        listed = ", ".join(repr(p) for p in paths[:-1])
        return f"; did you mean {listed} or {paths[-1]!r}?"
    shown = ", ".join(paths[:_MAX_PLACES])
    more = len(paths) - _MAX_PLACES
    return f"; did you mean {key!r} inside a block ({shown} and {more} more)?"


def nested_keys(schema: Mapping[str, Any]) -> dict[str, list[str]]:
    """The ``x-nested-keys`` of an object schema: block -> the keys declared inside it."""
    found = schema.get(NESTED_KEYS)
    keys = found.get("keys") if isinstance(found, dict) else None
    return keys if isinstance(keys, dict) else {}


# Whether a pattern matches somewhere in a text: re.search for gpulint's own schemas, a
# linear-time search for patterns from a config file (validate/linear_re.py).
Search = Callable[[str, str], bool]


def _re_search(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def check(
    instance: Any,
    schema: str | Any,
    search: Search = _re_search,
    unfilled: Callable[[Any], bool] | None = None,
) -> list[SchemaProblem]:
    """Problems of ``instance`` against a shipped schema name or a prepared validator
    (``search``: the one its patterns were made with, :func:`make_validator`). A value
    ``unfilled`` says is still to be filled in (a placeholder such as Flux's ``${VAR:=4}``,
    replaced before the tool reads it) has no problem of its own: its type is not known yet."""
    if isinstance(schema, str) and quick.certainly_valid(instance, load_schema(schema)):
        return []
    validator = _validator(schema) if isinstance(schema, str) else schema
    problems = []
    reported: dict[tuple, int] = {}  # (path, schema) -> required properties reported so far
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path))):
        if unfilled is not None and unfilled(error.instance):
            continue
        problems.extend(_explain(error, reported, search))
    return problems


def _explain(error: Any, reported: dict[tuple, int], search: Search) -> list[SchemaProblem]:
    path = tuple(error.absolute_path)
    keyword = error.validator
    if keyword == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema.get("properties") or {}).keys())
        patterns = error.schema.get("patternProperties") or {}
        extra = [
            k
            for k in error.instance
            if k not in allowed and not any(search(p, k) for p in patterns)
        ]
        return [
            SchemaProblem(
                path + (k,),
                f"unknown key {k!r}{did_you_mean(k, allowed, nested_keys(error.schema))}",
                "key",
                keyword,
                {"key": k, "allowed": sorted(allowed)},
            )
            for k in extra
        ]
    if keyword == "required":
        # jsonschema yields one error per missing property, in the order ``required``
        # lists them; the n-th error here is the n-th missing one.
        missing = [p for p in error.validator_value if p not in error.instance]
        key = (path, id(error.schema))
        index = reported.get(key, 0)
        reported[key] = index + 1
        found = {"property": missing[index]} if index < len(missing) else {}
        return [SchemaProblem(path, error.message, "key", keyword, found)]
    if keyword == "enum":
        choices = [str(c) for c in error.validator_value]
        hint = did_you_mean(str(error.instance), choices)
        return [
            SchemaProblem(
                path,
                f"{error.instance!r} is not one of {', '.join(choices)}{hint}",
                "value",
                keyword,
                {"choices": choices},
            )
        ]
    params: dict[str, Any] = {}
    if keyword == "type":
        types = error.validator_value
        params = {"types": (types,) if isinstance(types, str) else tuple(types)}
    elif keyword in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"):
        params = {keyword: error.validator_value}
    return [SchemaProblem(path, error.message, "value", keyword, params)]


class InvalidSchema(Exception):
    """A schema that is not valid JSON Schema (of its own draft)."""

    def __init__(self, path: tuple, message: str) -> None:
        super().__init__(message)
        self.path, self.message = path, message


def make_validator(
    schema: dict, keywords: Mapping[str, Keyword] | None = None, search: Search | None = None
) -> Any:
    """A validator for the schema's draft with extra keywords; raises :class:`InvalidSchema`.
    With ``search``, the keywords that match regular expressions (``pattern``,
    ``patternProperties``, ``additionalProperties`` beside them) match with it."""
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import extend, validator_for

    base = validator_for(schema)
    try:
        base.check_schema(schema)
    except SchemaError as exc:
        raise InvalidSchema(tuple(exc.path), exc.message) from None
    checks = {name: _keyword(check) for name, check in (keywords or {}).items()}
    if search is not None:
        checks.update(_pattern_keywords(search, base.VALIDATORS.get("additionalProperties")))
    cls = extend(base, checks) if checks else base
    return cls(schema, registry=refs.registry())  # retrieves nothing (validate/refs.py)


def _keyword(check: Keyword) -> Callable[..., Iterator[Any]]:
    def validate(validator: Any, bound: Any, instance: Any, schema: dict) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        problem = check(bound, instance)
        if problem is not None:
            yield ValidationError(problem)

    return validate


def _pattern_keywords(search: Search, additional: Any) -> dict[str, Callable[..., Iterator[Any]]]:
    """jsonschema's keywords that match patterns, matching with ``search`` (their
    messages as jsonschema writes them)."""

    def pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        if validator.is_type(instance, "string") and not search(pattern, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(validator: Any, table: dict, instance: Any, schema: dict) -> Iterator:
        if not validator.is_type(instance, "object"):
            return
        for pattern, subschema in table.items():
            for key, value in instance.items():
                if search(pattern, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)

    def additional_properties(validator: Any, extra: Any, instance: Any, schema: dict) -> Iterator:
        from jsonschema.exceptions import ValidationError

        patterns = schema.get("patternProperties")
        if not patterns or not validator.is_type(instance, "object"):
            yield from additional(validator, extra, instance, schema)  # no pattern to match
            return
        known = schema.get("properties", {})
        extras = [k for k in instance if k not in known and not any(search(p, k) for p in patterns)]
        if validator.is_type(extra, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif not extra and extras:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            shown = ", ".join(repr(each) for each in sorted(patterns))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {shown}")

    return {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
