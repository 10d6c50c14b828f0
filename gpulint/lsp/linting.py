"""Lint one editor document in its project, as ``gpulint check <its folder>`` would.

- The nearest ``.gpulint.yaml`` above the document is honoured through the config layer
  (custom rules, severities, exclude, cluster profile), with the defaults ``check`` uses.
- A plain file is linted from the editor's buffer (unsaved text included) beside the
  other plain files of its folder, read from disk: cross-file rules join one folder's
  files (``units: per-folder``, the default), so that is what they see here too.
- A file of a Helm chart or a kustomization is linted as its unit, rendered from disk:
  only on open and save (a render takes a process and seconds; a template does not parse
  as YAML while it is typed).
"""

from __future__ import annotations

import os
from functools import partial

from gpulint.config import file as config_file
from gpulint.config.globs import PathFilter
from gpulint.config.loading import load_with_rules
from gpulint.config.merge import apply_config
from gpulint.core.findings import Finding, InputError
from gpulint.core.record import field, record, replace
from gpulint.core.settings import Settings
from gpulint.core.sources import Source, decode
from gpulint.engine.context import build_context
from gpulint.engine.run import run
from gpulint.inputs.discover import LINTED_SUFFIXES, Target
from gpulint.inputs.folders import kustomization_file
from gpulint.inputs.kustomize_refs import members
from gpulint.inputs.readers import read_plain_file
from gpulint.inputs.render import targets as render_targets
from gpulint.rules.registry import Registry, builtin_rules, default_registry


@record
class Linted:
    """What one document shows: its findings and input errors (its file's only)."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    registry: Registry | None = None
    deferred: bool = False  # part of a chart or kustomization: linted on save only
    unit: str | None = None  # the chart or kustomization folder it was linted through


def _config(path: str, registry: Registry) -> tuple[config_file.Config | None, Registry, list]:
    """The config file found from the document's folder up; a broken one is an error shown
    on the document (the defaults apply meanwhile), as ``check`` would refuse to run."""
    found = config_file.find_config(os.path.dirname(path))
    if found is None:
        return None, registry, []
    try:
        config, registry = load_with_rules(found, registry)
    except config_file.ConfigError as exc:
        return None, registry, [_config_error(found, e) for e in exc.errors]
    return config, registry, []


def _config_error(config_path: str, error: InputError) -> InputError:
    where = f"{error.file}:{error.line}:{error.column}"
    return InputError(config_path, f"config file {where}: {error.message}")


def settings_for(config: config_file.Config | None, registry: Registry, folder: str) -> Settings:
    """The settings ``gpulint check FOLDER`` builds with no flags given (one process; a
    fix's edits are wanted for quick fixes; rule documentation is read only on hover)."""
    settings = Settings(fix_details=True, rule_docs=False)
    apply_config(settings, config, registry, ())
    settings.linted_paths = (folder,)
    return settings


def unit_target(path: str) -> Target | None:
    """The chart or kustomization a file is linted through, if any: a chart folder (or
    its ``templates/``) above the file, a kustomization beside it, or one above that
    names it."""
    folder = os.path.dirname(path)
    current = folder
    while True:
        for handler in render_targets.folder_handlers():
            claimed = handler(current)
            if claimed:
                return claimed[0]
        if kustomization_file(current) is not None and (
            current == folder or path in members(current)
        ):
            marked = [t for m in render_targets.folder_markers() for t in m(current) or ()]
            if marked:
                return marked[0]
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _siblings(path: str) -> list[Target]:
    """The other plain files of the folder, as a walk would find them (walked: a file that
    is no manifest is skipped quietly)."""
    folder = os.path.dirname(path)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [
        Target(os.path.join(folder, name), walked=True)
        for name in names
        if not name.startswith(".")
        and name.endswith(LINTED_SUFFIXES)
        and os.path.join(folder, name) != path
        and os.path.isfile(os.path.join(folder, name))
    ]


def _read_buffer(
    path: str, text: str, target: Target, settings: Settings
) -> tuple[list[Source], list[InputError]]:
    """The open document from the editor's text; every other file from disk."""
    if target.path != path:
        return read_plain_file(target, settings)
    decoded = decode(path, text.encode("utf-8", "surrogatepass"))
    return ([], [decoded]) if isinstance(decoded, InputError) else ([decoded], [])


def _mine(path: str, file: str | None) -> bool:
    return file is not None and os.path.abspath(file) == path


def _own(linted: Linted, path: str, findings: list[Finding], errors: list[InputError]) -> None:
    """Only the open document's findings are published (cross-file rules may place some on
    the other files); a rendered finding may point at its template instead."""
    for finding in findings:
        if finding.suppression is not None:
            continue
        if _mine(path, finding.location.file):
            linted.findings.append(finding)
        elif finding.template_location is not None and _mine(path, finding.template_location.file):
            linted.findings.append(_at_template(finding))
    linted.errors.extend(e for e in errors if _mine(path, e.file))


def _at_template(finding: Finding) -> Finding:
    # gpulint never edits templates: the template line serves every release
    return replace(finding, location=finding.template_location, fix=None)


def lint_document(path: str, text: str, on_save: bool) -> Linted:
    """Lint the document at ``path`` (its buffer ``text``); charts and kustomizations
    only when ``on_save`` (the render reads the saved files)."""
    path = os.path.abspath(path)
    config, registry, errors = _config(path, default_registry())
    linted = Linted(errors=[_on_document(path, e) for e in errors], registry=registry)
    patterns = config.values.get("exclude", ()) if config else ()
    if config is not None and patterns and PathFilter(patterns, config.root).excluded(path):
        return linted  # excluded by the config file: check would not lint it
    unit = unit_target(path)
    if unit is not None and not on_save:
        linted.deferred = True
        return linted
    folder = os.path.dirname(path)
    settings = settings_for(config, registry, folder)
    readers = render_targets.READERS
    if unit is None:
        targets = sorted([Target(path), *_siblings(path)], key=lambda t: t.path)
        readers = readers.extended({"file": partial(_read_buffer, path, text)})
    else:
        linted.unit, targets = unit.path, [unit]
    result = run(targets, build_context(settings, registry), readers)
    _own(linted, path, result.findings, result.errors)
    if unit is not None:  # a render that failed says why on the document
        linted.errors.extend(
            _on_document(path, e) for e in result.errors if _mine(unit.path, e.file)
        )
    return linted


def _on_document(path: str, error: InputError) -> InputError:
    """An error of the config file or the render, shown at the top of the document."""
    return InputError(path, error.message, 1, 1, error.unrendered)


def builtin_codes() -> frozenset[str]:
    """Rules whose page is in docs/rules/ (custom rules and plugins have none)."""
    return frozenset(rule.code for rule in builtin_rules())
