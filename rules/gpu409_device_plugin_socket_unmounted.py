"""
## What it checks
A DaemonSet container that runs NVIDIA's device plugin (the `k8s-device-plugin`
image, not in its GPU feature discovery, MPS or config-manager roles) and mounts
nothing of the node at `/var/lib/kubelet/device-plugins`: no `hostPath` volume
at that path or at a folder above it (`/var/lib/kubelet`). The host side may be
anywhere (k0s and MicroK8s keep the kubelet's folder elsewhere); the container
side is what the plugin uses. A container whose command or environment names
another socket or plugin folder (a `kubelet`, `socket` or `device-plugin-path`
option) is left alone, and so is a mount whose volume is a placeholder.

## Why it matters
A device plugin registers with the kubelet through the kubelet's socket in
`/var/lib/kubelet/device-plugins/` and serves its own socket in the same folder
(the kubelet's device plugin API, `pluginapi.DevicePluginPath`). Without the
node's folder mounted there, the plugin finds no `kubelet.sock`
("Could not register device plugin: ... no such file or directory") and never
registers: the node advertises no `nvidia.com/gpu`, and every GPU pod stays
`Pending` with `Insufficient nvidia.com/gpu`. NVIDIA's static manifest and its
Helm chart mount the folder as a `hostPath`.

## Failing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin-daemonset
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin-ds}
  template:
    metadata:
      labels: {name: nvidia-device-plugin-ds}
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: nvidia-device-plugin-ctr  # <- GPU409
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
          securityContext:
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
```

## Passing example
```yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin-daemonset
  namespace: kube-system
spec:
  selector:
    matchLabels: {name: nvidia-device-plugin-ds}
  template:
    metadata:
      labels: {name: nvidia-device-plugin-ds}
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
          securityContext:
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
          volumeMounts:
            - name: device-plugin
              mountPath: /var/lib/kubelet/device-plugins
      volumes:
        - name: device-plugin
          hostPath:
            path: /var/lib/kubelet/device-plugins
```

## How to fix
Mount the node's `/var/lib/kubelet/device-plugins` (a `hostPath` volume) at
`/var/lib/kubelet/device-plugins` in the plugin container, as NVIDIA's
`nvidia-device-plugin.yml` does, or deploy the plugin with its Helm chart or the
GPU Operator, which do. No automatic fix: the host path depends on the
distribution.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.nvidia import containers, recognise
from gpulint.model.values.placeholders import is_placeholder
from gpulint.rules.api import (
    Container,
    Context,
    PodSpec,
    Report,
    Resource,
    Rule,
    Severity,
    mentions,
)

rule = Rule(
    "GPU409",
    "device-plugin-socket-unmounted",
    Severity.ERROR,
    "The device plugin mounts nothing of the node at /var/lib/kubelet/device-plugins; it "
    "never registers with the kubelet.",
    __doc__,
    reads=mentions(*recognise.MENTIONED, ignore_case=True),  # a plugin, GFD or operator input
)

PLUGIN_FOLDER = "/var/lib/kubelet/device-plugins"
# Words of an option that moves the plugin's socket folder (unknown to gpulint: left alone).
_RELOCATING = ("kubelet", "socket", "device-plugin-path")


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    if resource.kind != "DaemonSet":
        return
    for pod in resource.pod_specs:
        for container in pod.containers:
            if container.is_init and not container.is_sidecar:
                continue  # the chart's config-manager init container runs the image too
            if not containers.runs_plugin(container) or _relocated(container):
                continue
            if not _mounts_the_folder(pod, container):
                yield _report(container)


def _report(container: Container) -> Report:
    return Report(
        container.path + ("name",),
        f"the device plugin container {container.name!r} mounts nothing of the node at "
        f'{PLUGIN_FOLDER}: it finds no kubelet.sock there and never registers ("Could not '
        'register device plugin: ... no such file or directory"), so the node advertises '
        "no nvidia.com/gpu and GPU pods stay Pending; mount the node's folder there with a "
        "hostPath volume",
        container=container.name,
    )


def _relocated(container: Container) -> bool:
    words: list[str] = []
    for key in ("command", "args"):
        listed = container.data.get(key)
        words += [w for w in listed if isinstance(w, str)] if isinstance(listed, list) else []
    env = container.data.get("env")
    for entry in env if isinstance(env, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            words.append(entry["name"])
    text = " ".join(words).lower().replace("_", "-")
    return any(word in text for word in _RELOCATING)


def _mounts_the_folder(pod: PodSpec, container: Container) -> bool:
    """A mount at the plugin folder or above it, of a hostPath volume (or one gpulint
    cannot judge: a placeholder, a volume the pod does not define)."""
    listed = pod.spec.get("volumes")
    volumes = {
        v["name"]: v
        for v in (listed if isinstance(listed, list) else ())
        if isinstance(v, dict) and isinstance(v.get("name"), str)
    }
    mounts = container.data.get("volumeMounts")
    for mount in mounts if isinstance(mounts, list) else ():
        if not isinstance(mount, dict):
            continue
        path, name = mount.get("mountPath"), mount.get("name")
        if not isinstance(path, str) or not isinstance(name, str):
            return True  # written by something gpulint cannot read
        if is_placeholder(path) or is_placeholder(name):
            return True
        inside = path.rstrip("/") or "/"
        if not (PLUGIN_FOLDER + "/").startswith(inside.rstrip("/") + "/"):
            continue
        volume = volumes.get(name)
        if volume is None or "hostPath" in volume or not _known_source(volume):
            return True
    return False


def _known_source(volume: dict) -> bool:
    """A volume source that is certainly not the node's folder (an emptyDir, a ConfigMap)."""
    return any(key in volume for key in ("emptyDir", "configMap", "secret", "projected"))
