"""Kustomize's JSON6902 patches: which objects a patch's ``target`` selects, and which op
of its list wrote the node at a path of the rendered object.

A JSON6902 patch (RFC 6902) is a YAML or JSON list of ops (``{op, path, value}``,
``{op, from, path}``), inline (``patches: [{patch: |-, target: ...}]``) or in a file
(``patches: [{path: ops.yaml, target: ...}]``, the older ``patchesJson6902``); kustomize
reads a ``patches`` entry as one when it is a list, a strategic-merge patch when it is a
mapping, and applies it to every object its ``target`` selects (a JSON patch without a
target does not build).

The target is kustomize's ``types.Selector`` (api/types/selector.go, resmap ``Select``):
``group``, ``version``, ``kind``, ``name`` and ``namespace`` are regular expressions
anchored at both ends (``^(?:...)$``), an absent or empty field matches anything; the
name and namespace match the object's original id or its id when the patch applies
(a namespace-less object's is ``default``); ``labelSelector`` and ``annotationSelector``
are Kubernetes label selectors over the labels (annotations) the object has when the
patch applies. Checked with kubectl v5.8.1's kustomize (tests/inputs/test_kustomize_json6902.py).
Only the origin file and the rendered object are known here, not the object between
transformers: a field those two answer differently, or a pattern Python cannot read, is
undecided (None), and an undecided patch claims nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.core.sources import Source
from gpulint.validate.linear_re import LinearPattern, PatternTooCostly, UnsupportedPattern
from gpulint.yaml.embedded import INSIDE
from gpulint.yaml.parse import parse

# The ops that write a node at their ``path`` (``remove`` and ``test`` write none).
SETS = ("add", "replace")
BRINGS = ("copy", "move")  # write at ``path`` what was at ``from``


def ops_of(data: Any) -> list[dict] | None:
    """The op list of a JSON6902 patch, else None (a strategic-merge patch is a mapping)."""
    if not isinstance(data, list) or not data:
        return None
    if not all(isinstance(op, dict) and isinstance(op.get("op"), str) for op in data):
        return None
    return data


@lru_cache(maxsize=64)
def ops_in(text: str) -> list[dict] | None:
    """The op list an inline patch's text holds (YAML or JSON), else None."""
    documents, errors = parse(Source("<embedded>", text))
    if errors or len(documents) != 1:
        return None
    return ops_of(documents[0].data)


def pointer(text: Any) -> tuple[str, ...] | None:
    """The reference tokens of a JSON pointer (RFC 6901: ``~1`` is ``/``, ``~0`` is ``~``)."""
    if not isinstance(text, str) or (text and not text.startswith("/")):
        return None
    if not text:
        return ()
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in text[1:].split("/"))


def covered(tokens: tuple[str, ...], path: tuple, rendered: Any, value: Any = None) -> bool:
    """Whether ``path`` (steps into the rendered object) equals or lies under the pointer
    ``tokens``: a key token is the key, an index token the list index written in decimal;
    ``-`` (an ``add`` that appended ``value``) the item of that name, else the last one."""
    if len(tokens) > len(path):
        return False
    node = rendered
    for token, step in zip(tokens, path, strict=False):
        if step == INSIDE or type(step) not in (str, int):
            return False
        if type(step) is str:
            if token != step or not isinstance(node, dict) or step not in node:
                return False
            node = node[step]
            continue
        if not isinstance(node, list) or not 0 <= step < len(node):
            return False
        if token == "-":
            name = value.get("name") if isinstance(value, dict) else None
            item = node[step]
            if name is not None:
                if not isinstance(item, dict) or item.get("name") != name:
                    return False
            elif step != len(node) - 1:
                return False
        elif token != str(step):
            return False
        node = node[step]
    return True


def related(tokens: tuple[str, ...] | None, path: tuple) -> bool:
    """Whether the pointer ``tokens`` and ``path`` lie on one line (one holds the other),
    any index token standing for any index."""
    if tokens is None:
        return False
    for token, step in zip(tokens, path, strict=False):
        if type(step) is int:
            if token != "-" and not token.isdigit():
                return False
        elif token != step:
            return False
    return True


def selects(target: Any, rendered: Any, origin: Any, current: bool = False) -> bool | None:
    """Whether kustomize applies a patch with ``target`` to the object rendered as
    ``rendered`` from the origin document ``origin`` (None when unknown); None when it
    cannot be decided from those two. ``current``: the object's id, labels and
    annotations when the patch applies are the rendered ones (nothing after the patch
    changes them)."""
    if not isinstance(target, dict) or not isinstance(rendered, dict):
        return None
    answers = [
        _gvk(target, rendered, None if current else origin),
        _name(target.get("name"), rendered, origin, current),
        _namespace(target.get("namespace"), rendered, origin, current),
        _selector(target.get("labelSelector"), "labels", rendered, origin, current),
        _selector(target.get("annotationSelector"), "annotations", rendered, origin, current),
    ]
    return _both(answers)


def _both(answers: list[bool | None]) -> bool | None:
    """All of them: False when one is False, None when one is undecided."""
    if False in answers:
        return False
    return None if None in answers else True


def _either(answers: list[bool | None]) -> bool | None:
    """One of them: True when one is True, None when one is undecided."""
    if True in answers:
        return True
    return None if None in answers or not answers else False


def _matches(pattern: Any, text: str) -> bool | None:
    """kustomize's anchored match of one selector field (empty: anything)."""
    if pattern is None or pattern == "":
        return True
    if not isinstance(pattern, str):
        return None
    # A stranger's pattern: never run by re, which may backtrack for minutes (^(a+)+$ on a
    # long name); searched in linear time, or undecided.
    try:
        return _linear(pattern).search(text)
    except (UnsupportedPattern, PatternTooCostly):
        return None  # Go's RE2 reads some patterns this does not, and refuses what it cannot


@lru_cache(maxsize=256)
def _linear(pattern: str) -> LinearPattern:
    return LinearPattern(f"\\A(?:{pattern})\\Z")


def _gvk(target: dict, rendered: dict, origin: Any) -> bool | None:
    answers = {_gvk_of(target, obj) for obj in (rendered, origin) if isinstance(obj, dict)}
    return answers.pop() if len(answers) == 1 else None


def _gvk_of(target: dict, obj: dict) -> bool | None:
    api = obj.get("apiVersion")
    group, _sep, version = api.rpartition("/") if isinstance(api, str) else ("", "", "")
    kind = obj.get("kind")
    kind = kind if isinstance(kind, str) else ""
    return _both(
        [
            _matches(target.get("group"), group),
            _matches(target.get("version"), version),
            _matches(target.get("kind"), kind),
        ]
    )


def _meta(obj: Any, key: str) -> Any:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta.get(key) if isinstance(meta, dict) else None


def _name(pattern: Any, rendered: dict, origin: Any, current: bool) -> bool | None:
    if pattern is None or pattern == "":
        return True
    now = str(_meta(rendered, "name") or "")
    if not isinstance(origin, dict):
        return True if current and _matches(pattern, now) else None
    original = str(_meta(origin, "name") or "")
    first = _matches(pattern, original)
    if current:
        return _either([first, _matches(pattern, now)])
    if first is not False or original == now:
        return first
    # Between the two, a prefix or suffix transformer may have given any part of the
    # rendered name that holds the original: a pattern matching one of those is undecided.
    start = now.find(original) if original else -1
    if start < 0 or (start + 1) * (len(now) - start - len(original) + 1) > _MAX_AFFIXES:
        return None  # not found, or too many parts to try: undecided, never slow
    for head in range(start + 1):
        for tail in range(start + len(original), len(now) + 1):
            if _matches(pattern, now[head:tail]) is not False:
                return None
    return False


# The parts of a rendered name tried against a pattern: a prefix and a suffix transformer
# add a few characters each; a name longer by much more is not worth the searches.
_MAX_AFFIXES = 256


# Built-in kinds without a namespace (`kubectl api-resources --namespaced=false`) that a
# GPU setup patches: kustomize gives them no effective namespace ("default" matches
# none, checked with kubectl v5.8.1), gpulint leaves a namespace target on them undecided.
_CLUSTER_SCOPED = frozenset(
    (
        "Namespace",
        "Node",
        "RuntimeClass",
        "PriorityClass",
        "StorageClass",
        "PersistentVolume",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "DeviceClass",
        "ResourceSlice",
    )
)


def _namespace(pattern: Any, rendered: dict, origin: Any, current: bool) -> bool | None:
    if pattern is None or pattern == "":
        return True
    if rendered.get("kind") in _CLUSTER_SCOPED:
        return None
    now = str(_meta(rendered, "namespace") or "default")
    if not isinstance(origin, dict):
        return True if current and _matches(pattern, now) else None
    original = str(_meta(origin, "namespace") or "default")
    first = _matches(pattern, original)
    if current:
        return _either([first, _matches(pattern, now)])
    if first is not False:
        return first
    # a namespace transformer between the two may have set any namespace
    return False if now == original else None


def _selector(text: Any, key: str, rendered: dict, origin: Any, current: bool) -> bool | None:
    if text is None or text == "":
        return True
    requirements = _requirements(text)
    if requirements is None:
        return None
    if current:
        return _all(requirements, _meta(rendered, key))
    if not isinstance(origin, dict):
        return None
    answers = {_all(requirements, _meta(obj, key)) for obj in (rendered, origin)}
    return answers.pop() if len(answers) == 1 else None


# One requirement of a Kubernetes label selector (k8s.io/apimachinery/pkg/labels
# Parse): `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`, `key notin (a,b)`,
# `key>n`, `key<n`.
_REQUIREMENT = lazy(
    r"\s*(?:(?P<absent>!)\s*(?P<akey>[^\s=!<>(),]+)"
    r"|(?P<key>[^\s=!<>(),]+)(?:\s*(?P<op>==|!=|=|<|>)\s*(?P<value>[^\s=!<>(),]*)"
    r"|\s+(?P<set>in|notin)\s*\((?P<values>[^()]*)\))?)\s*(?:,|$)"
)


def _requirements(text: Any) -> list[tuple[str, str, tuple[str, ...]]] | None:
    """(key, operator, values) of each requirement, else None when it does not parse."""
    if not isinstance(text, str):
        return None
    found: list[tuple[str, str, tuple[str, ...]]] = []
    at = 0
    while at < len(text):
        match = _REQUIREMENT.match(text, at)
        if match is None or match.end() == at:
            return None
        at = match.end()
        if match["absent"]:
            found.append((match["akey"], "!", ()))
        elif match["op"]:
            found.append((match["key"], match["op"], (match["value"],)))
        elif match["set"]:
            values = tuple(v.strip() for v in match["values"].split(","))
            found.append((match["key"], match["set"], values))
        else:
            found.append((match["key"], "exists", ()))
    return found


def _all(requirements: list[tuple[str, str, tuple[str, ...]]], labels: Any) -> bool | None:
    labels = labels if isinstance(labels, dict) else {}
    return _both([_one(key, op, values, labels) for key, op, values in requirements])


def _one(key: str, op: str, values: tuple[str, ...], labels: dict) -> bool | None:
    has = key in labels
    value = str(labels.get(key, ""))
    if op == "exists":
        return has
    if op == "!":
        return not has
    if op in ("=", "==", "in"):
        return has and value in values
    if op in ("!=", "notin"):
        return not has or value not in values
    try:  # > and <: integers on both sides
        number, limit = int(value), int(values[0])
    except ValueError:
        return False if not has else None
    return number > limit if op == ">" else number < limit
