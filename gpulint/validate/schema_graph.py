"""A config schema read as a graph before any instance meets it: its patterns, and its
``$ref`` loops.

A custom rule's schema is walked by keyword (``properties`` holds subschemas by
name, ``pattern`` holds a regular expression, ``enum`` holds data), so what is
found is what jsonschema will apply. Two things are found here:

- every regular expression (``pattern`` values, ``patternProperties`` keys) with
  its path, so each is compiled (:mod:`gpulint.validate.linear_re`) and any
  problem is reported at it when the config is read;
- a loop of subschemas that apply to the same instance (``$ref``, ``allOf``,
  ``not``, ``if``...) without passing through a keyword that descends into a part
  of it (``properties``, ``items``...): validating any instance would recurse
  forever (``{"$ref": "#"}``). A tree (``properties: {children: {items: {$ref:
  "#"}}}``) descends at each turn and stays allowed. A local ``$ref`` that names
  nothing is reported too (jsonschema would fail on the first instance).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Keywords whose subschemas apply to the instance itself, and those that apply to a
# part of it; "map": {name: subschema}; "list": [subschema]; "one": subschema.
IN_PLACE = {
    "allOf": "list",
    "anyOf": "list",
    "oneOf": "list",
    "not": "one",
    "if": "one",
    "then": "one",
    "else": "one",
    "dependentSchemas": "map",
    "dependencies": "map",  # draft 4-7: a schema (in place) or a list of names
}
DESCENDING = {
    "properties": "map",
    "patternProperties": "map",
    "additionalProperties": "one",
    "unevaluatedProperties": "one",
    "propertyNames": "one",
    "items": "one",  # a list of subschemas before draft 2020-12
    "prefixItems": "list",
    "additionalItems": "one",
    "unevaluatedItems": "one",
    "contains": "one",
}
DEFINITIONS = {"$defs": "map", "definitions": "map"}
REFS = ("$ref", "$dynamicRef", "$recursiveRef")


def children(schema: dict) -> Iterator[tuple[tuple, Any, bool | None]]:
    """(path from ``schema``, subschema, applies in place?) of each subschema; None for
    definitions, which apply only when referred to."""
    for table, in_place in ((IN_PLACE, True), (DESCENDING, False), (DEFINITIONS, None)):
        for keyword, shape in table.items():
            value = schema.get(keyword)
            if isinstance(value, dict) and shape == "map":
                for name, sub in value.items():
                    if isinstance(sub, dict | bool):
                        yield (keyword, name), sub, in_place
            elif isinstance(value, list) and shape in ("list", "one"):
                for index, sub in enumerate(value):
                    if isinstance(sub, dict | bool):
                        yield (keyword, index), sub, in_place
            elif isinstance(value, dict | bool) and shape == "one":
                yield (keyword,), value, in_place


class SchemaGraph:
    """Every subschema reachable from the root (by keyword), with its path."""

    def __init__(self, root: Any) -> None:
        self.nodes: list[tuple[tuple, dict, tuple]] = []  # (path, schema, resource path)
        self.anchors: dict[tuple[tuple, str], int] = {}  # (resource path, anchor) -> node
        self.by_path: dict[tuple, int] = {}
        stack: list[tuple[tuple, Any, tuple]] = [((), root, ())]
        while stack:
            path, schema, resource = stack.pop()
            if isinstance(schema, bool):
                self.by_path[path] = len(self.nodes)
                self.nodes.append((path, {}, resource))  # true/false: nothing inside
            if not isinstance(schema, dict):
                continue
            ident = schema.get("$id")
            if isinstance(ident, str) and ident.startswith("#"):
                self.anchors[(resource, ident[1:])] = len(self.nodes)  # drafts 6-7
            elif isinstance(ident, str) and path:
                resource = path  # an embedded resource: its "#..." refer to it
            for keyword in ("$anchor", "$dynamicAnchor"):
                name = schema.get(keyword)
                if isinstance(name, str):
                    self.anchors[(resource, name)] = len(self.nodes)
            self.by_path[path] = len(self.nodes)
            self.nodes.append((path, schema, resource))
            for sub_path, sub, _in_place in children(schema):
                stack.append((path + sub_path, sub, resource))

    def patterns(self) -> Iterator[tuple[tuple, str, str]]:
        """(path, pattern, "value" or "key") of every regular expression."""
        for path, schema, _resource in self.nodes:
            if isinstance(schema.get("pattern"), str):
                yield path + ("pattern",), schema["pattern"], "value"
            properties = schema.get("patternProperties")
            if isinstance(properties, dict):
                for key in properties:
                    yield path + ("patternProperties", key), key, "key"

    def resolve(self, resource: tuple, ref: str) -> int | None:
        """The node a local reference (``#``, ``#/pointer``, ``#anchor``) names, or None."""
        fragment = _unquote(ref[1:])
        if not fragment.startswith("/") and fragment:
            return self.anchors.get((resource, fragment))
        path = resource
        for token in fragment.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            path = path + (int(token) if token.isdigit() and self._is_list(path) else token,)
        return self.by_path.get(path)

    def _is_list(self, path: tuple) -> bool:
        # "#/allOf/0": a list index, not a key "0"
        return len(path) > 0 and path[-1] in ("allOf", "anyOf", "oneOf", "prefixItems", "items")

    def problems(self) -> Iterator[tuple[tuple, str]]:
        """(path, message): local references to nothing, and loops that never descend."""
        edges: list[list[int]] = [[] for _ in self.nodes]  # applying to the same instance
        applied: list[list[int]] = [[] for _ in self.nodes]  # to it or a part of it
        for index, (path, schema, resource) in enumerate(self.nodes):
            for sub_path, _sub, in_place in children(schema):
                if in_place is not None:
                    (edges if in_place else applied)[index].append(self.by_path[path + sub_path])
            for ref_keyword in REFS:
                ref = schema.get(ref_keyword)
                if not isinstance(ref, str) or not ref.startswith("#"):
                    continue  # a shipped schema (validate/refs.py): its own refs are fine
                target = self.resolve(resource, ref)
                if target is None:
                    yield path + (ref_keyword,), f"$ref {ref!r} names nothing in this schema"
                else:
                    edges[index].append(target)
        loop = _loop(edges, _reachable(edges, applied))
        if loop is not None:
            start, back = loop
            where = self.nodes[start][0]
            named = [k for k in REFS if k in self.nodes[start][1]]
            yield (
                where + tuple(named[:1]),
                "this schema refers back to itself without descending into a property or "
                f"item (through {_shown(self.nodes[back][0])}), so validation would never end",
            )


def _unquote(text: str) -> str:
    """Percent-decoding of a URI fragment (urllib.parse costs start-up; this is all it takes)."""
    if "%" not in text:
        return text
    parts = text.split("%")
    raw = bytearray(parts[0].encode())
    for part in parts[1:]:
        try:
            raw += bytes.fromhex(part[:2]) + part[2:].encode()
        except ValueError:
            raw += ("%" + part).encode()
    return raw.decode("utf-8", "replace")


def _shown(path: tuple) -> str:
    return "#/" + "/".join(str(p) for p in path) if path else "#"


def _reachable(edges: list[list[int]], applied: list[list[int]]) -> list[int]:
    """The nodes validation can reach from the root (a definition nobody names is not)."""
    seen = {0} if edges else set()
    stack = list(seen)
    while stack:
        node = stack.pop()
        for target in edges[node] + applied[node]:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return sorted(seen)


def _loop(edges: list[list[int]], roots: list[int]) -> tuple[int, int] | None:
    """(a node on a cycle, the node it returns to) or None; iterative depth-first search."""
    state = [0] * len(edges)  # 0 unseen, 1 on the stack, 2 done
    for root in roots:
        if state[root]:
            continue
        stack = [(root, iter(edges[root]))]
        state[root] = 1
        while stack:
            node, pending = stack[-1]
            target = next(pending, None)
            if target is None:
                state[node] = 2
                stack.pop()
            elif state[target] == 1:
                return node, target
            elif state[target] == 0:
                state[target] = 1
                stack.append((target, iter(edges[target])))
    return None
