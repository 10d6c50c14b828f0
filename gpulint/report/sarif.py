"""SARIF 2.1.0 built with sarif-om objects, for GitHub code scanning."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import attr
import sarif_om as so

from gpulint import __version__
from gpulint.core.findings import Finding, FixSafety, Location, RuleInfo, RunResult, Severity
from gpulint.core.held import detail_lines, summary_line
from gpulint.report import provenance, streaming
from gpulint.report.paths import from_root

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/gpulint/gpulint"
# Suppressions written in the linted files; the others (baseline, config) are external.
_IN_SOURCE = ("annotation", "comment")
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _to_json(obj: Any) -> Any:
    """sarif-om objects -> JSON values, with SARIF's property names and no empty fields."""
    fields = _fields(type(obj))
    if fields is not None:
        out = {}
        for name, json_name, default in fields:
            value = getattr(obj, name)
            # sarif-om fills in SARIF's defaults (rank -1, language en-US...); omit them,
            # but always state a result's level.
            if value is None or (value == default and name != "level"):
                continue
            out[json_name] = _to_json(value)
        return out
    if isinstance(obj, list | tuple):
        return [_to_json(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _to_json(v) for k, v in obj.items()}
    return obj


_NO_DEFAULT = object()  # compares equal to no value
_FIELDS: dict[type, tuple | None] = {}


def _fields(cls: type) -> tuple | None:
    """(attribute, SARIF property name, default) of a sarif-om class; None for other types."""
    if cls not in _FIELDS:
        _FIELDS[cls] = (
            tuple(
                (
                    f.name,
                    f.metadata.get("schema_property_name", f.name),
                    _NO_DEFAULT if f.default is attr.NOTHING else f.default,
                )
                for f in attr.fields(cls)
            )
            if attr.has(cls)
            else None
        )
    return _FIELDS[cls]


def _physical(loc: Location) -> so.PhysicalLocation:
    return so.PhysicalLocation(
        artifact_location=so.ArtifactLocation(uri=_uri(loc.file), uri_base_id="%SRCROOT%"),
        region=so.Region(
            start_line=loc.line,
            start_column=loc.column,
            end_line=loc.end_line,
            end_column=loc.end_column,
        ),
    )


def _fixes(finding: Finding) -> list[so.Fix] | None:
    """The finding's fix as SARIF ``fixes``: replacements on exact regions of the file."""
    fix = finding.fix
    if fix is None or not fix.applicable:
        return None
    replacements = [
        so.Replacement(
            deleted_region=so.Region(
                start_line=e.line,
                start_column=e.column,
                end_line=e.end_line,
                end_column=e.end_column,
            ),
            inserted_content=so.ArtifactContent(text=fix.text_of(e)) if e.text else None,
        )
        for e in fix.edits
    ]
    change = so.ArtifactChange(
        artifact_location=so.ArtifactLocation(uri=_uri(fix.file), uri_base_id="%SRCROOT%"),
        replacements=replacements,
    )
    text = (
        fix.title if fix.safety is FixSafety.SAFE else f"{fix.title} (unsafe: check what you meant)"
    )
    return [
        so.Fix(
            description=so.Message(text=text),
            artifact_changes=[change],
            properties={"safety": str(fix.safety)},
        )
    ]


def _uri(path: str) -> str:
    from urllib.parse import quote

    # quote() percent-encodes the name's bytes, also those of a name that is not UTF-8.
    return quote(from_root(path, "github").replace("\\", "/").encode("utf-8", "surrogateescape"))


def _descriptor(info: RuleInfo) -> so.ReportingDescriptor:
    return so.ReportingDescriptor(
        id=info.code,
        name=info.name,
        help_uri=info.help_uri,  # the built-in rules' pages in docs/rules/
        short_description=so.MultiformatMessageString(text=info.summary),
        full_description=so.MultiformatMessageString(text=info.summary),
        help=so.MultiformatMessageString(text=info.summary, markdown=info.doc or info.summary),
        default_configuration=so.ReportingConfiguration(level=_LEVEL[info.severity]),
    )


def _result(finding: Finding, rule_index: dict[str, int]) -> so.Result:
    logical = []
    if finding.resource:
        res = finding.resource
        qualified = (
            f"{res.namespace}/{res.kind}/{res.name}" if res.namespace else f"{res.kind}/{res.name}"
        )
        logical.append(
            so.LogicalLocation(name=res.name, fully_qualified_name=qualified, kind="resource")
        )
    if finding.template:
        logical.append(so.LogicalLocation(fully_qualified_name=finding.template, kind="module"))
    location = so.Location(
        physical_location=_physical(finding.location), logical_locations=logical or None
    )
    related: list[so.Location] = []
    if finding.template_location is not None:
        related.append(
            so.Location(
                id=len(related),
                physical_location=_physical(finding.template_location),
                message=so.Message(text=f"template {finding.template}"),
            )
        )
    related.extend(
        so.Location(
            id=len(related) + i,
            physical_location=_physical(other.location),
            message=so.Message(text=other.message),
        )
        for i, other in enumerate(finding.related)
    )
    value = finding.value_source
    if value is not None and value.location is not None:
        related.append(
            so.Location(
                id=len(related),
                physical_location=_physical(value.location),
                message=so.Message(text=f"value {value.key}"),
            )
        )
    suppressions = None
    if finding.suppression is not None:
        suppressions = [
            so.Suppression(
                kind="inSource" if finding.suppression.kind in _IN_SOURCE else "external",
                justification=finding.suppression.reason or "",
            )
        ]
    return so.Result(
        rule_id=finding.code,
        rule_index=rule_index.get(finding.code),
        level=_LEVEL[finding.severity],
        message=so.Message(text=finding.message),
        locations=[location],
        related_locations=related or None,
        partial_fingerprints={"gpulint/v1": finding.fingerprint()},
        suppressions=suppressions,
        fixes=_fixes(finding),
    )


def build(result: RunResult) -> so.SarifLog:
    """The log with an empty ``results`` list: :func:`chunks` streams the results into it."""
    rules = sorted(result.rules, key=lambda r: r.code)
    notifications = [
        so.Notification(
            level="error",
            message=so.Message(text=e.message),
            locations=[_physical_only(e.file, e.line, e.column)],
        )
        for e in result.errors
    ]
    if result.held_back:  # run-level notes: rules held back for want of cluster facts
        notifications += [
            so.Notification(level="note", message=so.Message(text=line))
            for line in [summary_line(result.held_back), *detail_lines(result.held_back)]
        ]
    provenance_details, base_ids = _provenance()
    invocation = so.Invocation(
        execution_successful=not result.errors,
        tool_execution_notifications=notifications or None,
    )
    run = so.Run(
        tool=so.Tool(
            driver=so.ToolComponent(
                name="gpulint",
                version=__version__,
                semantic_version=__version__,
                information_uri=INFO_URI,
                rules=[_descriptor(r) for r in rules],
            )
        ),
        invocations=[invocation],
        version_control_provenance=provenance_details,
        original_uri_base_ids=base_ids,
        results=[],
        column_kind="unicodeCodePoints",
    )
    return so.SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])


def _provenance() -> tuple[list[so.VersionControlDetails] | None, dict | None]:
    """The git checkout the run is in, when it is one (read from .git, no process), and the
    run's ``originalUriBaseIds``: paths are written from the working folder (%SRCROOT%);
    run from a subfolder of the checkout, %SRCROOT% is that subfolder of REPOROOT, the
    checkout's root the provenance maps to (SARIF 2.1.0, 3.14.14 and 3.23.7)."""
    found = provenance.find(os.getcwd())
    if found is None:
        return None, None
    here, root = os.path.realpath(_paths_from()), os.path.realpath(found.root)
    if here == root or os.path.commonpath([here, root]) != root:
        mapped, base_ids = "%SRCROOT%", None
    else:
        from urllib.parse import quote

        inside = quote(os.path.relpath(here, root).replace(os.sep, "/"))
        mapped = "REPOROOT"
        base_ids = {"%SRCROOT%": so.ArtifactLocation(uri=inside + "/", uri_base_id=mapped)}
    details = so.VersionControlDetails(
        repository_uri=found.repository_uri,
        revision_id=found.revision,
        branch=found.branch,
        mapped_to=so.ArtifactLocation(uri_base_id=mapped),
    )
    return [details], base_ids


def _paths_from() -> str:
    """The folder the results' paths start from: the workspace under GitHub Actions
    (``report/paths.py``), else the working folder."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if os.environ.get("GITHUB_ACTIONS") == "true" and workspace:
        return workspace
    return os.getcwd()


def _physical_only(path: str, line: int, column: int) -> so.Location:
    return so.Location(
        physical_location=so.PhysicalLocation(
            artifact_location=so.ArtifactLocation(uri=_uri(path), uri_base_id="%SRCROOT%"),
            region=so.Region(start_line=line, start_column=column),
        )
    )


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    log = _to_json(build(result))
    ordered = {"$schema": log.pop("$schema", SCHEMA_URI), "version": log.pop("version")}
    ordered.update(log)
    rule_index = {code: i for i, code in enumerate(sorted(r.code for r in result.rules))}
    results = (_to_json(_result(f, rule_index)) for f in result.findings)
    yield from streaming.dump(ordered, results, "runs", "0", "results")
    yield "\n"
