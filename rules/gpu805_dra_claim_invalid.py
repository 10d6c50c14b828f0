"""
## What it checks
ResourceClaim, ResourceClaimTemplate and DeviceClass objects of
`resource.k8s.io/v1`, `v1beta2` and `v1beta1` against JSON Schemas kept in
gpulint (built from the Kubernetes API types): unknown fields (with a
did-you-mean), wrong types and enum values, a request without
`deviceClassName`, a v1beta1-style request (`deviceClassName` directly on the
request) in a `v1` object, and a selector whose `cel` is not a mapping with an
`expression`, such as the common mis-indent that puts `expression` beside an
empty `cel:`.

A value that is still a placeholder (`${REPLICAS:=4}`, `$VAR`: filled in by Flux's
`postBuild` substitution or envsubst before it is applied) is left to whoever fills it
in: its type or choices are not known yet.

## Why it matters
The API server rejects such an object (`strict decoding error: unknown field
...`, `Required value`), and every pod that references it stays Pending. Where
unknown fields are dropped instead (field validation turned off), a selector
or a count silently disappears and the claim asks for a different device than
the one written down.

## Failing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: big-gpu
spec:
  spec:
    devices:
      requests:
        - name: gpu
          deviceClassName: gpu.nvidia.com  # <- GPU805
        - name: mig
          exactly:
            deviceClassName: mig.nvidia.com
            selectors:
              - cel:  # <- GPU805
                expression: "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"
```

## Passing example
```yaml
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: big-gpu
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.nvidia.com
        - name: mig
          exactly:
            deviceClassName: mig.nvidia.com
            selectors:
              - cel:
                  expression: "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"
```

## How to fix
In `resource.k8s.io/v1`, put `deviceClassName`, `selectors`, `count` and
`allocationMode` under the request's `exactly:` (or list alternatives under
`firstAvailable:`); indent `expression` under `cel:`; fix the spelling the
message suggests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.model.dra import (
    CLAIM,
    DEVICE_CLASS,
    EXACTLY_VERSIONS,
    SERVED_VERSIONS,
    TEMPLATE,
    is_dra_object,
    split_api_version,
)
from gpulint.model.values import placeholders
from gpulint.model.values.paths import at_path
from gpulint.rules.api import Context, Report, Resource, Rule, Severity, mentions
from gpulint.validate import schema as schema_check

rule = Rule(
    "GPU805",
    "dra-claim-invalid",
    Severity.ERROR,
    "A ResourceClaim, ResourceClaimTemplate or DeviceClass does not match the API schema.",
    __doc__,
    reads=mentions("resource.k8s.io"),  # a DRA object's API group
)

SCHEMAS = {
    CLAIM: "dra-resourceclaim.schema.json",
    TEMPLATE: "dra-resourceclaimtemplate.schema.json",
    DEVICE_CLASS: "dra-deviceclass.schema.json",
}
# Fields of an ExactDeviceRequest that v1beta1 kept on the request itself.
_EXACT_FIELDS = frozenset(
    {"deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations"}
)
_TYPES = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer"}


def dotted(path: tuple) -> str:
    """``("spec", "devices", "requests", 0)`` -> ``spec.devices.requests[0]``."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def _is_request(path: tuple) -> bool:
    return len(path) >= 2 and path[-2] == "requests" and isinstance(path[-1], int)


def _show(value: Any) -> str:
    if value is None:
        return "empty"
    return repr(value) if isinstance(value, str) else str(value).lower()


def _explain(resource: Resource, version: str, problem: schema_check.SchemaProblem) -> str | None:
    """The message for one schema problem; None when another message already covers it."""
    if problem.keyword == "additionalProperties":
        return _unknown_key(resource, version, problem.path, problem.message)
    if problem.keyword == "required" and "property" in problem.params:
        return _missing(resource.obj, problem.path, problem.params["property"])
    return _wrong_value(resource.obj, version, problem)


def _unknown_key(resource: Resource, version: str, path: tuple, message: str) -> str | None:
    obj, parent, key = resource.obj, path[:-1], path[-1]
    rejected = f'the API server rejects it: strict decoding error: unknown field "{dotted(path)}"'
    if key in _EXACT_FIELDS and _is_request(parent) and version in EXACTLY_VERSIONS:
        misplaced = [k for k in at_path(obj, parent) if k in _EXACT_FIELDS]
        if key != misplaced[0]:
            return None  # one finding per request, at its first misplaced field
        one = len(misplaced) == 1
        return (
            f"{', '.join(misplaced)} {'sits' if one else 'sit'} directly on request "
            f"{at_path(obj, parent + ('name',))!r}; in {resource.api_version} "
            f"{'it belongs' if one else 'they belong'} under exactly: (only v1beta1 put "
            f"{'it' if one else 'them'} on the request); {rejected}"
        )
    if key == "exactly" and _is_request(parent) and version not in EXACTLY_VERSIONS:
        return (
            f"exactly: is a resource.k8s.io/v1 field, but this object is "
            f"{resource.api_version}, where deviceClassName sits on the request itself; "
            f"switch apiVersion to resource.k8s.io/v1 or move the fields up; {rejected}"
        )
    if key == "expression" and not isinstance(at_path(obj, parent + ("cel",)), dict):
        return None  # reported at its cel: (mis-indented or missing)
    return f"{message} in {dotted(parent)}; {rejected}"


def _missing(obj: Any, path: tuple, field: str) -> str | None:
    node = at_path(obj, path)
    keys = set(node) if isinstance(node, dict) else set()
    if field == "exactly" and _EXACT_FIELDS & keys:
        return None  # the fields sit on the request; reported there
    if field == "deviceClassName" and "exactly" in keys:
        return None  # v1 shape in a v1beta1 object; reported at exactly
    if any(k != field and schema_check.closest(str(k), [field]) for k in keys):
        return None  # a misspelling of it is reported, with the did-you-mean
    where = dotted(path + (field,))
    if field == "cel" and "expression" in keys:
        return (
            "expression must sit under cel: (a selector is {cel: {expression: ...}}); "
            f"the API server rejects it: {where}: Required value"
        )
    if field == "expression" and path[-1:] == ("cel",):
        return f"cel needs an expression; the API server rejects it: {where}: Required value"
    return f"{where} is missing; the API server rejects the object: {where}: Required value"


def _wrong_value(obj: Any, version: str, problem: schema_check.SchemaProblem) -> str:
    path, keyword = problem.path, problem.keyword
    value = _show(at_path(obj, path))
    if keyword == "not" and _is_request(path):
        first = "exactly" if version in EXACTLY_VERSIONS else "deviceClassName"
        return (
            f"request {at_path(obj, path + ('name',))!r} sets both {first} and firstAvailable; "
            "exactly one of them may be set, so the API server rejects the object"
        )
    if path[-1:] == ("cel",):
        selector = at_path(obj, path[:-1])
        if isinstance(selector, dict) and "expression" in selector:
            return (
                "cel: is empty and its expression sits beside it: indent expression under "
                f"cel:; the API server rejects the selector ({dotted(path)}: Required value)"
            )
        return (
            f"cel must be a mapping with an expression, not {value}; "
            "the API server rejects the selector"
        )
    if keyword == "type":
        types = problem.params["types"]
        return f"{dotted(path)} must be {' or '.join(_TYPES.get(t, t) for t in types)}, not {value}"
    if keyword == "minimum":
        return f"{dotted(path)} must be at least {problem.params['minimum']}, not {value}"
    return f"{dotted(path)}: {problem.message}"


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if not is_dra_object(resource):
        return
    _group, version = split_api_version(resource.api_version)
    if version not in SERVED_VERSIONS:
        return  # GPU804 reports versions no cluster serves
    # a ${VAR} is filled in before apply: not the value the API server gets
    schema = SCHEMAS[resource.kind]
    for problem in schema_check.check(resource.obj, schema, unfilled=placeholders.is_placeholder):
        message = _explain(resource, version, problem)
        if message:
            # An empty cel: has no value node worth pointing at; point at its key.
            at = "key" if problem.path[-1:] == ("cel",) else problem.at
            yield Report(problem.path, message, at=at)
