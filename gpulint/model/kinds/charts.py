"""The pods of charts whose values are pod specs, read from a GitOps release's inline values.

A chart that is not in the repository cannot be rendered, but some charts' values mirror a
pod spec so closely that the pods can be read from them. Only the charts of this table are
read; a chart not in it is never guessed at (its values may mean anything).

bjw-s ``app-template`` (bjw-s-labs/helm-charts, ``charts/library/common``; the app-template
chart renders only this library):

- ``controllers.<name>`` is one workload (``enabled: false`` renders nothing; ``type``
  deployment by default; ``replicas`` default 1); its ``containers.<name>`` are the pod's
  containers, each named by its key (``templates/lib/container/_spec.tpl``);
- a container's ``image`` is a mapping: ``repository``, ``tag`` (or ``digest``), and
  ``pullPolicy``, written as the container's ``imagePullPolicy``; ``resources``,
  ``securityContext``, ``command`` and ``args`` are copied; ``env`` is a list of
  EnvVars or a mapping ``NAME: value`` (or ``NAME: {value: ...}``, ``NAME: {valueFrom: ...}``,
  ``NAME: {secretKeyRef: ...}``), rendered as the list (``_env.tpl``);
- each pod option (``runtimeClassName``, ``nodeSelector``, ``tolerations``, ``affinity``,
  ``securityContext``, ``hostIPC``, ``hostPID``, ``hostNetwork``, ``priorityClassName``)
  comes from the controller's ``pod.<option>`` when set, else from the values'
  ``defaultPodOptions.<option>`` (``templates/lib/pod/_spec.tpl`` and ``_getOption.tpl``:
  ``defaultPodOptionsStrategy`` defaults to ``overwrite``).

Volumes (``persistence``) are not read: rules about mounts are not judged on these pods.

otwld ``ollama`` (otwld/ollama-helm): its Deployment's one pod, read by ``kinds/ollama.py``
(the template and versions read are cited there). A chart of that name is another
publisher's (cowboysysop's ``ollama``) or a folder of the repository (a wrapper chart) as
often as otwld's, so the release must not say otherwise: where the chart's repository is
named (an Argo CD source's ``repoURL``, a kustomize ``helmCharts`` entry's ``repo``, the URL
of a Helmfile repository the chart's ``repo/`` prefix names, the ``spec.url`` of the Flux
``HelmRepository`` a HelmRelease's ``sourceRef`` names when the run holds it), it must be
one otwld publishes the chart at (:data:`OLLAMA_REPOSITORIES`); a chart in a folder (an Argo
CD ``path`` source, a Flux chart from a ``GitRepository`` or ``Bucket`` or given as a path,
a Helmfile or kustomize chart without a repository) is never read as it. A Flux
``HelmRepository`` the run does not hold says nothing: there the chart's name decides.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulint.core.record import record
from gpulint.model.kinds import ollama
from gpulint.model.kinds.sites import Built, mapping
from gpulint.model.values import joined, releases
from gpulint.model.values.paths import at_path

APP_TEMPLATE = "app-template"
OLLAMA = "ollama"
# The Helm repositories otwld publishes the chart at, without their https:// and final /:
# otwld/ollama-helm's README ("helm repo add ollama-helm https://otwld.github.io/ollama-helm/")
# and otwld/helm-charts' README ("This repository backs https://helm.otwld.com", "helm
# upgrade --install ollama otwld/ollama"). Neither names an OCI registry: an oci:// URL is
# another publisher's.
OLLAMA_REPOSITORIES = ("otwld.github.io/ollama-helm", "helm.otwld.com")
HELMFILE_RELEASE = "HelmfileRelease"
HELMFILE_API = "helmfile/release"  # not a served API: a Helmfile's release, read as a kind
# The pod options app-template writes into the pod spec (bjw-s-labs/helm-charts,
# charts/library/common/templates/lib/pod/_spec.tpl, getOption: the controller's ``pod``,
# else ``defaultPodOptions``), those gpulint reads; ``resourceClaims`` only from Kubernetes
# 1.32 on, older than every release the project still supports.
_POD_OPTIONS = (
    "runtimeClassName",
    "schedulerName",
    "nodeSelector",
    "tolerations",
    "affinity",
    "securityContext",
    "hostIPC",
    "hostPID",
    "hostNetwork",
    "priorityClassName",
    "restartPolicy",
    "resourceClaims",
)
# A controller's ``type`` and the kind it renders (templates/classes/).
_KINDS = {
    "deployment": "Deployment",
    "statefulset": "StatefulSet",
    "daemonset": "DaemonSet",
    "cronjob": "CronJob",
    "job": "Job",
}
_COPIED = ("resources", "securityContext", "command", "args", "workingDir")


@record(frozen=True)
class ChartPod:
    """One controller of a release's values, as the pod the chart renders."""

    built: Built
    name: str  # the controller's key: the role the pod plays in the release
    replicas: int
    workload_kind: str  # the kind the controller's type renders (Deployment by default)


def helmfile_releases(data: Any) -> Iterator[tuple[tuple, str, str | None]]:
    """(path, name, namespace) of each release of a Helmfile whose chart is in the table: a
    Helmfile is no Kubernetes object, so each such release is read as a resource of its own
    (kind :data:`HELMFILE_RELEASE`)."""
    if not isinstance(data, dict) or "apiVersion" in data:
        return
    entries = data.get("releases")
    for index, entry in enumerate(entries if isinstance(entries, list) else ()):
        if not isinstance(entry, dict) or not isinstance(entry.get("chart"), str):
            continue
        if entry["chart"].strip().rstrip("/").rsplit("/", 1)[-1] in (APP_TEMPLATE, OLLAMA):
            namespace = entry.get("namespace")
            name = str(entry.get("name") or "<unnamed>")
            yield ("releases", index), name, str(namespace) if namespace is not None else None


@record(frozen=True)
class Release:
    """Where a release names its chart, and what the object itself says of the chart."""

    chart_at: tuple  # the chart reference's path
    version: str | None  # the chart version pinned, as written (None: not set)
    # The repository URL the object names for the chart ("": named in another object).
    repository: str
    local: bool  # the chart is a folder (a Git path, a local chart), not a repository's


def chart_pods(obj: Any, scope: tuple = ()) -> Iterator[ChartPod]:
    """The pods of each release of a chart in the table that ``obj`` holds inline (only
    those whose values lie under ``scope``: one release of a Helmfile)."""
    for chart, values_path in releases.chart_values(obj):
        if values_path[: len(scope)] != scope:
            continue
        if chart == OLLAMA:
            pod = _ollama_pod(obj, values_path)
            if pod is not None:
                yield pod
            continue
        if chart != APP_TEMPLATE:
            continue
        values = at_path(obj, values_path)
        controllers = values.get("controllers") if isinstance(values, dict) else None
        if not isinstance(controllers, dict):
            continue
        for key, controller in controllers.items():
            if isinstance(controller, dict) and controller.get("enabled") is not False:
                path = values_path + ("controllers", key)
                yield _controller_pod(values, values_path, str(key), controller, path)


def _controller_pod(
    values: dict, values_path: tuple, key: str, controller: dict, path: tuple
) -> ChartPod:
    pod_path = path + ("pod",)
    spec: dict = {}
    redirects: list = []
    own = mapping(controller.get("pod"))
    defaults = mapping(values.get("defaultPodOptions"))
    for option in _POD_OPTIONS:
        if _set(own.get(option)):
            spec[option] = own[option]
        elif _set(defaults.get(option)):
            spec[option] = defaults[option]
            redirects.append((pod_path + (option,), values_path + ("defaultPodOptions", option)))
    containers = []
    written = controller.get("containers")
    for name, container in written.items() if isinstance(written, dict) else ():
        if isinstance(container, dict) and container.get("enabled") is not False:
            at = path + ("containers", name)
            data, moved = _container(str(name), container, at)
            containers.append((at, data))
            redirects.extend(moved)
    replicas = controller.get("replicas")
    count = replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
    kind = _KINDS.get(str(controller.get("type", "deployment")).lower(), "Deployment")
    built = Built(pod_path, spec, tuple(containers), tuple(redirects))
    return ChartPod(built, key, max(count, 0), kind)


def _set(value: Any) -> bool:
    """Helm's ``empty``: an option that is unset, empty or null falls back to the default;
    a boolean is always set."""
    return isinstance(value, bool) or value not in (None, "", [], {})


def _container(name: str, written: dict, at: tuple) -> tuple[dict, list]:
    """The container the chart renders from ``written``, and where its fields were written."""
    data: dict = {"name": name}
    redirects: list = []
    image = written.get("image")
    if isinstance(image, dict):
        reference = _image(image)
        if reference is not None:
            data["image"] = reference
        if isinstance(image.get("pullPolicy"), str):
            data["imagePullPolicy"] = image["pullPolicy"]
            redirects.append((at + ("imagePullPolicy",), at + ("image", "pullPolicy")))
    for field in _COPIED:
        if field in written:
            data[field] = written[field]
    env, moved = _env(written.get("env"), at)
    if env is not None:
        data["env"] = env
        redirects.extend(moved)
    return data, redirects


def _image(image: dict) -> str | None:
    repository = image.get("repository")
    if not isinstance(repository, str) or not repository:
        return None
    digest, tag = image.get("digest"), image.get("tag")
    if isinstance(digest, str) and digest:
        return f"{repository}@{digest}"
    if isinstance(tag, str | int | float) and not isinstance(tag, bool) and str(tag):
        return f"{repository}:{tag}"
    return repository


def _env(env: Any, at: tuple) -> tuple[list | None, list]:
    """``env`` as the EnvVar list it renders, with each item's path to where it was written."""
    if isinstance(env, list):
        return env, []
    if not isinstance(env, dict):
        return None, []
    items: list = []
    redirects: list = []
    for name, value in env.items():
        virtual, real = at + ("env", len(items)), at + ("env", name)
        if isinstance(value, dict) and "value" in value:
            items.append({"name": str(name), "value": value["value"]})
            redirects.append((virtual + ("value",), real + ("value",)))
        elif isinstance(value, dict):
            source = value.get("valueFrom", value)
            items.append({"name": str(name), "valueFrom": source})
        else:
            items.append({"name": str(name), "value": value})
            redirects.append((virtual + ("value",), real))
        redirects.append((virtual, real))
    return items, redirects


def _ollama_pod(obj: Any, values_path: tuple) -> ChartPod | None:
    release = release_of(obj, values_path)
    if release is None or release.local:
        return None
    if release.repository and not otwld_repository(release.repository):
        return None  # another publisher's chart of that name
    read = ollama.read(at_path(obj, values_path), values_path, release.chart_at, release.version)
    if read is None:
        return None
    built, replicas = read
    return ChartPod(built, OLLAMA, replicas, "Deployment")


def otwld_repository(url: str) -> bool:
    """Whether ``url`` is a repository otwld publishes the ``ollama`` chart at."""
    text = url.strip().lower()
    for scheme in ("https://", "http://"):
        if text.startswith(scheme):
            return text[len(scheme) :].rstrip("/") in OLLAMA_REPOSITORIES
    return False  # oci:// (otwld publishes none) or no URL at all


def _flux_repository(obj: dict) -> str:
    """The URL of the HelmRepository a HelmRelease's ``sourceRef`` names, when the run holds
    it ("": it does not); of several it may be, one not otwld's if any (not established)."""
    extra = joined.of(obj, ("spec",))
    urls = extra.repositories if extra is not None else ()
    return next((url for url in urls if not otwld_repository(url)), urls[0] if urls else "")


def release_of(obj: Any, values_path: tuple) -> Release | None:
    """The release whose inline values sit at ``values_path`` (``releases.chart_values``)."""
    if not isinstance(obj, dict) or not values_path:
        return None
    kind = obj.get("kind")
    # spec.values, or (values read from valuesFrom too) the merged view anchored at spec
    if kind == "HelmRelease" and values_path[:1] == ("spec",):
        spec = ("spec", "chart", "spec")
        reference = at_path(obj, spec + ("chart",))
        source = mapping(at_path(obj, spec + ("sourceRef",))).get("kind")
        local = source in ("GitRepository", "Bucket") or "/" in str(reference)
        version = _text(at_path(obj, spec + ("version",)))
        return Release(spec + ("chart",), version, _flux_repository(obj), local)
    if kind in ("Application", "ApplicationSet") and "helm" in values_path:
        at = values_path[: values_path.index("helm")]
        source = mapping(at_path(obj, at))
        if not source.get("chart"):
            return Release(at + ("path",), None, "", True)  # a chart in a Git folder
        version = _text(source.get("targetRevision"))
        return Release(at + ("chart",), version, str(source.get("repoURL") or ""), False)
    if kind == "Kustomization" and values_path[:1] == ("helmCharts",):
        at = values_path[:2]
        entry = mapping(at_path(obj, at))
        repository = str(entry.get("repo") or "")
        # no repo: a chart of the kustomization's chartHome folder
        return Release(at + ("name",), _text(entry.get("version")), repository, not repository)
    if values_path[:1] == ("releases",):
        at = values_path[:2]
        entry = mapping(at_path(obj, at))
        return _helmfile_release(obj, at, entry)
    return None


def _helmfile_release(obj: dict, at: tuple, entry: dict) -> Release:
    reference = str(entry.get("chart") or "").strip()
    version = _text(entry.get("version"))
    if reference.startswith((".", "/")) or "/" not in reference:
        return Release(at + ("chart",), version, "", True)  # a local chart folder
    if "://" in reference:
        return Release(at + ("chart",), version, reference, False)  # oci://...
    alias = reference.split("/", 1)[0]
    url = ""
    for repository in obj.get("repositories") or ():
        if isinstance(repository, dict) and repository.get("name") == alias:
            url = str(repository.get("url") or "")
    return Release(at + ("chart",), version, url, False)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, bool | dict | list):
        return None
    return str(value)
