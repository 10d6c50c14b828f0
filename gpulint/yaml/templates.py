"""Go template text in YAML: Helm's placeholders, found before (or instead of) parsing.

A file of a chart's ``templates/`` is Go text, not YAML, until it is rendered;
gpulint says so once (:data:`RENDER_FIRST`) rather than report the YAML errors
the placeholders cause. Only actions in the YAML itself make a template: one in a
comment (a values file documenting ``{{ .Release.Namespace }}``) never does. A
rendered stream names each document's template in a ``# Source:`` comment.
"""

from __future__ import annotations

import re

from ruamel.yaml.cyaml import CParser
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import ScalarEvent

from gpulint.core.lazy_re import lazy

_SOURCE_COMMENT = lazy(r"^# Source: (\S.*?)\s*$", re.MULTILINE)
# Go template actions only Helm writes (Prometheus and Argo use `{{ $labels }}`,
# `{{inputs.x}}` in valid YAML strings, which stay ordinary values).
_HELM_ACTION = lazy(
    r"\{\{-?\s*(?:\.(?:Values|Release|Chart|Capabilities|Files|Template)\b"
    r"|(?:include|template|define|toYaml|tpl|required)\s)"
)
_ACTION_LINE = lazy(r"^[ \t]*\{\{-?\s*(?:if|range|with|end|else|define|template)\b", re.M)
RENDER_FIRST = (
    "unrendered template: this file holds Go template placeholders ({{ ... }}) and is "
    "not YAML until it is rendered; render it first (helm template CHART | gpulint check -) "
    "or point gpulint at the chart folder"
)


def placeholder_error(text: str, offset: int, read_before: bool = False) -> str:
    """The message for a stream that stops parsing at the placeholder starting at ``offset``:
    Helm's own actions ask for a render; any other ``{{NAME}}`` (a sed or envsubst-style
    placeholder, an Argo parameter) is text to fill in, and the documents before it were read."""
    if _HELM_ACTION.match(text, offset):
        return RENDER_FIRST
    end = text.find("}}", offset, offset + 200)
    shown = text[offset : end + 2] if end >= 0 else text[offset : offset + 40].split("\n")[0]
    return (
        f"unrendered template: {shown} is a placeholder to fill in (with the tool this file "
        "is written for: envsubst, sed, a workflow engine); the document holding it is not "
        "YAML until then" + (" (the documents before it were linted)" if read_before else "")
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
    """Line and column of the first Helm template action in the YAML itself, if any.

    An action in a comment is never one (a values file that documents
    ``{{ .Release.Namespace }}``), nor one inside a quoted or block scalar: valid YAML
    holds it as a string (a Flux HelmRelease's values the chart fills in, a value a chart
    passes to ``tpl``), and a placeholder is not a value the rules judge. Elsewhere (a
    plain scalar, a key, ``{{`` opening flow mappings) it always is.
    """
    if "{{" not in text:
        return None
    offsets = [m.start() for m in _HELM_ACTION.finditer(text)]
    if not offsets:
        return None
    structural = _structural_offset(text, offsets, in_strings=False)
    return _position(text, structural) if structural is not None else None


_TEXT_STYLES = ("'", '"', "|", ">")


def _structural_offset(text: str, offsets: list[int], in_strings: bool) -> int | None:
    """The first of ``offsets`` outside comments (and, unless ``in_strings``, outside
    quoted and block scalars)."""
    pending = sorted(offsets)
    parser = CParser(text)
    try:
        while pending and parser.check_event():
            event = parser.get_event()
            start, end = event.start_mark.index, event.end_mark.index
            while pending and pending[0] < start:
                pending.pop(0)  # before this event and inside no earlier one: a comment
            if not pending:
                break
            style = getattr(event, "style", None)
            if not in_strings and isinstance(event, ScalarEvent) and style in _TEXT_STYLES:
                while pending and pending[0] < end:
                    pending.pop(0)  # text inside a quoted or block scalar
            elif pending[0] < max(end, start + 1):
                return pending[0]  # a plain scalar, or `{{` opening flow mappings
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        if pending and near_placeholder(text, line):
            return pending[0]
        return None  # an error of its own, which parsing reports
    finally:
        parser.dispose()
    return None


def placeholder_near(
    text: str, line: int, read_before: bool = False
) -> tuple[int, int, str] | None:
    """Line, column and message (:func:`placeholder_error`) of the placeholder that stopped
    parsing at ``line``: the first ``{{`` on it or the three lines before (where
    :func:`near_placeholder` looks), else the first of the text; None without one. (An
    earlier document may hold ``{{`` in a valid string: that one is not the cause.)"""
    start = 0
    for _ in range(max(line - 4, 0)):
        start = text.find("\n", start) + 1
        if start == 0:
            break
    offset = text.find("{{", start)
    if offset < 0 or text.count("\n", start, offset) > 3:
        offset = text.find("{{")
    if offset < 0:
        return None
    return (*_position(text, offset), placeholder_error(text, offset, read_before))


def near_placeholder(text: str, line: int) -> bool:
    """Whether a failure at ``line`` comes from Go template placeholders: one on that line
    or the three before it, or a template action alone on a line (``{{- if ... }}``)."""
    rows = text.split("\n", line)[max(line - 4, 0) : line]
    if any("{{" in row for row in rows):
        return True
    return _ACTION_LINE.search(text) is not None
