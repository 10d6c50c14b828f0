"""Values that still hold a placeholder: text someone or something fills in later.

Files rendered later (Helm templates, ``*.tmpl.yaml`` filled by envsubst, Argo workflow
parameters, the GPU Operator's assets) and samples meant to be edited (``image:
<your-registry>/server``, ``REPLACE_MODEL_SERVER_IMAGE``) carry such values on purpose.
A rule judges the value that will be applied, so it says nothing about a placeholder's
content: not that an image has no tag, that a selector names no GPU model, or that a
quantity is not a number. This is the one recogniser every rule that reads a value uses.

Recognised, anywhere in a string:
- template syntaxes: Go/Helm and Argo ``{{ ... }}`` (``{{workflow.parameters.gpus}}``,
  ``{{inputs.parameters.image}}``), Jinja ``{% ... %}``, envsubst and shell ``${X}`` and
  ``$X``, the kubelet's and Kustomize's ``$(X)``, and the tokens build and release tools
  replace: ``%X%``, ``@X@``, ``__X__``, Azure Pipelines' ``#{X}#``;
- angle-bracket placeholders: ``<your-registry>``, ``<none>``, ``<IMAGE>``;
- marker words: an ALL-CAPS word with a segment such as REPLACE, YOUR, CHANGEME,
  PLACEHOLDER, TODO, TBD, FIXME, FILL, HERE, INSERT, TAG, VERSION
  (``REPLACE_MODEL_SERVER_IMAGE``, ``YOUR_IMAGE``, ``REPO_HERE.azurecr.io/server:TAG_HERE``,
  ``REPO/server:TAG``),
  the Operator assets' ``FILLED BY THE OPERATOR``, and a lower-case ``your-...`` word.
Ordinary values stay values: ``nvcr.io/nvidia/pytorch:24.05-py3``, ``NVIDIA-A100-SXM4-80GB``,
``Always``, ``ALL``, ``0,1``, ``TODAY`` and a lone ``$`` or ``<`` in a command are not
placeholders.
"""

from __future__ import annotations

import re
from typing import Any

from gpulint.core.lazy_re import lazy

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"

# Each pattern finds one placeholder; _SOLE matches a value that is nothing else.
_SYNTAX = (
    r"\{\{.*?\}\}",  # Go, Helm, Argo, Jinja and Mustache expressions
    r"\{%.*?%\}",  # Jinja statements
    rf"\$\{{{_NAME}(?:[:?+=-][^}}]*)?\}}",  # envsubst / shell ${X}, ${X:-default}
    rf"\$\({_NAME}\)",  # the kubelet's dependent variables, Kustomize vars, Make
    rf"\${_NAME}",  # envsubst / shell $X
    r"#\{[A-Za-z_][A-Za-z0-9_.-]*\}#?",  # Azure Pipelines token replacement #{Image}#
    r"%[A-Z][A-Z0-9_]*%",  # %VERSION%
    r"@[A-Z][A-Z0-9_]*@",  # autoconf-style @IMAGE@
    r"__[A-Z][A-Z0-9_]*?__",  # __IMAGE__
    r"<[A-Za-z][A-Za-z0-9 _./:-]*>",  # <your-registry>, <none>, <IMAGE>
    r"FILLED[ _]BY",  # the GPU Operator's asset placeholders
)
_ANY = lazy("|".join(f"(?:{p})" for p in _SYNTAX))
_SOLE = lazy("|".join(f"(?:{p})" for p in _SYNTAX[:-1]))

# An ALL-CAPS word (letters, digits, _ and -) with one of these segments, or one that starts so.
_WORD = lazy(r"(?<![A-Za-z0-9])[A-Z0-9][A-Z0-9_-]*(?![A-Za-z0-9])")
_MARKER_SEGMENTS = frozenset(
    {"REPLACE", "REPLACEME", "YOUR", "CHANGE", "CHANGEME", "PLACEHOLDER", "TODO", "TBD"}
    | {"FIXME", "FILL", "FILLME", "XXX", "XXXX", "HERE", "INSERT"}
    # An ALL-CAPS TAG or VERSION stands where a tag goes (``REPO/server:TAG``, ``:IMAGE_TAG``):
    # real tags are lower case and digits, and no rule reads such a word as anything else.
    | {"TAG", "VERSION"}
)
_MARKER_PREFIXES = ("REPLACE", "PLACEHOLDER", "CHANGEME", "YOUR")
# A lower-case `your-registry`, `your_org`, `yourrepo`: a sample's "put yours here".
_YOUR = lazy(r"(?<![a-z0-9])your(?:[-_]|registry|repo|org|image|project|account|name)", re.I)


# Every placeholder above holds one of these: most values hold none and are decided at once.
_MAYBE = re.compile(r"[{$%@<]|__|[A-Z]{3}|[Yy][Oo][Uu][Rr]")
# What each of _SYNTAX's placeholders holds (``#{X}#`` a "{", ``FILLED BY`` its word), and
# what _YOUR's does: an ALL-CAPS value (``NVIDIA-A100-SXM4-80GB``, ``NCCL_DEBUG``) holds
# neither, so it is decided without compiling _ANY or _YOUR (~2 ms of a one-file run).
_SYNTAX_MARKS = ("{", "$", "%", "@", "<", "__", "FILLED")


def _marker_word(text: str) -> bool:
    for match in _WORD.finditer(text):
        for segment in re.split(r"[_-]+", match.group(0)):
            if segment in _MARKER_SEGMENTS or segment.startswith(_MARKER_PREFIXES):
                return True
    return False


def is_placeholder(value: Any) -> bool:
    """Whether a string value holds a placeholder anywhere (its content is not known yet)."""
    if not isinstance(value, str) or not _MAYBE.search(value):
        return False
    if any(mark in value for mark in _SYNTAX_MARKS) and _ANY.search(value):
        return True
    if "your" in value.lower() and _YOUR.search(value):  # re.I: no other letter folds to these
        return True
    return _marker_word(value)


def is_sole_placeholder(value: Any) -> bool:
    """Whether a value is one placeholder and nothing else (``${IMAGE}``, ``{{ .Values.x }}``)."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    return bool(_SOLE.fullmatch(text)) or bool(_WORD.fullmatch(text) and _marker_word(text))
