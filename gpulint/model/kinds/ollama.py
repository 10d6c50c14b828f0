"""The pod of the otwld ``ollama`` chart (github.com/otwld/ollama-helm), read from its values.

What was read, in the search index's stored copies of otwld/ollama-helm (no newer copy of the
template was available; a version this module reads beyond them is read as these render):

- ``templates/deployment.yaml`` at commit bf05e98b02dc7d9f1becd193f02b813166761b7a (a 0.x
  release from 0.59.0 on: Knative, ``extraEnv``, ``ollama.gpu.nvidiaResource``,
  ``ollama.gpu.mig.devices`` and a custom ``lifecycle``, no ``NVIDIA_VISIBLE_DEVICES``, no
  ``extraEnvFrom`` yet), with ``values.yaml`` at 7d5e2accda30 (its defaults) and
  ``templates/knative/service.yaml`` at c1aecea576428a;
- the chartsnap snapshots ``test/__snapshots__/test_*.values.snap`` of chart 1.4.1 (the
  Deployment's ``resources``, ``env`` and ``imagePullPolicy`` rendered as above);
- ``templates/resourceclaimtemplate.yaml`` at 60a9ef4dcc79 (``ollama.gpu.draEnabled``, chart
  1.2x, PR #189) and the chart repository's ``index.yaml`` at 21bf3c2cb13b (the changelog of
  0.1.x to 0.60.0: ``nvidiaResource`` in 0.46.0, ``mig.devices`` in 0.55.0, "remove duplicated
  environment variables" in 0.59.0); issue #98 (chart 0.58.0) shows the Deployment setting
  ``NVIDIA_VISIBLE_DEVICES=all`` itself before that.

The Deployment renders one pod with one container named ``ollama`` (``.Chart.Name``):

- ``replicas`` is ``replicaCount`` (1) unless ``autoscaling.enabled`` (then the HPA keeps at
  least ``autoscaling.minReplicas``, 1);
- the container: ``image.repository:image.tag`` (a tag left empty defaults to the chart's
  appVersion, which the values do not say: no image is read then), ``image.pullPolicy``
  (``IfNotPresent``), ``securityContext``, ``env`` (``PATH`` first when an NVIDIA GPU is
  enabled, then ``extraEnv``), ``args`` (``extraArgs``), ``volumeMounts`` (``ollama-data`` at
  ``ollama.mountPath`` or ``/root/.ollama``, then ``volumeMounts``) and ``resources`` when
  ``resources`` is not empty (its default ``{requests: {}, limits: {}}`` is not);
- with ``ollama.gpu.enabled``, ``type: nvidia`` (or no type) and MIG off, the limits get
  ``<nvidiaResource | default "nvidia.com/gpu">: <number | default 1>`` and the pod a
  toleration ``{key: <that resource>, operator: Exists, effect: NoSchedule}``; with
  ``mig.enabled``, ``nvidia.com/mig-<key>: <count>`` for each of ``mig.devices`` and a
  toleration on each such key; with ``type: amd``, ``amd.com/gpu: <number | default 1>`` and
  no toleration. Sprig's ``merge`` keeps a limit the values already give for that resource;
- the pod: ``hostIPC``/``hostPID``/``hostNetwork`` when true, ``securityContext`` from
  ``podSecurityContext``, ``runtimeClassName`` when set, ``initContainers``, the chart's
  tolerations then ``tolerations``, ``nodeSelector``, ``affinity``,
  ``topologySpreadConstraints``, and ``volumes`` (``ollama-data``: the PVC with
  ``persistentVolume.enabled``, else an ``emptyDir``; then ``volumes``).

Not read (no pod): a pinned chart version before 0.59.0 (those set ``NVIDIA_VISIBLE_DEVICES``
and older ones read ``ollama.gpu.enable``/``nbrGpu``; their templates were not read), a release
with ``knative.enabled`` (a Knative Service, not read), one with ``ollama.gpu.draEnabled`` and
the GPU enabled (the DRA Deployment template was not available: whether it still sets the
limit and the toleration is not established), values the template would fail on or whose
outcome depends on Go's or Sprig's edge cases (a GPU ``type`` that is not a string, a limit
already written as an empty value for the resource the chart adds, ``initContainers``
holding template text, which ``tpl`` renders). Pod labels, annotations, probes and lifecycle
hooks are not read.

Positions: what the values write is reported where it is written (``extraEnv`` items,
``tolerations``, ``resources``...); what the chart adds because of a value is reported at that
value: the GPU limit at ``ollama.gpu.nvidiaResource`` (when it names another resource), else
``ollama.gpu.number``, else ``ollama.gpu.enabled`` (``type`` for AMD); a MIG limit and its
toleration at their ``mig.devices`` entry; the GPU toleration and ``PATH`` at
``ollama.gpu.enabled``; everything else the chart renders of its own at the release's chart
reference.
"""

from __future__ import annotations

from typing import Any

from gpulint.core.lazy_re import lazy
from gpulint.model.kinds.sites import Built
from gpulint.model.values.releases import floats

# The first chart version whose Deployment this module reads (see the docstring).
FIRST_READ = (0, 59, 0)
_VERSION = lazy(r"^\s*v?(\d+)\.(\d+)\.(\d+)")
_NVIDIA_GPU = "nvidia.com/gpu"
_DATA = "ollama-data"
# The pod's virtual path under the values: a key the chart's values never use.
_POD = "(pod)"


def read(
    values: Any, values_path: tuple, chart_at: tuple, version: str | None
) -> tuple[Built, int] | None:
    """The pod the chart's Deployment renders from ``values`` and how many replicas, or None
    when the chart renders none or the module cannot establish what it renders."""
    if not isinstance(values, dict) or not version_read(version):
        return None
    return _Reader(values, values_path, chart_at).pod()


def version_read(version: str | None) -> bool:
    """Whether a release pinning ``version`` renders the Deployment read here: unset or a
    range (the newest chart that matches), or an exact version from 0.59.0 on."""
    if floats(version):
        return True
    found = _VERSION.match(version or "")
    return found is not None and tuple(int(n) for n in found.groups()) >= FIRST_READ


def truthy(value: Any) -> bool:
    """Go template truth: false, 0, nil and empty strings and collections are false."""
    return value is not None and value is not False and value != 0 and value not in ("", [], {})


def _go_text(value: Any) -> str:
    """How ``{{ value }}`` prints a YAML scalar."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _has_template(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(_has_template(k) or _has_template(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_template(v) for v in value)
    return False


class _Unread(Exception):
    """The values reach a part of the template whose outcome is not established."""


class _Reader:
    def __init__(self, values: dict, at: tuple, chart_at: tuple) -> None:
        self.values = values
        self.at = at  # the values mapping's path
        self.chart_at = chart_at  # the release's chart reference
        self.pod_at = at + (_POD,)
        self.container_at = self.pod_at + ("containers", 0)
        self.redirects: list[tuple[tuple, tuple]] = [(self.pod_at, chart_at)]

    # --- values, with the chart's defaults ----------------------------------------------------

    def written(self, *keys: str) -> bool:
        node: Any = self.values
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        return True

    def get(self, *keys: str, default: Any = None) -> Any:
        """The value at ``keys``: the one written, else the chart's default (a ``null``
        written deletes the default, as Helm's coalescing does)."""
        node: Any = self.values
        for key in keys:
            if not isinstance(node, dict):
                raise _Unread  # the template would index a scalar
            if key not in node:
                return default
            node = node[key]
        return node

    def real(self, *keys: str | int) -> tuple:
        return self.at + keys

    def written_or(self, keys: tuple, fallback: tuple) -> tuple:
        return self.real(*keys) if self.written(*keys) else fallback

    # --- the pod --------------------------------------------------------------------------------

    def pod(self) -> tuple[Built, int] | None:
        try:
            if truthy(self.get("knative", "enabled", default=False)):
                return None  # a Knative Service instead of the Deployment: not read
            gpu = self.get("ollama", "gpu", default={})
            if not isinstance(gpu, dict):
                raise _Unread
            self.gpu = _Gpu(self, gpu)
            spec = self.spec()
            container = self.container()
        except _Unread:
            return None
        built = Built(self.pod_at, spec, ((self.container_at, container),), tuple(self.redirects))
        return built, self.replicas()

    def replicas(self) -> int:
        if truthy(self.get("autoscaling", "enabled", default=False)):
            count = self.get("autoscaling", "minReplicas", default=1)
        else:
            count = self.get("replicaCount", default=1)
        if isinstance(count, bool) or not isinstance(count, int):
            return 1
        return max(count, 0)

    def spec(self) -> dict:
        spec: dict = {}
        for key in ("hostIPC", "hostPID", "hostNetwork"):
            value = self.get(key, default=False)
            if truthy(value):
                if value is not True:
                    raise _Unread  # printed as text, then read as YAML: not established
                spec[key] = True
                self.redirects.append((self.pod_at + (key,), self.real(key)))
        context = self.get("podSecurityContext", default={})
        if context is not None:
            spec["securityContext"] = context
            if self.written("podSecurityContext"):
                moved = (self.pod_at + ("securityContext",), self.real("podSecurityContext"))
                self.redirects.append(moved)
        runtime = self.get("runtimeClassName", default="")
        if truthy(runtime):
            spec["runtimeClassName"] = _go_text(runtime)
            moved = (self.pod_at + ("runtimeClassName",), self.real("runtimeClassName"))
            self.redirects.append(moved)
        init = self.get("initContainers", default=[])
        if truthy(init):
            if not isinstance(init, list) or _has_template(init):
                raise _Unread  # tpl renders it, or toYaml writes no list
            spec["initContainers"] = init
            moved = (self.pod_at + ("initContainers",), self.real("initContainers"))
            self.redirects.append(moved)
        spec["volumes"] = self.volumes()
        for key in ("nodeSelector", "affinity", "topologySpreadConstraints"):
            value = self.get(key)
            if truthy(value):
                spec[key] = value
                self.redirects.append((self.pod_at + (key,), self.real(key)))
        tolerations = self.tolerations()
        if tolerations:
            spec["tolerations"] = tolerations
        return spec

    def tolerations(self) -> list:
        """The chart's GPU tolerations, then the values' (``or gpu.enabled tolerations``)."""
        added = self.gpu.tolerations()
        written = self.get("tolerations", default=[])
        if truthy(written) and not isinstance(written, list):
            raise _Unread
        own = written if truthy(written) else []
        at = self.pod_at + ("tolerations",)
        if own:
            self.redirects.append((at, self.real("tolerations")))
        elif added:
            self.redirects.append((at, added[0][1]))
        for index, (_, cause) in enumerate(added):
            self.redirects.append((at + (index,), cause))
        for index in range(len(own)):
            self.redirects.append((at + (len(added) + index,), self.real("tolerations", index)))
        return [item for item, _ in added] + list(own)

    def volumes(self) -> list:
        data: dict = {"name": _DATA}
        if truthy(self.get("persistentVolume", "enabled", default=False)):
            claim = self.get("persistentVolume", "existingClaim", default="")
            data["persistentVolumeClaim"] = {"claimName": claim} if truthy(claim) else {}
        else:
            data["emptyDir"] = {}
        at = self.pod_at + ("volumes",)
        self.redirects.append((at + (0,), self.written_or(("persistentVolume",), self.chart_at)))
        extra = self._list("volumes")
        if extra:
            self.redirects.append((at, self.real("volumes")))
        for index in range(len(extra)):
            self.redirects.append((at + (index + 1,), self.real("volumes", index)))
        return [data, *extra]

    def _list(self, key: str) -> list:
        """A list the template writes with ``with ... toYaml``: nothing when empty."""
        value = self.get(key, default=[])
        if not truthy(value):
            return []
        if not isinstance(value, list):
            raise _Unread  # toYaml of a mapping where the template expects list items
        return value

    # --- the container --------------------------------------------------------------------------

    def container(self) -> dict:
        at = self.container_at
        data: dict = {"name": "ollama"}
        image = self.get("image", default={})
        if not isinstance(image, dict):
            raise _Unread
        repository = image.get("repository", "ollama/ollama")
        tag = image.get("tag", "")
        if isinstance(repository, str) and repository and truthy(tag):
            data["image"] = f"{repository}:{_go_text(tag)}"
            self.redirects.append((at + ("image",), self.real("image")))
        policy = image.get("pullPolicy", "IfNotPresent")
        if isinstance(policy, str) and policy:
            data["imagePullPolicy"] = policy
            if self.written("image", "pullPolicy"):
                moved = (at + ("imagePullPolicy",), self.real("image", "pullPolicy"))
                self.redirects.append(moved)
        context = self.get("securityContext", default={})
        if context is not None:
            data["securityContext"] = context
            if self.written("securityContext"):
                moved = (at + ("securityContext",), self.real("securityContext"))
                self.redirects.append(moved)
        env = self.env()
        if env:
            data["env"] = env
        args = self._list("extraArgs")
        if args:
            data["args"] = args
            self.redirects.append((at + ("args",), self.real("extraArgs")))
        data["volumeMounts"] = self.volume_mounts()
        resources = self.resources()
        if resources is not None:
            data["resources"] = resources
        return data

    def env(self) -> list:
        at = self.container_at + ("env",)
        items: list = []
        if self.gpu.nvidia:
            path = "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin"
            items.append({"name": "PATH", "value": path + ":/usr/sbin:/usr/bin:/sbin:/bin"})
            self.redirects.append((at + (0,), self.gpu.enabled_at))
        extra = self._list("extraEnv")
        self.redirects.append((at, self.real("extraEnv") if extra else self.gpu.enabled_at))
        for index in range(len(extra)):
            self.redirects.append((at + (len(items) + index,), self.real("extraEnv", index)))
        return items + list(extra)

    def volume_mounts(self) -> list:
        at = self.container_at + ("volumeMounts",)
        where = self.get("ollama", "mountPath", default="")
        mounts: list = [
            {"name": _DATA, "mountPath": _go_text(where) if truthy(where) else "/root/.ollama"}
        ]
        self.redirects.append((at + (0,), self.written_or(("ollama", "mountPath"), self.chart_at)))
        extra = self._list("volumeMounts")
        if extra:
            self.redirects.append((at, self.real("volumeMounts")))
        for index in range(len(extra)):
            self.redirects.append((at + (index + 1,), self.real("volumeMounts", index)))
        return mounts + list(extra)

    def resources(self) -> dict | None:
        """``resources`` as the template renders it: the values' (coalesced with the default
        ``{requests: {}, limits: {}}``), with the GPU limits the chart adds."""
        written = self.get("resources", default={})
        if written is None:
            return None  # `resources: null` deletes the default: the block is not rendered
        if not isinstance(written, dict):
            raise _Unread
        merged: dict = {"requests": {}, "limits": {}}
        for key, value in written.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        if not truthy(merged):
            return None  # `if .Values.resources`
        written_limits = merged.get("limits")
        if truthy(written_limits) and not isinstance(written_limits, dict):
            raise _Unread
        limits: dict = dict(written_limits) if isinstance(written_limits, dict) else {}
        at = self.container_at + ("resources",)
        added = self.gpu.limits()
        for name, (count, cause) in added.items():
            if name in limits:
                if not truthy(limits[name]):
                    raise _Unread  # mergo may or may not fill a key whose value is empty
                continue  # merge: the value already written wins
            limits[name] = count
            self.redirects.append((at + ("limits", name), cause))
        merged["limits"] = limits
        cause = next(iter(added.values()))[1] if added else self.chart_at
        self.redirects.append((at, self.written_or(("resources",), cause)))
        if self.written("resources", "limits"):
            self.redirects.append((at + ("limits",), self.real("resources", "limits")))
        elif added:
            self.redirects.append((at + ("limits",), cause))
        return merged


class _Gpu:
    """What ``ollama.gpu`` makes the chart add, and the value that causes each addition."""

    def __init__(self, reader: _Reader, gpu: dict) -> None:
        self.reader = reader
        self.enabled = truthy(gpu.get("enabled", False))
        self.enabled_at = reader.real("ollama", "gpu", "enabled")
        kind = gpu.get("type", "nvidia")
        if self.enabled and not isinstance(kind, str):
            raise _Unread  # `eq <not a string> "nvidia"` is a template error
        if self.enabled and truthy(gpu.get("draEnabled", False)):
            raise _Unread  # the DRA Deployment template was not read
        self.nvidia = self.enabled and (kind == "nvidia" or not kind)
        self.amd = self.enabled and kind == "amd"
        mig = gpu.get("mig", {"enabled": False, "devices": {}})
        if truthy(mig) and not isinstance(mig, dict):
            raise _Unread
        self.mig = truthy(mig) and truthy(mig.get("enabled", False))
        devices = mig.get("devices", {}) if self.mig else {}
        if self.nvidia and self.mig and truthy(devices) and not isinstance(devices, dict):
            raise _Unread
        self.devices = devices if truthy(devices) else {}
        number = gpu.get("number", 1)
        self.count = number if truthy(number) else 1
        resource = gpu.get("nvidiaResource", _NVIDIA_GPU)
        if self.nvidia and truthy(resource) and not isinstance(resource, str):
            raise _Unread
        self.resource = resource if truthy(resource) else _NVIDIA_GPU
        written = reader.written
        self.number_at = (
            reader.real("ollama", "gpu", "number")
            if written("ollama", "gpu", "number")
            else self.enabled_at
        )
        named = written("ollama", "gpu", "nvidiaResource") and self.resource != _NVIDIA_GPU
        self.resource_at = reader.real("ollama", "gpu", "nvidiaResource") if named else None

    def _device_at(self, key: Any) -> tuple:
        return self.reader.real("ollama", "gpu", "mig", "devices", key)

    def limits(self) -> dict[str, tuple[Any, tuple]]:
        """resource -> (count, the value that causes it)."""
        added: dict[str, tuple[Any, tuple]] = {}
        if self.nvidia and not self.mig:
            added[self.resource] = (self.count, self.resource_at or self.number_at)
        elif self.nvidia:
            for key in sorted(self.devices, key=str):
                added[f"nvidia.com/mig-{key}"] = (self.devices[key], self._device_at(key))
        if self.amd:
            written = self.reader.written("ollama", "gpu", "number")
            cause = self.number_at if written else self.reader.real("ollama", "gpu", "type")
            added.setdefault("amd.com/gpu", (self.count, cause))
        return added

    def tolerations(self) -> list[tuple[dict, tuple]]:
        """(toleration, the value that causes it) the chart puts first."""
        if not self.nvidia:
            return []
        if not self.mig:
            item = {"key": self.resource, "operator": "Exists", "effect": "NoSchedule"}
            return [(item, self.resource_at or self.enabled_at)]
        return [
            (
                {"key": f"nvidia.com/mig-{key}", "operator": "Exists", "effect": "NoSchedule"},
                self._device_at(key),
            )
            for key in sorted(self.devices, key=str)
        ]
