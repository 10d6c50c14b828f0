"""The baseline: today's findings, recorded so that only new ones are reported.

Findings are keyed by :meth:`Finding.fingerprint` (rule, file, resource
identity, container and the JSON pointer in the document), never by line, so
the baseline survives lines added above and unrelated edits. Keys are counted:
two identical findings in the baseline accept two, not more.
"""

from __future__ import annotations

import json
from collections import Counter

from gpulint.core.findings import Finding, InputError, Suppression, printable
from gpulint.core.outputs import write_file
from gpulint.core.sources import read_bytes

VERSION = 1


class BaselineError(Exception):
    pass


def write(path: str, findings: list[Finding]) -> int:
    """Record the findings that are not already suppressed; returns how many."""
    active = sorted((f for f in findings if f.suppression is None), key=Finding.sort_key)
    entries = [
        {
            "fingerprint": f.fingerprint(),
            "code": f.code,
            "file": f.location.file,
            "resource": f.resource.label() if f.resource else None,
            "container": f.container,
            "pointer": f.pointer,
            "message": f.message,  # for people reading the file; matching ignores it
        }
        for f in active
    ]
    document = {"version": VERSION, "tool": "gpulint", "findings": entries}

    def fill(handle) -> None:
        json.dump(document, handle, indent=2)  # ASCII: a file name that is not UTF-8 is escaped
        handle.write("\n")

    write_file(path, fill)  # replaced when complete; OutputError names the file
    return len(entries)


def load(path: str) -> dict[str, int]:
    """fingerprint -> count; raises BaselineError with a located message.

    Read like any input (a regular file, size-capped: a FIFO never blocks the run),
    then decoded and parsed with every failure located in the file."""
    data = read_bytes(path)
    if isinstance(data, InputError):
        raise BaselineError(f"cannot read baseline {printable(path)}: {data.message}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        raise BaselineError(
            f"{printable(path)}:{line}:{column}: baseline is not UTF-8 text "
            f"(byte 0x{data[exc.start]:02x}); write one with --write-baseline"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{printable(path)}:{exc.lineno}:{exc.colno}: baseline is not JSON: {exc.msg}"
        ) from None
    except RecursionError:  # e.g. 100,000 nested brackets
        raise BaselineError(
            f"{printable(path)}:1:1: baseline is not a gpulint baseline (nested too deeply)"
        ) from None
    entries = document.get("findings") if isinstance(document, dict) else None
    if not isinstance(entries, list) or document.get("version") != VERSION:
        raise BaselineError(
            f"{printable(path)}:1:1: baseline is not a gpulint baseline (version {VERSION}); "
            "write one with --write-baseline"
        )
    counts: Counter[str] = Counter()
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str):
            counts[entry["fingerprint"]] += 1
    return dict(counts)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def apply(findings: list[Finding], accepted: dict[str, int], path: str | None) -> None:
    """Mark findings already in the baseline as suppressed (kind ``baseline``)."""
    left = Counter(accepted)
    reason = f"in baseline {path}" if path else "in baseline"
    for finding in sorted(findings, key=Finding.sort_key):
        if finding.suppression is not None:
            continue
        key = finding.fingerprint()
        if left[key] > 0:
            left[key] -= 1
            finding.suppression = Suppression("baseline", reason)
