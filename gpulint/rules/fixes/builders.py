"""The fixes of the built-in rules, one small builder each, so a rule adds one call.

Each returns a :class:`~gpulint.rules.fixes.spec.Fix` or None when the right change is not
certain; the rule stays the place that decides what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpulint import catalog
from gpulint.core.lazy_re import lazy
from gpulint.model.gpu.label_suggestions import (
    sanitised,
    suggest_gke_accelerators,
    suggest_products,
)
from gpulint.model.gpu.labels import PRODUCT
from gpulint.model.resource import Container, PodSpec
from gpulint.model.values.gpu_resources import as_fraction
from gpulint.model.values.images import parse_image
from gpulint.rules.fixes.spec import (
    AppendItem,
    Copy,
    Fix,
    Value,
    add_entry,
    delete_repeats,
    replace_text,
    set_value,
)
from gpulint.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from gpulint.yaml.parse import Document, _Builder

# As GPU706 reads them: `$$` is an escaped dollar, then `${VAR}` and `$VAR`.
_SHELL_REF = lazy(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def only_candidate(word: str, choices: Iterable[str]) -> str | None:
    """The one close choice (difflib's 0.6 cutoff, or a case-only difference), else None."""
    choices = sorted(choices)
    import difflib  # only to suggest a name (LAZY: ~1 ms of every run's start-up)

    close = difflib.get_close_matches(word, choices, n=2, cutoff=0.6)
    if len(close) == 1:
        return close[0]
    if close:
        return None
    same_case = [c for c in choices if c.lower() == word.lower()]
    return same_case[0] if len(same_case) == 1 else None


def copy_request_to_limit(container: tuple, resource: str, requested: object) -> Fix | None:
    """GPU101: the limit the API server requires is the request's value, written as it is;
    None when the request is no whole count (GPU103's finding: copying it fixes nothing)."""
    count = as_fraction(requested)
    if count is None or count.denominator != 1 or count < 0:
        return None
    return add_entry(
        f"copy the {resource} request into limits",
        container + ("resources", "limits"),
        resource,
        Copy(container + ("resources", "requests", resource)),
    )


def request_from_limit(container: tuple, resource: str) -> Fix:
    """GPU102: make the request equal the limit (the limit is the count scheduled)."""
    return set_value(
        f"set the {resource} request to its limit",
        container + ("resources", "requests", resource),
        Copy(container + ("resources", "limits", resource)),
    )


def replace_word(title: str, path: tuple, old: str, new: str | None) -> Fix | None:
    """Replace the one occurrence of ``old`` in the scalar at ``path`` (None: no fix)."""
    return None if new is None or new == old else replace_text(title, path, old, new)


def pull_if_not_present(container: tuple, image: str) -> Fix | None:
    """GPU301: ``IfNotPresent`` on a pinned image (a tag other than latest, or a digest)."""
    ref = parse_image(image)
    if ref is None or not ref.pinned:
        return None
    return replace_text(
        "use imagePullPolicy IfNotPresent on the pinned image",
        container + ("imagePullPolicy",),
        "Always",
        "IfNotPresent",
    )


def env_references(path: tuple, value: str, earlier: list) -> Fix | None:
    """GPU706: ``${VAR}`` and ``$VAR`` as ``$(VAR)``, when every VAR is defined earlier in
    the container's env, the only ones the kubelet expands ("Variable references
    $(VAR_NAME) are expanded using the previously defined environment variables in the
    container", core/v1 EnvVar.value). None when any reference names another variable."""
    # Names of any type are skipped: `name: [a]` is a wrong shape GPU011 reports.
    defined = {
        item.get("name")
        for item in earlier
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    }
    names = [m.group(1) or m.group(2) for m in _SHELL_REF.finditer(value)]
    names = [name for name in names if name is not None]  # `$$` is an escape
    if not names or any(name not in defined for name in names):
        return None

    def swap(match: re.Match) -> str:
        name = match.group(1) or match.group(2)
        return match.group(0) if name is None else f"$({name})"

    fixed = _SHELL_REF.sub(swap, value)
    return set_value("write the references as $(VAR)", path, fixed)


def shm_volume(pod: PodSpec, container: Container) -> Fix | None:
    """GPU705: mount a memory-backed emptyDir ``dshm`` at /dev/shm (adding the volume
    unless the pod has it already); None when something is mounted there already."""
    mounts = container.data.get("volumeMounts")
    for mount in mounts if isinstance(mounts, list) else ():
        if isinstance(mount, dict) and str(mount.get("mountPath", "")).rstrip("/") == "/dev/shm":
            return None  # the mount is there; its volume is what needs a hand
    volume: dict[str, Value] = {"name": "dshm", "emptyDir": {"medium": "Memory"}}
    volumes = pod.spec.get("volumes")
    named = (
        [v for v in volumes if isinstance(v, dict) and v.get("name") == "dshm"]
        if isinstance(volumes, list)
        else []
    )
    if named and named != [volume]:
        return None  # a volume of that name that is not the one we would add
    mount = AppendItem(
        container.path + ("volumeMounts",), {"name": "dshm", "mountPath": "/dev/shm"}
    )
    changes = (mount,) if named else (AppendItem(pod.path + ("volumes",), volume), mount)
    return Fix(
        "mount a memory-backed emptyDir at /dev/shm (it counts against the pod's memory)", changes
    )


def label_value(path: tuple, key: str, value: str) -> Fix | None:
    """GPU206: the one known label value that ``value`` was meant to be, if exactly one."""
    if key == PRODUCT:
        found = suggest_products(value)
        if not found and sanitised(value) != value:
            found = [sanitised(value)]
        known = [v for v in found if catalog.is_known_product(v)]
    else:
        known = [v for v in suggest_gke_accelerators(value) if v in catalog.gke_accelerators()]
    if len(known) != 1:
        return None
    return replace_word(f"write {known[0]!r}", path, value, known[0])


def drop_equal_repeats(doc: Document, path: tuple, key: str) -> Fix | None:
    """GPU010: delete the repeats of ``key`` when every occurrence holds the same value."""
    values = _values_of(doc, path, key)
    if len(values) < 2 or any(v != values[0] or type(v) is not type(values[0]) for v in values):
        return None
    return delete_repeats(f"delete the repeats of {key!r} (all hold the same value)", path, key)


def _values_of(doc: Document, path: tuple, key: str) -> list:
    node = doc.node
    for step in path:
        if isinstance(node, MappingNode):
            found = [v for k, v in node.value if type(k) is ScalarNode and k.value == step]
            if not found:
                return []
            node = found[-1]
        elif isinstance(node, SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
        else:
            return []
    if not isinstance(node, MappingNode):
        return []
    builder = _Builder()
    return [builder.build(v, 0) for k, v in node.value if type(k) is ScalarNode and k.value == key]
