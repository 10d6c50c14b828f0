"""Which files that do not parse are not errors: those that are not Kubernetes at all.

A repository holds JSON and YAML that gpulint has no business with
(``tsconfig.json`` and ``.vscode/settings.json`` are JSON with comments). A file
reached by a folder walk, or named by the pre-commit hook (``--only-manifests``),
that does not parse and shows no sign of a manifest (no ``apiVersion``/``kind``
key) or of a GPU config gpulint reads is skipped quietly (``-v`` says so). A
file named on the command line is always an error when it does not parse.
"""

from __future__ import annotations

from gpulint.core.findings import InputError
from gpulint.core.lazy_re import lazy
from gpulint.core.sources import Source

# What makes a file that does not parse still worth an error: it means to be a manifest
# (apiVersion/kind), or a GPU config gpulint reads (device plugin, MIG, GPU Operator).
_MANIFEST_SIGNS = lazy(
    r"""["']?\b(?:apiVersion|kind)\b["']?\s*:|nvidia\.com/|\bmigStrategy\b|\bmig-configs\b"""
    r"""|\btimeSlicing\b|\bdevicePlugin\b"""
)


def not_a_manifest(source: Source, errors: list[InputError]) -> bool:
    """A file that does not parse and shows no sign of being Kubernetes (tsconfig.json
    with comments, an editor's settings): left alone when reached by a folder walk or
    named by the pre-commit hook (``--only-manifests``)."""
    parse_errors = all(
        e.message.startswith(("invalid YAML", "invalid JSON"))
        or e.message.endswith("not a mapping")
        for e in errors
    )
    return parse_errors and _MANIFEST_SIGNS.search(source.text) is None
