"""
## What it checks
The NVIDIA device plugin or GPU feature discovery image without a tag or on
`latest`: in a container (`nvcr.io/nvidia/k8s-device-plugin`,
`nvcr.io/nvidia/gpu-feature-discovery`), in the device plugin chart's values
(`image.tag: latest`), and in the GPU Operator's values or `ClusterPolicy`
(`devicePlugin.version` or `gfd.version` set to `latest`, or an `image` given
verbatim without a tag). A digest pins the image. Where a GitOps object
installs either chart (a Flux HelmRelease, an Argo CD Application or
ApplicationSet, kustomize `helmCharts`, a Helmfile release:
`gpulint/model/values/releases.py`), a chart version that is not set or is a
range (`*`, `>=0.14`, `0.x`, `^0.17`, `0.17`) floats the same way.

## Why it matters
The device plugin is what makes GPUs schedulable on every node. On `latest`,
each node that restarts the DaemonSet pod (a node replacement, an eviction)
may pull a different release, so nodes of one cluster advertise resources
differently, and an upgrade happens without anyone deciding it. A missing tag
also makes the kubelet pull on every start (`imagePullPolicy` defaults to
`Always` for `latest`).

## Failing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:latest  # <- GPU401
```

## Passing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin}
  template:
    metadata:
      labels: {name: nvidia-device-plugin}
    spec:
      containers:
        - name: nvidia-device-plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
```

## How to fix
Pin a release: `image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4` (or a
digest); in the device plugin chart leave `image.tag` empty (it defaults to
the chart's appVersion, so `helm install --version` pins it) or set a release
tag; in the GPU Operator set `devicePlugin.version` to a release tag.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import containers, images, operator, recognise
from gpulint.model.values import releases
from gpulint.model.values.paths import at_path
from gpulint.rules.api import Context, Document, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU401",
    "device-plugin-unpinned",
    Severity.WARNING,
    "The device plugin or GFD image has no tag or uses latest.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)


def _unpinned_message(what: str, image: str) -> str:
    _repo, tag, _digest = images.split_image(image)
    state = "has no tag" if tag is None else f"uses the tag {tag!r}"
    return (
        f"{what} image {image!r} {state}; every node may run a different release "
        "(pin a release tag such as v0.17.4, or a digest)"
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    view = operator.cluster_policy(resource)
    if view is not None:
        yield from _operator(view, f"ClusterPolicy {resource.name}")
        return
    for container in containers.plugin_containers(resource, init=True):
        if images.is_unpinned(container.image):
            what = (
                "device plugin"
                if images.image_kind(container.image) == images.DEVICE_PLUGIN
                else "GPU feature discovery"
            )
            yield Report(
                container.path + ("image",),
                _unpinned_message(what, container.image),
                container=container.name,
                at="value",
            )


# What a newer chart brings along.
_RELEASED = {
    recognise.DEVICE_PLUGIN_CHART: "a device plugin release",
    recognise.OPERATOR_CHART: "a GPU Operator release (driver, toolkit and plugin versions)",
}


@rule.document_check
def check_values(doc: Document, ctx: Context) -> Iterator[Report]:
    for release in releases.chart_versions(doc.data):
        if release.chart in recognise.CHARTS and releases.floats(release.version):
            written = (
                "sets no version"
                if release.version is None
                else (f"version {release.version!r} is a range")
            )
            yield Report(
                release.path,
                f"the {release.chart} chart release {written}: each reconcile may install a "
                f"newer chart, and with it {_RELEASED[release.chart]} nobody chose; pin one "
                "chart version",
                at="value",
            )
    for where in recognise.place(doc.data, recognise.values_for(ctx.settings)):
        data = at_path(doc.data, where.prefix)
        if not isinstance(data, dict):
            continue
        if where.kind == recognise.OPERATOR_CHART:
            yield from _operator(operator.values_view(data, where.prefix), "gpu-operator values")
        elif where.kind == recognise.DEVICE_PLUGIN_CHART:
            image = data.get("image")
            tag = image.get("tag") if isinstance(image, dict) else None
            if isinstance(tag, str) and tag.lower() == "latest":
                yield Report(
                    where.prefix + ("image", "tag"),
                    "image.tag is 'latest'; every node may run a different device plugin "
                    "release (leave it empty to use the chart's appVersion, or set a release "
                    "tag such as v0.17.4)",
                    at="value",
                )


def _operator(view: operator.OperatorView, label: str) -> Iterator[Report]:
    for block, what in (("devicePlugin", "device plugin"), ("gfd", "GPU feature discovery")):
        version = view.field(block, "version")
        if version is not None and isinstance(version[1], str) and version[1].lower() == "latest":
            yield Report(
                version[0],
                f"{label}: {block}.version is 'latest'; every node may run a different {what} "
                "release (set a release tag such as v0.17.4)",
                at="value",
            )
            continue
        repository = view.field(block, "repository")
        image = view.field(block, "image")
        verbatim = image is not None and isinstance(image[1], str) and "/" in image[1]
        assembled = (repository and repository[1]) or (version and version[1])
        if image is not None and verbatim and not assembled and images.is_unpinned(image[1]):
            message = f"{label}: " + _unpinned_message(what, image[1])
            yield Report(image[0], message, at="value")
