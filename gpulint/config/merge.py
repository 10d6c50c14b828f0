"""The config file's values merged into the settings, under the flags given on the command line."""

from __future__ import annotations

from collections.abc import Collection

from gpulint.config import cluster
from gpulint.config.file import Config, rule_options, severity_map
from gpulint.core.findings import Severity
from gpulint.core.settings import Settings
from gpulint.rules.registry import Registry

# Settings a flag can set; the config file's value applies only when the flag was not given.
FLAGGED = ("select", "ignore", "fail_on")  # extend_select: the flag's rules add to the file's


def apply_config(
    settings: Settings, config: Config | None, registry: Registry, given: Collection[str]
) -> None:
    """Config values where no flag in ``given`` (names from :data:`FLAGGED`) was given."""
    values = config.values if config else {}
    if "select" not in given and "select" in values:
        settings.select = tuple(values["select"])
    settings.extend_select = tuple(values.get("extend-select", ())) + settings.extend_select
    if "ignore" not in given and "ignore" in values:
        settings.ignore = tuple(values["ignore"])
    if "fail_on" not in given and "fail-on" in values:
        settings.fail_on = Severity.parse(values["fail-on"])
    if values.get("severity"):
        settings.severity = severity_map(values, registry)
    cluster.apply(values, settings, config.path if config else ".gpulint.yaml")
    settings.rule_options = rule_options(values, registry)
    if "units" in values:
        settings.units = values["units"]
    if values.get("require-reason", False):
        settings.require_reason = True
    if values.get("skip-unrenderable", False):
        settings.skip_unrenderable = True
    if config is not None:
        settings.exemptions = config.exemptions
