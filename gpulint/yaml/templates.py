"""Go template text in YAML: Helm's placeholders, found before (or instead of) parsing.

A file of a chart's ``templates/`` is Go text, not YAML, until it is rendered;
gpulint says so once (:data:`RENDER_FIRST`) rather than report the YAML errors
the placeholders cause. A rendered stream names each document's template in a
``# Source:`` comment.
"""

from __future__ import annotations

import re

_SOURCE_COMMENT = re.compile(r"^# Source: (\S.*?)\s*$", re.MULTILINE)
# Go template actions only Helm writes (Prometheus and Argo use `{{ $labels }}`,
# `{{inputs.x}}` in valid YAML strings, which stay ordinary values).
_HELM_ACTION = re.compile(
    r"\{\{-?\s*(?:\.(?:Values|Release|Chart|Capabilities|Files|Template)\b"
    r"|(?:include|template|define|toYaml|tpl|required)\s)"
)
_ACTION_LINE = re.compile(r"^[ \t]*\{\{-?\s*(?:if|range|with|end|else|define|template)\b", re.M)
RENDER_FIRST = (
    "unrendered template: this file holds Go template placeholders ({{ ... }}) and is "
    "not YAML until it is rendered; render it first (helm template CHART | gpulint check -) "
    "or point gpulint at the chart folder"
)


def templates_by_line(text: str) -> list[tuple[int, str]]:
    """(0-based line, template) of every Helm ``# Source:`` comment, in order."""
    if "# Source: " not in text:
        return []
    found = []
    line, counted = 0, 0
    for match in _SOURCE_COMMENT.finditer(text):
        line += text.count("\n", counted, match.start())  # incremental: linear in the text
        counted = match.start()
        found.append((line, match.group(1)))
    return found


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def unrendered_template(text: str) -> tuple[int, int] | None:
    """Line and column of the first Helm template action, if the text has one."""
    if "{{" not in text:
        return None
    match = _HELM_ACTION.search(text)
    return _position(text, match.start()) if match else None


def first_placeholder(text: str) -> tuple[int, int] | None:
    """Line and column of the first ``{{`` (any Go template), if any."""
    offset = text.find("{{")
    return None if offset < 0 else _position(text, offset)


def near_placeholder(text: str, line: int) -> bool:
    """Whether a failure at ``line`` comes from Go template placeholders: one on that line
    or the three before it, or a template action alone on a line (``{{- if ... }}``)."""
    rows = text.split("\n", line)[max(line - 4, 0) : line]
    if any("{{" in row for row in rows):
        return True
    return _ACTION_LINE.search(text) is not None
