"""Settings a run uses: command-line flags over the config file over defaults.

Plain, picklable data (worker processes receive a copy); the command-line options
that fill it live in ``gpulint/cli/``, the config file and the merging in ``gpulint/config/``.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from gpulint.core.findings import Finding, Severity
from gpulint.core.record import field, record

DEFAULT_GPU_TAINT_KEYS = ("nvidia.com/gpu",)
DEFAULT_RENDER_TIMEOUT = 120.0  # seconds for one helm or kustomize run
DEFAULT_RELEASE_NAME = "release-name"  # what `helm template` calls a release by default


@record(frozen=True)
class RenderOptions:
    """What the command line passes to the Helm and Kustomize renderers."""

    values: tuple[str, ...] = ()  # helm --values files
    set_values: tuple[str, ...] = ()  # helm --set KEY=VALUE
    release_name: str = DEFAULT_RELEASE_NAME
    namespace: str | None = None
    kube_version: str | None = None
    chart_dir: str | None = None  # maps `# Source:` of a rendered stream to template files
    load_restrictor: str | None = None  # kustomize --load-restrictor
    enable_plugins: bool = False  # kustomize exec/container KRM functions (off unless asked)
    timeout: float = DEFAULT_RENDER_TIMEOUT
    follow_symlinks: bool = False  # render a unit holding a link out of the linted folders


@record(frozen=True)
class ClusterOptions:
    """The cluster inventory (``--cluster``, ``--pods``) the scheduling rules fit workloads to."""

    files: tuple[str, ...] = ()  # display paths of the Node files
    # node name -> {GPU resource: count held by running pods}
    usage: dict[str, dict[str, int]] = field(default_factory=dict)


@record(frozen=True)
class Exemption:
    """Findings accepted by where they are (picklable; globs match with fnmatch)."""

    reason: str
    rules: frozenset[str] = frozenset()  # rule codes; empty = every rule
    namespaces: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    containers: tuple[str, ...] = ()

    def matches(self, finding: Finding) -> bool:
        if self.rules and finding.code not in self.rules:
            return False
        res = finding.resource
        checks = (
            (self.namespaces, res.namespace if res else None),
            (self.kinds, res.kind if res else None),
            (self.names, res.name if res else None),
            (self.containers, finding.container),
        )
        for patterns, value in checks:
            if patterns and (value is None or not _any_glob(patterns, value)):
                return False
        return True


def _any_glob(patterns: tuple[str, ...], value: str) -> bool:
    return any(fnmatch.fnmatchcase(value, p) for p in patterns)


@record(frozen=True, slots=True)
class GpuTaint:
    """A taint the run's GPU nodes carry (``key:effect``), from the config file."""

    key: str
    effect: str = "NoSchedule"

    def __str__(self) -> str:
        return f"{self.key}:{self.effect}"


@record(frozen=True)
class ClusterConfig:
    """The ``cluster:`` section of ``.gpulint.yaml`` (and the older top-level keys)."""

    provider: str | None = None
    gpu_taints: tuple[GpuTaint, ...] | None = None  # () says: GPU nodes are not tainted
    gpu_models: frozenset[str] | None = None
    extended_resource_toleration: bool | None = None
    max_gpus_per_node: int | None = None
    source: str = ".gpulint.yaml"


@record
class Settings:
    """Everything a run is told: flags over the config file over these defaults."""

    select: tuple[str, ...] = ()  # codes, code prefixes or names; empty = the default set
    extend_select: tuple[str, ...] = ()  # rules added to the selected ones
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)  # code or name -> severity
    fail_on: Severity = Severity.WARNING
    gpu_taint_keys: tuple[str, ...] = DEFAULT_GPU_TAINT_KEYS
    # Rule code -> option -> value, as the config file sets them (rules read them through
    # ctx.option, which falls back to the declared default).
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Clusters running the ExtendedResourceToleration admission plugin tolerate
    # GPU taints automatically for pods that request GPUs.
    extended_resource_toleration: bool = False
    # The config file's ``cluster:`` section (config/cluster.py), for the cluster profile.
    cluster_facts: ClusterConfig = field(default_factory=ClusterConfig)
    stdin_filename: str | None = None
    verbose: bool = False
    debug: bool = False  # internal errors carry their traceback
    jobs: int = 1  # worker processes (the CLI defaults to the number of cores)
    # Deployable units (inputs/units.py): which plain files cross-file rules join,
    # "per-folder" or "per-run", and the files named on the command line (one unit).
    units: str = "per-folder"
    named_files: frozenset[str] = frozenset()
    # Charts and kustomizations that cannot be rendered are notes, not input errors
    # (--skip-unrenderable, config skip-unrenderable): the user accepts they go unchecked.
    skip_unrenderable: bool = False
    # The paths named on the command line (where the project identity is read from).
    linted_paths: tuple[str, ...] = ()
    # Team adoption (config/file.py, filter/suppress.py, filter/baseline.py).
    exemptions: tuple[Exemption, ...] = ()  # from the config file's exemptions
    suppressions: bool = True  # honour annotation and comment suppressions
    require_reason: bool = False
    baseline: dict[str, int] | None = None  # fingerprint -> count of findings already accepted
    baseline_file: str | None = None
    # Inputs: how chart and kustomization folders are rendered, which chart's values
    # a YAML file that content cannot place is read as (--values-for), the cluster.
    render: RenderOptions = field(default_factory=RenderOptions)
    values_for: str | None = None
    # Skip named files that do not parse and are no manifest, as a walk does (pre-commit).
    only_manifests: bool = False
    # Work out each fixable finding's edits (Finding.fix): the fixer and the JSON and SARIF
    # reports read them. The command line turns it off when nothing will (start-up: the
    # edit machinery, gpulint/engine/fix_details.py, is then never imported).
    fix_details: bool = True
    # Give the report each rule's documentation (SARIF's help text reads it): a built-in
    # rule's is read from its module's source, so the command line asks only when needed.
    rule_docs: bool = True
    cluster: ClusterOptions = field(default_factory=ClusterOptions)
