"""``$ref`` in schemas from a config file: only local definitions and the shipped schemas.

jsonschema's default registry retrieves any other reference with ``urlopen`` (and
``file://`` opens local files, ``/dev/zero`` included). gpulint fetches nothing
while linting, so a config schema may refer only to its own definitions
(``#/$defs/...``, ``#anchor``) and to the schemas gpulint ships, by their ``$id``;
any other reference is a config error at its line, and the registry given to the
validator refuses to retrieve anything should one slip through.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache
from typing import Any

from gpulint.core.findings import printable

REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


@cache
def shipped() -> dict[str, dict]:
    """The shipped schemas by ``$id``."""
    found = {}
    folder = os.path.join(os.path.dirname(__file__), "schemas")  # as schema.schema_path
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                schema = json.load(handle)
            if isinstance(schema.get("$id"), str):
                found[schema["$id"]] = schema
    return found


def allowed(ref: str) -> bool:
    return ref.startswith("#") or ref.split("#", 1)[0] in shipped()


def refused(ref: str) -> str:
    shown = printable(ref if len(ref) <= 80 else ref[:77] + "...")
    return (
        f"$ref '{shown}' is not allowed: a schema here may refer only to its own definitions "
        "('#/$defs/...') or to a schema gpulint ships (by its $id); gpulint fetches nothing"
    )


def foreign_refs(schema: Any, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(path of the keyword, reference) of every reference that is not allowed."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in REF_KEYWORDS and isinstance(value, str):
                if not allowed(value):
                    yield path + (key,), value
            else:
                yield from foreign_refs(value, path + (key,))
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from foreign_refs(item, path + (index,))


def unresolvable(exc: BaseException) -> bool:
    """Whether jsonschema raised ``exc`` for a reference it could not resolve."""
    from referencing.exceptions import Unresolvable

    return isinstance(exc, Unresolvable)


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # never fetched, never opened


def registry() -> Any:
    """A referencing registry holding the shipped schemas and retrieving nothing else."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    return Registry(retrieve=_refuse).with_resources(  # type: ignore[call-arg]
        (uri, Resource.from_contents(schema, default_specification=DRAFT202012))
        for uri, schema in shipped().items()
    )
