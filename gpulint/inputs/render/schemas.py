"""What helm's values validation would fetch: a ``$ref`` of a ``values.schema.json``.

helm validates the values of a chart and of every subchart against their
``values.schema.json`` and resolves each ``$ref`` on the way: ``http(s)://`` over the
network (loopback ignores proxies), anything else from the disk. Only a reference within
the same schema (``#/...``) is safe; any other is refused before helm runs, at its line and
column. Subcharts packaged under ``charts/`` are read too, within a bound.
"""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
import zlib
from collections.abc import Iterator
from typing import Any

from gpulint.core.sources import MAX_FILE_BYTES, read_bytes
from gpulint.inputs.discover import display_path
from gpulint.inputs.render.remote import Reference

SCHEMA = "values.schema.json"
# Decompressed bytes of packaged subcharts read to find their schemas; past this much (a
# bomb, or a chart no one writes) the chart is refused whole.
ARCHIVE_BUDGET = 64 * 2**20
_NESTING = 4  # packaged charts inside packaged charts, as deep as this
_REF = re.compile(rb'"\$ref"\s*:\s*"((?:[^"\\]|\\.)*)"')


class TooBig(Exception):
    """A packaged subchart past the budget: its schemas cannot all be read."""


def schema_references(chart: str) -> tuple[list[Reference], str | None]:
    """The references of the chart's schemas and its subcharts' that are not fragments of
    their own file, and the packaged subchart that went past the budget, if one did."""
    found: list[Reference] = []
    budget = [ARCHIVE_BUDGET]
    for path in _files(chart):
        shown = display_path(path)
        if path.endswith(".tgz"):
            try:
                found += _archive(path, shown, budget, _NESTING)
            except TooBig:
                return found, shown
            except (OSError, tarfile.TarError, EOFError, zlib.error):
                pass  # helm says why it cannot read it
            continue
        data = read_bytes(path)
        if isinstance(data, bytes):
            found += _references(shown, data)
    return found, None


def _files(chart: str) -> Iterator[str]:
    """The chart's schema, and those of the subcharts under charts/ (folders, through their
    own charts/ too, and packages)."""
    stack = [chart]
    while stack:
        folder = stack.pop()
        schema = os.path.join(folder, SCHEMA)
        if os.path.isfile(schema):
            yield schema
        sub = os.path.join(folder, "charts")
        try:
            names = sorted(os.listdir(sub))
        except OSError:
            continue
        for name in names:
            path = os.path.join(sub, name)
            if name.endswith(".tgz") and os.path.isfile(path):
                yield path
            elif os.path.isdir(path):
                stack.append(path)


def _archive(path: str, shown: str, budget: list[int], depth: int) -> list[Reference]:
    with open(path, "rb") as handle:
        return _archive_stream(handle, shown, "", budget, depth)


def _archive_stream(
    stream: Any, shown: str, prefix: str, budget: list[int], depth: int
) -> list[Reference]:
    """The references of the schemas packaged in ``stream`` (at the package's path, line
    1, the member named), within what is left of the ``budget``."""
    found: list[Reference] = []
    with tarfile.open(fileobj=stream, mode="r|gz") as tar:
        for member in tar:
            budget[0] -= member.size + 512
            if budget[0] < 0:
                raise TooBig
            name = prefix + member.name
            nested = depth > 0 and member.name.endswith(".tgz")
            wanted = member.name.endswith("/" + SCHEMA) or nested
            if not member.isfile() or not wanted or member.size > MAX_FILE_BYTES:
                continue
            extracted = tar.extractfile(member)
            data = extracted.read() if extracted is not None else b""
            if nested:
                found += _archive_stream(io.BytesIO(data), shown, name + ":", budget, depth - 1)
            else:
                refs = _references(shown, data)
                found += [Reference(shown, 1, 1, r.ref, f"$ref in {name}") for r in refs]
    return found


def _references(shown: str, data: bytes) -> list[Reference]:
    """The schema's references that leave it, where written (line 1 where the text hides
    them, as ``"\\u0024ref"`` does)."""
    try:
        schema = json.loads(data)
    except (ValueError, RecursionError):
        return []  # helm cannot read it either: nothing is resolved
    leaving = [ref for ref in _refs(schema) if not ref.startswith("#")]
    if not leaving:
        return []
    placed: list[Reference] = []
    for match in _REF.finditer(data):
        try:
            ref = json.loads(b'"' + match.group(1) + b'"')
        except ValueError:
            continue
        if ref in leaving:
            at = match.start(1) - 1  # the opening quote
            line = data.count(b"\n", 0, at) + 1
            before = data[data.rfind(b"\n", 0, at) + 1 : at]
            column = len(before.decode("utf-8", errors="replace")) + 1
            placed.append(Reference(shown, line, column, ref, "$ref"))
    missed = set(leaving) - {r.ref for r in placed}
    placed += [Reference(shown, 1, 1, ref, "$ref") for ref in sorted(missed)]
    return placed


def _refs(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                yield ref
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
