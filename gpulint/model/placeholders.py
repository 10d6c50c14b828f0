"""Values that still hold a template placeholder.

Files rendered later (Helm templates, ``*.tmpl.yaml`` filled by envsubst, the GPU
Operator's assets) carry such values on purpose: a rule judges the value the
renderer will write, so it leaves the placeholder alone.
"""

from __future__ import annotations

from typing import Any

_MARKS = ("{{", "${", "FILLED BY", "FILLED_BY")


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and any(mark in value for mark in _MARKS)
