"""The preparation pass: what the whole run must know before any rule runs, in one read.

Files are linted one at a time, possibly in worker processes, yet some answers need the
whole run first: which rules can report at all on these inputs (a rule whose trigger
text no input holds is never loaded), which cross-file rules have a partner to pair with
(GPU210 needs a Node), what the run says about the cluster (GPU taints, products, the
provider: ``profile_scan.py``), which repository is linted (its own images:
``project_scan.py``), and what Flux HelmReleases read from other files of their unit
(``valuesFrom`` ConfigMaps and Secrets, ``chartRef`` objects: ``gitops_values.py``).
Each plain file's bytes are read once here, from the page cache the lint pass reads them
from again; only the files that may change the profile, and the HelmReleases that name
other objects and those objects' files, are parsed. Charts and kustomizations render
later, in the lint pass, and standard input is read once, by it: they rule no rule out
and add nothing to the profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gpulint.core.record import record
from gpulint.core.settings import Settings
from gpulint.inputs.discover import Target
from gpulint.inputs.gitops_values import Extras, PlainScan
from gpulint.inputs.prescan import RuleTriggers, SeenText, readable_bytes
from gpulint.inputs.profile_scan import ProfileScan
from gpulint.inputs.project_scan import project_of
from gpulint.inputs.release_charts import ReleaseCharts
from gpulint.model.cluster_profile import ClusterProfile
from gpulint.model.project import Project
from gpulint.rules.rule import Rule


@record(frozen=True)
class Preparation:
    """What the preparation pass found out about the run."""

    unpaired: frozenset[str]  # rules whose collectors have no partner object to pair with
    inapplicable: frozenset[str]  # rules that cannot report on these inputs (never loaded)
    profile: ClusterProfile
    project: Project
    gitops: dict[str, Extras]  # source path -> document -> what other files add to it
    seen: dict[str, SeenText]  # plain file path -> the rule triggers its bytes hold
    renders: tuple[Target, ...] = ()  # releases of in-tree charts, rendered with their values
    notices: tuple[str, ...] = ()
    named_values: frozenset[str] = frozenset()  # values files a release of the run names


def prepare(rules: Iterable[Rule], targets: Sequence[Target], settings: Settings) -> Preparation:
    triggers = RuleTriggers(rules)
    profile = ProfileScan(settings)
    gitops = PlainScan(settings)
    charts = ReleaseCharts(settings)
    for target in targets:
        data = readable_bytes(target)
        triggers.see(data, target.path if target.kind == "file" else None)
        profile.see(target, data)
        charts.see(target, data)
        for named in gitops.see(target, data):
            triggers.see(named)  # a values file a helmfile or kustomization names
    project = project_of(settings.linted_paths, targets)
    extras = gitops.extras()
    renders, notices = charts.targets(project, extras)
    if renders:
        triggers.see(None)  # what a render holds is not known before it runs
    # --values-for makes any YAML a chart's values: no text of the input says so.
    inapplicable = frozenset() if settings.values_for else triggers.inapplicable()
    return Preparation(
        triggers.unpaired(),
        inapplicable,
        profile.profile(),
        project,
        extras,
        triggers.seen,
        tuple(renders),
        tuple(notices),
        frozenset(gitops.named),
    )
