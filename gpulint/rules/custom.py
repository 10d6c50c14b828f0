"""Custom rules from the config file: a JSON Schema that every target must satisfy.

Each becomes an ordinary :class:`Rule` whose resource check validates its
target (the pod template, the pod spec, each container, each GPU container, or
the whole object of a kind) and reports every validation failure at the key
where it happened, through :mod:`gpulint.validate.schema`.

Two keywords beyond JSON Schema compare Kubernetes quantities exactly:
``resourceMinimum`` and ``resourceMaximum`` (``memory: {resourceMinimum: 16Gi}``).

The schema comes from a config file that the linted tree may hold, so it is read as
a graph first (:mod:`gpulint.validate.schema_graph`): a ``$ref`` loop that never
descends, or a reference to nothing, is a config error at its key; every pattern is
compiled for a linear-time search (:mod:`gpulint.validate.linear_re`), and one that
cannot be is a config error at the pattern. While linting, a pattern that spends its
budget, or a validation that recurses past Python's limit, stops as the rule's error
at the config file (:class:`RuleError`), never as an internal error.
"""

from __future__ import annotations

import fnmatch
import json
import math
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

from gpulint.core.findings import InputError, Severity
from gpulint.model.kinds import table
from gpulint.model.resource import Resource
from gpulint.model.values.quantity import QuantityError, parse_quantity
from gpulint.rules.rule import Report, Rule, RuleError
from gpulint.validate import refs
from gpulint.validate import schema as schema_check
from gpulint.validate.linear_re import LinearPattern, PatternTooCostly, UnsupportedPattern
from gpulint.validate.schema_graph import SchemaGraph

TARGETS = ("Pod", "PodSpec", "Container", "GPUContainer")


def _quantity_keyword(minimum: bool) -> schema_check.Keyword:
    def check(bound: Any, instance: Any) -> str | None:
        try:
            value = parse_quantity(instance)
        except QuantityError as exc:
            return f"{instance!r} is not a Kubernetes quantity ({exc})"
        limit = parse_quantity(bound)
        if minimum and value < limit:
            return f"{instance} is less than the minimum {bound}"
        if not minimum and value > limit:
            return f"{instance} is more than the maximum {bound}"
        return None

    return check


KEYWORDS = {"resourceMinimum": _quantity_keyword(True), "resourceMaximum": _quantity_keyword(False)}


def _bad_quantities(schema: Any, path: tuple = ()) -> tuple[tuple, str] | None:
    """A resourceMinimum/Maximum bound that is not a quantity, found before any run."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("resourceMinimum", "resourceMaximum"):
                try:
                    parse_quantity(value)
                except QuantityError:
                    return path + (key,), f"{value!r} is not a Kubernetes quantity"
            else:
                found = _bad_quantities(value, path + (key,))
                if found:
                    return found
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            found = _bad_quantities(item, path + (i,))
            if found:
                return found
    return None


# Where a rule's schema and patterns are written: (file, line, column).
Site = tuple[str, int, int]


class Patterns:
    """A schema's regular expressions, each compiled once for a linear-time search."""

    def __init__(self) -> None:
        self._compiled: dict[str, LinearPattern] = {}

    def compile(self, pattern: str) -> LinearPattern:
        found = self._compiled.get(pattern)
        if found is None:
            found = self._compiled[pattern] = LinearPattern(pattern)
        return found

    def search(self, pattern: str, text: str) -> bool:
        return self.compile(pattern).search(text)


class SchemaCheck:
    """The resource check of one custom rule; picklable (the validator and compiled
    patterns are rebuilt lazily)."""

    def __init__(
        self,
        target: str,
        match: dict,
        schema: dict,
        message: str,
        sites: dict[str, Site] | None = None,
        schema_site: Site | None = None,
    ) -> None:
        self.target = target
        self.kinds = tuple(match.get("kinds", ()))
        self.namespaces = tuple(match.get("namespaces", ()))
        self.gpu = match.get("gpu")
        self.schema = schema
        self.message = message
        self.sites = sites or {}  # pattern -> where it is written
        self.schema_site = schema_site
        self.stopped = False  # a pattern spent its budget: the rule checks no more
        self._validator: Any = None
        self._patterns: Patterns | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_validator": None, "_patterns": None}

    def __call__(self, resource: Resource, ctx: Any) -> Iterator[Report]:
        if self.stopped:
            return
        if self.kinds and not _glob(self.kinds, resource.kind):
            return
        if self.namespaces and not _glob(self.namespaces, resource.namespace or "default"):
            return
        for path, instance, container in self._targets(resource):
            yield from self._validate(path, instance, container)

    def _targets(self, resource: Resource) -> Iterator[tuple[tuple, Any, str | None]]:
        if self.target not in TARGETS:
            if resource.kind == self.target:
                yield (), resource.obj, None
            return
        for pod in resource.pod_specs:
            if self.gpu is not None and pod.requests_gpu != self.gpu:
                continue
            if self.target == "PodSpec":
                yield pod.path, pod.spec, None
            elif self.target == "Pod":
                yield _pod_template(resource, pod)
            else:
                for container in pod.containers:
                    if self.target == "GPUContainer" and not container.gpus:
                        continue
                    yield container.path, container.data, container.name

    def _validate(self, path: tuple, instance: Any, container: str | None) -> Iterator[Report]:
        if self._validator is None:
            self._patterns = Patterns()
            search = self._patterns.search
            self._validator = schema_check.make_validator(self.schema, KEYWORDS, search)
        assert self._patterns is not None
        try:
            problems = schema_check.check(instance, self._validator, self._patterns.search)
        except PatternTooCostly as exc:
            self.stopped = True
            shown = exc.pattern if len(exc.pattern) <= 60 else exc.pattern[:57] + "..."
            raise RuleError(
                self._error(
                    self.sites.get(exc.pattern),
                    f"pattern {shown!r} needs more work than gpulint allows a config pattern "
                    "(it matches text in ways that never repeat); the rule stopped checking",
                )
            ) from None
        except RecursionError:
            raise RuleError(
                self._error(
                    None,
                    "validating an object against this schema recursed deeper than Python "
                    "allows; the object was not checked",
                )
            ) from None
        except Exception as exc:
            if not refs.unresolvable(exc):
                raise
            raise RuleError(
                self._error(None, "a $ref of this schema cannot be resolved; not checked")
            ) from None
        for problem in problems:
            yield Report(
                path + problem.path,
                f"{self.message}: {problem.message}",
                container=container,
                at=problem.at,
            )

    def _error(self, site: Site | None, message: str) -> InputError:
        file, line, column = site or self.schema_site or ("<config>", 1, 1)
        return InputError(file, message, line, column)


def _pod_template(resource: Resource, pod: Any) -> tuple[tuple, Any, None]:
    """The pod template (metadata and spec) around a pod spec; the spec alone if there is none."""
    meta = pod.metadata_path
    if meta is not None and meta[:-1] == pod.path[:-1]:
        path = pod.path[:-1]
        found = table.get(resource.obj, path) if path else resource.obj
        if isinstance(found, dict):
            return path, found, None
    return pod.path, pod.spec, None


def _glob(patterns: tuple[str, ...], value: str) -> bool:
    return any(fnmatch.fnmatchcase(value, p) for p in patterns)


# Where a part of a custom rule is written: (path in the rule entry, "key" or "value") -> Site.
Where = Callable[[tuple, str], Site]
# A problem with a custom rule: (path in the rule entry, message, "key" or "value").
Problem = tuple[tuple, str, str]


def build_rule(spec: dict, where: Where | None = None) -> tuple[Rule | None, Problem | None]:
    """A Rule from a validated ``custom-rules`` entry, or (None, problem)."""
    schema = spec["schema"]
    for path, ref in refs.foreign_refs(schema):
        return None, (("schema",) + path, refs.refused(ref), "value")
    not_finite = _not_finite(schema)
    if not_finite is not None:
        return None, (("schema",) + not_finite, NOT_FINITE, "value")
    patterns = Patterns()
    try:
        schema_check.make_validator(schema, KEYWORDS, patterns.search)
    except schema_check.InvalidSchema as exc:
        return None, (("schema",) + exc.path, f"invalid JSON Schema: {exc.message}", "value")
    bad = _bad_quantities(schema)
    if bad is not None:
        return None, (("schema",) + bad[0], bad[1], "value")
    graph = SchemaGraph(schema)
    for path, message in graph.problems():
        return None, (("schema",) + path, message, "value")
    sites: dict[str, Site] = {}
    for path, pattern, at in graph.patterns():
        try:
            patterns.compile(pattern)
        except UnsupportedPattern as exc:
            return None, (("schema",) + path, f"pattern {pattern!r}: {exc}", at)
        if where is not None and pattern not in sites:
            sites[pattern] = where(("schema",) + path, at)
    unevaluated = _unevaluated_beside_patterns(graph)
    if unevaluated is not None:
        return None, (("schema",) + unevaluated, UNEVALUATED, "key")
    schema_site = where(("schema",), "key") if where is not None else None
    check = SchemaCheck(
        spec["target"], spec.get("match", {}), schema, spec["message"], sites, schema_site
    )
    rule = Rule(
        spec["code"],
        spec["name"],
        Severity.parse(spec.get("severity", "warning")),
        spec["message"],
        _doc(spec),
    )
    rule.resource_check(check)
    return rule, None


NOT_FINITE = (
    "not a finite number (.inf or .nan): JSON has no such numbers and a JSON Schema "
    "keyword cannot compare with them"
)


def _not_finite(value: Any, path: tuple = ()) -> tuple | None:
    """The path of the first .inf or .nan in a schema (YAML has them, JSON does not)."""
    if isinstance(value, float) and not math.isfinite(value):
        return path
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found = _not_finite(item, path + (key,))
        if found is not None:
            return found
    return None


UNEVALUATED = (
    "unevaluatedProperties in a schema with patternProperties is not supported in custom "
    "rules: gpulint matches config patterns itself (in linear time) and jsonschema's "
    "unevaluatedProperties would match them with Python's backtracking re"
)


def _unevaluated_beside_patterns(graph: SchemaGraph) -> tuple | None:
    if not any("patternProperties" in schema for _path, schema, _r in graph.nodes):
        return None
    for path, schema, _resource in graph.nodes:
        if "unevaluatedProperties" in schema:
            return path + ("unevaluatedProperties",)
    return None


def _doc(spec: dict) -> str:
    """Documentation for ``gpulint explain``: the description and the schema."""
    target = spec["target"]
    match = spec.get("match")
    lines = [spec.get("description") or spec["message"], "", "Custom rule from the config file."]
    lines.append(f"Target: {target}" + (f"; match: {json.dumps(match)}" if match else ""))
    schema = textwrap.indent(json.dumps(spec["schema"], indent=2), "    ")
    return "\n".join(lines) + "\n\nSchema:\n\n" + schema
