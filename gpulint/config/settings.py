"""Settings a run uses: command-line flags over the config file over defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpulint.findings import Severity
from gpulint.model.profile import ClusterConfig

DEFAULT_GPU_TAINT_KEYS = ("nvidia.com/gpu",)
DEFAULT_MAX_GPUS_PER_NODE = 8


@dataclass
class Settings:
    select: tuple[str, ...] = ()  # codes, code prefixes or names; empty = all
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)  # code or name -> severity
    fail_on: Severity = Severity.WARNING
    gpu_taint_keys: tuple[str, ...] = DEFAULT_GPU_TAINT_KEYS
    max_gpus_per_node: int = DEFAULT_MAX_GPUS_PER_NODE
    # Clusters running the ExtendedResourceToleration admission plugin tolerate
    # GPU taints automatically for pods that request GPUs.
    extended_resource_toleration: bool = False
    # The config file's ``cluster:`` section (config/cluster.py), for the cluster profile.
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    stdin_filename: str | None = None
    verbose: bool = False
    jobs: int = 1  # worker processes (the CLI defaults to the number of cores)
    # Team adoption (gpulint/config.py, suppress.py, baseline.py); all picklable.
    exemptions: tuple = ()  # config.Exemption entries
    suppressions: bool = True  # honour annotation and comment suppressions
    require_reason: bool = False
    baseline: dict | None = None  # fingerprint -> count of findings already accepted
    baseline_file: str | None = None
    # Free-form settings that later features read (kept picklable for --jobs).
    extra: dict = field(default_factory=dict)
