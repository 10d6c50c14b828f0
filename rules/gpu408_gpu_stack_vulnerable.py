"""
## What it checks
An NVIDIA Container Toolkit or GPU Operator release with a published security
advisory (NVIDIA's CVE records and the GPU Operator's "Security Considerations"
page, in gpulint's catalog with their sources and the date they were read): the
toolkit version a `ClusterPolicy` or the gpu-operator chart's values set
(`toolkit.version`, or a verbatim `toolkit.image` with a tag), in a values file
or inline in a Flux HelmRelease, an Argo CD Application or ApplicationSet,
kustomize `helmCharts` or a Helmfile release; the gpu-operator chart version
those GitOps objects pin (the operator release, judged only when the same
release's values do not set `toolkit.version`); and the tag of a
`nvcr.io/nvidia/k8s/container-toolkit` or `nvcr.io/nvidia/gpu-operator` image in
any container. One finding per place names every CVE that applies there, what
it allows, the range it affects, the first fixed release and, where NVIDIA
says so, the mode it applies in (some only without CDI, some only in CDI mode
at older releases). The mode is what the run sets: an advisory that applies only
in CDI mode at this release is named only where the same values or
ClusterPolicy set `cdi.enabled: true`; one that spares CDI, unless they also
set `cdi.default: true` (CDI for every container); a bare image says nothing,
so only advisories of the default (legacy) mode are named there. The release to
upgrade to is fixed for every advisory in every mode. A range, a floating tag,
a pre-release or a placeholder is not a release and is not judged (GPU401
reports floating chart versions).

## Why it matters
The container toolkit runs on every GPU node as root and sets up every GPU
container. CVE-2024-0132, CVE-2024-0135, CVE-2025-23359 and CVE-2025-23266 let a
crafted container image reach the host file system or run code on the host: a
container escape from any GPU pod, with the node's privileges. Trivy scans
images, but reads no `toolkit.version` and no chart version.

A warning, not an error: a vulnerable release is accepted and runs (gpulint's
errors are for what is rejected or cannot run), and the default `--fail-on
warning` fails the run on it. An advisory that allows only data tampering or a
denial of service (CVE-2024-0133, CVE-2024-0134, CVE-2025-23267) is a note when
it is the only one that applies.

## Failing example
```yaml
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
  toolkit:
    enabled: true
    repository: nvcr.io/nvidia/k8s
    image: container-toolkit
    version: v1.17.7-ubuntu20.04  # <- GPU408
```

## Passing example
```yaml
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: cluster-policy}
spec:
  toolkit: {enabled: true, version: v1.17.8-ubuntu20.04}  # the first fixed release
```

## How to fix
Upgrade to the release the finding names (the oldest one fixed for every CVE it
lists) or any later one: `toolkit.version` in the ClusterPolicy or the chart's
values, the gpu-operator chart version, or the image tag. Until then, the
bulletins' mitigations apply (CDI mode avoids the advisories NVIDIA scopes to
the default mode, and only those).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import advisories, operator, recognise
from gpulint.model.values import releases
from gpulint.model.values.paths import at_path
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU408",
    "gpu-stack-vulnerable",
    Severity.WARNING,
    "The container toolkit or GPU Operator release has a published vulnerability.",
    __doc__,
    reads=mentions("toolkit", "gpu-operator", ignore_case=True),
)


def _message(what: str, component: str, version: str, hits: list[advisories.Hit], safe: str) -> str:
    told = []
    for hit in hits:
        scope = f"; {hit.scope}" if hit.scope else ""
        told.append(
            f"{hit.cve} ({hit.allows}{scope}; affects {advisories.NAMES[component]} "
            f"{hit.affected_through} and earlier, fixed in {hit.fixed})"
        )
    return f"{what} {version} is affected by {'; '.join(told)}. Upgrade to {safe} or later"


def _report(
    path: tuple,
    what: str,
    component: str,
    version: str,
    container: str | None = None,
    mode: advisories.Mode = advisories.LEGACY,
) -> Iterator[Report]:
    hits = advisories.affecting(component, version, mode)
    if not hits:
        return
    worst = Severity.WARNING if any(h.severity == "warning" for h in hits) else Severity.NOTE
    # the release fixed for every advisory in any mode: a later one may be affected in this one
    safe = advisories.first_safe(advisories.affecting(component, version))
    message = _message(what, component, version, hits, safe)
    yield Report(path, message, container=container, at="value", severity=worst)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    view = operator.cluster_policy(resource)
    if view is not None:
        yield from _toolkit(view, f"ClusterPolicy {resource.name}: the container toolkit")
        return
    for container in resource.containers:
        component = advisories.image_component(container.image)
        version = advisories.image_version(container.image) if component else None
        if component is None or version is None:
            continue
        what = f"image {container.image!r}: {advisories.NAMES[component]}"
        yield from _report(container.path + ("image",), what, component, version, container.name)


@rule.document_check
def check_values(doc: Document, ctx: Context) -> Iterator[Report]:
    placed = [
        where
        for where in recognise.place(doc.data, recognise.values_for(ctx.settings))
        if where.kind == recognise.OPERATOR_CHART
    ]
    views = []
    for where in placed:
        data = at_path(doc.data, where.prefix)
        if isinstance(data, dict):
            views.append(operator.values_view(data, where.prefix))
            yield from _toolkit(views[-1], "gpu-operator values: the container toolkit")
    for release in releases.chart_versions(doc.data):
        if release.chart != recognise.OPERATOR_CHART or releases.floats(release.version):
            continue
        own = [v for v in views if releases.belongs(v.prefix, release.release)]
        if any(_sets_toolkit(v) for v in own):
            continue  # the values choose the toolkit: that version is the one judged
        what = f"the {release.chart} chart release: GPU Operator"
        mode = _mode(own[0]) if own else advisories.LEGACY
        yield from _report(release.path, what, advisories.OPERATOR, str(release.version), mode=mode)


def _sets_toolkit(view: operator.OperatorView) -> bool:
    enabled = view.field("toolkit", "enabled")
    if enabled is not None and enabled[1] is False:
        return True  # no toolkit deployed by the operator
    return any(view.field("toolkit", key) is not None for key in ("version", "image"))


def _mode(view: operator.OperatorView) -> advisories.Mode:
    """The runtime mode the values or ClusterPolicy set (``cdi.enabled``, ``cdi.default``)."""

    def on(key: str) -> bool:
        found = view.field("cdi", key)
        return found is not None and found[1] is True

    return advisories.Mode(on("enabled"), on("default"))


def _toolkit(view: operator.OperatorView, what: str) -> Iterator[Report]:
    enabled = view.field("toolkit", "enabled")
    if enabled is not None and enabled[1] is False:
        return
    mode = _mode(view)
    version = view.field("toolkit", "version")
    if version is not None:
        if isinstance(version[1], str):
            yield from _report(version[0], what, advisories.TOOLKIT, version[1], mode=mode)
        return
    image = view.field("toolkit", "image")
    if image is not None and isinstance(image[1], str) and "/" in image[1]:
        tag = advisories.image_version(image[1])
        if tag is not None and advisories.image_component(image[1]) == advisories.TOOLKIT:
            yield from _report(image[0], what, advisories.TOOLKIT, tag, mode=mode)
