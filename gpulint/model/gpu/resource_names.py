"""Container resource names as the API server validates them, and GPU names mistyped.

The API server checks every name under ``resources.requests`` and ``limits`` with
``validation.IsQualifiedName`` (k8s.io/apimachinery/pkg/util/validation/validation.go;
called from validateResourceName in pkg/apis/core/validation/validation.go): an
optional prefix that is a lowercase RFC 1123 subdomain, a ``/``, and a name part of
at most 63 alphanumerics, ``-``, ``_`` or ``.`` that starts and ends alphanumeric.
The messages below are that function's, word for word.
"""

from __future__ import annotations

import unicodedata

from gpulint.core.lazy_re import lazy
from gpulint.model.values.gpu_resources import AMD_GPU, MIG_PREFIX, NVIDIA_GPU, NVIDIA_SHARED

_QUALIFIED_NAME = lazy(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = lazy(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character"
)
_QUALIFIED_NAME_EXAMPLES = (
    " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_SUBDOMAIN_EXAMPLES = (
    " (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

# GPU resources device plugins advertise; the names a mistyped one is compared with.
KNOWN_GPU_RESOURCES = (NVIDIA_GPU, NVIDIA_SHARED, AMD_GPU, "gpu.intel.com/i915", "gpu.intel.com/xe")
# Look-alike letters (Cyrillic, Greek) that pass for Latin ones in a manifest.
_CONFUSABLES = str.maketrans("асеорхуіјԁɡοναΑВСЕНІКМОРТХ", "aceopxyijdgovaABCEHIKMOPTX")


def qualified_name_problem(name: str) -> str | None:
    """IsQualifiedName's first message for ``name``, or None when it is valid."""
    parts = name.split("/")
    if len(parts) > 2:
        return (
            f"a qualified name {_QUALIFIED_NAME_MSG}{_QUALIFIED_NAME_EXAMPLES} with an "
            "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        )
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253:
            return "prefix part must be no more than 253 bytes"
        if not _DNS1123_SUBDOMAIN.match(prefix):
            return f"prefix part {_SUBDOMAIN_MSG}{_SUBDOMAIN_EXAMPLES}"
    part = parts[-1]
    if not part:
        return "name part must be non-empty"
    if len(part) > 63:
        return "name part must be no more than 63 bytes"
    if not _QUALIFIED_NAME.match(part):
        return f"name part {_QUALIFIED_NAME_MSG}{_QUALIFIED_NAME_EXAMPLES}"
    return None


def skeleton(name: str) -> str:
    """What a name looks like: compatibility forms folded, look-alikes made Latin,
    whitespace dropped, lower case (``" nvidia.сom/GPU"`` -> ``nvidia.com/gpu``)."""
    folded = unicodedata.normalize("NFKC", name).translate(_CONFUSABLES)
    return "".join(folded.split()).lower()


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def meant_gpu(name: str) -> str | None:
    """The GPU resource a name that is not one was most likely meant to be, or None.

    A look-alike, case or whitespace difference, or one typed character away; MIG
    names are left to the MIG rules and other plugins' names (``nvidia.com/gpumem``)
    are more than one character away."""
    if name in KNOWN_GPU_RESOURCES or name.startswith(MIG_PREFIX):
        return None
    shape = skeleton(name)
    for known in KNOWN_GPU_RESOURCES:
        if shape == known or _one_edit(shape, known):
            return known
    return None
