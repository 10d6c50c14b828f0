"""GitLab Code Quality report: a JSON array of CodeClimate-style issues.

GitLab reads it from ``artifacts: reports: codequality:`` and requires, per
issue, ``description``, ``check_name``, ``fingerprint``, ``severity`` (one of
``info``, ``minor``, ``major``, ``critical``, ``blocker``), ``location.path``
and ``location.lines.begin`` (docs.gitlab.com/ci/testing/code_quality/, "Code
Quality report format"). GitLab shows one issue per fingerprint, so a
fingerprint that repeats gets a suffix; none of them holds a line number.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

from gpulint.core.findings import InputError, RunResult, Severity
from gpulint.report.paths import from_root

# error: the API server rejects it or it cannot run; warning: it will misbehave; note: advice.
_SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.NOTE: "info"}


def _error_fingerprint(error: InputError) -> str:
    raw = "\0".join(("input", error.file, error.message))
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def issues(result: RunResult) -> list[dict]:
    found: list[dict] = []
    for error in result.errors:
        found.append(
            {
                "description": error.message,
                "check_name": "input",
                "fingerprint": _error_fingerprint(error),
                "severity": "blocker",
                "categories": ["Bug Risk"],
                "location": {
                    "path": from_root(error.file, "gitlab"),
                    "lines": {"begin": error.line},
                },
            }
        )
    for finding in result.active():
        loc = finding.location
        found.append(
            {
                "description": f"{finding.code} {finding.name}: {finding.message}",
                "check_name": finding.code,
                "fingerprint": finding.fingerprint(),
                "severity": _SEVERITY[finding.severity],
                "categories": ["Bug Risk"],
                "location": {
                    "path": from_root(loc.file, "gitlab"),
                    "lines": {"begin": loc.line, "end": loc.end_line},
                },
            }
        )
    seen: dict[str, int] = {}
    for issue in found:
        base = issue["fingerprint"]
        count = seen.get(base, 0)
        seen[base] = count + 1
        if count:
            issue["fingerprint"] = hashlib.sha256(f"{base}\0{count}".encode()).hexdigest()[:32]
    return found


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    yield json.dumps(issues(result), indent=2, ensure_ascii=False) + "\n"
