"""The baseline: today's findings, recorded so that only new ones are reported.

Findings are keyed by :meth:`Finding.fingerprint` (rule, file, resource
identity, container and the JSON pointer in the document), never by line, so
the baseline survives lines added above and unrelated edits. Keys are counted:
two identical findings in the baseline accept two, not more.
"""

from __future__ import annotations

import json
from collections import Counter

from gpulint.findings import Finding, Suppression

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
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
    return len(entries)


def load(path: str) -> dict[str, int]:
    """fingerprint -> count; raises BaselineError with a clear message."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"baseline {path} is not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    entries = document.get("findings") if isinstance(document, dict) else None
    if not isinstance(entries, list) or document.get("version") != VERSION:
        raise BaselineError(
            f"baseline {path} is not a gpulint baseline (version {VERSION}); "
            "write one with --write-baseline"
        )
    counts: Counter[str] = Counter()
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str):
            counts[entry["fingerprint"]] += 1
    return dict(counts)


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
