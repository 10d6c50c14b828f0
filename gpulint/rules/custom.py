"""Custom rules from the config file: a JSON Schema that every target must satisfy.

Each becomes an ordinary :class:`Rule` whose resource check validates its
target (the pod template, the pod spec, each container, each GPU container, or
the whole object of a kind) and reports every validation failure at the key
where it happened, through :mod:`gpulint.validate.schema`.

Two keywords beyond JSON Schema compare Kubernetes quantities exactly:
``resourceMinimum`` and ``resourceMaximum`` (``memory: {resourceMinimum: 16Gi}``).
"""

from __future__ import annotations

import fnmatch
import json
import textwrap
from collections.abc import Iterator
from typing import Any

from gpulint.findings import Severity
from gpulint.model import workloads
from gpulint.model.quantity import QuantityError, parse_quantity
from gpulint.model.resource import Resource
from gpulint.rules.rule import Report, Rule
from gpulint.validate import refs
from gpulint.validate import schema as schema_check

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


class SchemaCheck:
    """The resource check of one custom rule; picklable (the validator is rebuilt lazily)."""

    def __init__(self, target: str, match: dict, schema: dict, message: str) -> None:
        self.target = target
        self.kinds = tuple(match.get("kinds", ()))
        self.namespaces = tuple(match.get("namespaces", ()))
        self.gpu = match.get("gpu")
        self.schema = schema
        self.message = message
        self._validator: Any = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_validator": None}

    def __call__(self, resource: Resource, ctx: Any) -> Iterator[Report]:
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
            self._validator = schema_check.make_validator(self.schema, KEYWORDS)
        for problem in schema_check.check(instance, self._validator):
            yield Report(
                path + problem.path,
                f"{self.message}: {problem.message}",
                container=container,
                at=problem.at,
            )


def _pod_template(resource: Resource, pod: Any) -> tuple[tuple, Any, None]:
    """The pod template (metadata and spec) around a pod spec; the spec alone if there is none."""
    meta = pod.metadata_path
    if meta is not None and meta[:-1] == pod.path[:-1]:
        path = pod.path[:-1]
        found = workloads.get(resource.obj, path) if path else resource.obj
        if isinstance(found, dict):
            return path, found, None
    return pod.path, pod.spec, None


def _glob(patterns: tuple[str, ...], value: str) -> bool:
    return any(fnmatch.fnmatchcase(value, p) for p in patterns)


def build_rule(spec: dict) -> tuple[Rule | None, tuple[tuple, str] | None]:
    """A Rule from a validated ``custom-rules`` entry, or (None, (subpath, problem))."""
    schema = spec["schema"]
    for path, ref in refs.foreign_refs(schema):
        return None, (("schema",) + path, refs.refused(ref))
    try:
        schema_check.make_validator(schema, KEYWORDS)
    except schema_check.InvalidSchema as exc:
        return None, (("schema",) + exc.path, f"invalid JSON Schema: {exc.message}")
    bad = _bad_quantities(schema)
    if bad is not None:
        return None, (("schema",) + bad[0], bad[1])
    check = SchemaCheck(spec["target"], spec.get("match", {}), schema, spec["message"])
    rule = Rule(
        spec["code"],
        spec["name"],
        Severity.parse(spec.get("severity", "warning")),
        spec["message"],
        _doc(spec),
    )
    rule.resource_check(check)
    return rule, None


def _doc(spec: dict) -> str:
    """Documentation for ``gpulint explain``: the description and the schema."""
    target = spec["target"]
    match = spec.get("match")
    lines = [spec.get("description") or spec["message"], "", "Custom rule from the config file."]
    lines.append(f"Target: {target}" + (f"; match: {json.dumps(match)}" if match else ""))
    schema = textwrap.indent(json.dumps(spec["schema"], indent=2), "    ")
    return "\n".join(lines) + "\n\nSchema:\n\n" + schema
