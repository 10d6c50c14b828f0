"""A stable JSON document; its shape is documented in docs/output.md."""

from __future__ import annotations

from collections.abc import Iterator

from gpulint import __version__
from gpulint.core.findings import Finding, FixInfo, Location, RunResult, Severity
from gpulint.core.held import as_dicts
from gpulint.core.record import asdict
from gpulint.report import streaming

SCHEMA_VERSION = 1


def _location(loc: Location | None) -> dict | None:
    if loc is None:
        return None
    return {
        "path": loc.file,
        "line": loc.line,
        "column": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
    }


def finding_to_dict(finding: Finding) -> dict:
    loc = finding.location
    resource = finding.resource
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": str(finding.severity),
        "message": finding.message,
        "path": loc.file,
        "line": loc.line,
        "column": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
        "pointer": finding.pointer,
        "resource": (
            {
                "apiVersion": resource.api_version,
                "kind": resource.kind,
                "name": resource.name,
                "namespace": resource.namespace,
            }
            if resource
            else None
        ),
        "container": finding.container,
        "template": finding.template,
        "templateLocation": _location(finding.template_location),
        "related": [
            {**(_location(other.location) or {}), "message": other.message}
            for other in finding.related
        ],
        "suppressed": finding.suppression is not None,
        "suppression": asdict(finding.suppression) if finding.suppression else None,
        "fingerprint": finding.fingerprint(),
        "fix": _fix(finding.fix),
        **_value_source(finding),
    }


def _fix(fix: FixInfo | None) -> dict | None:
    if fix is None:
        return None
    return {
        "title": fix.title,
        "safety": str(fix.safety),
        "applicable": fix.applicable,
        "reason": fix.reason,
        "path": fix.file,
        "edits": [
            {
                "line": e.line,
                "column": e.column,
                "endLine": e.end_line,
                "endColumn": e.end_column,
                "text": fix.text_of(e),
            }
            for e in fix.edits
        ],
    }


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    active = result.active()
    document = {
        "version": SCHEMA_VERSION,
        "tool": {"name": "gpulint", "version": __version__},
        "findings": [],  # streamed: one finding encoded at a time
        "errors": [
            {"path": e.file, "line": e.line, "column": e.column, "message": e.message}
            for e in result.errors
        ],
        "summary": {
            "files": result.files_checked,
            "errors": sum(1 for f in active if f.severity == Severity.ERROR),
            "warnings": sum(1 for f in active if f.severity == Severity.WARNING),
            "notes": sum(1 for f in active if f.severity == Severity.NOTE),
            "suppressed": len(result.findings) - len(active),
            "inputErrors": len(result.errors),
        },
    }
    if result.held_back:  # findings a rule held back for want of cluster facts
        document["heldBack"] = as_dicts(result.held_back)
    yield from streaming.dump(document, map(finding_to_dict, result.findings), "findings")
    yield "\n"


def _value_source(finding: Finding) -> dict:
    """Only for rendered Helm values, so plain-file reports keep their shape."""
    value = finding.value_source
    if value is None:
        return {}
    return {
        "valueSource": {
            "key": value.key,
            "location": _location(value.location),
            "setBy": value.set_by,
        }
    }
