"""GPU infrastructure, recognised by image.

Device plugins, GPU feature discovery, DCGM exporters and the GPU Operators'
own components (NVIDIA's, AMD's, Intel's) legitimately run privileged, mount GPU
devices, set ``NVIDIA_VISIBLE_DEVICES`` or tolerate every taint; workload rules
leave them alone. Workload images of the same vendors (``rocm/pytorch``,
``nvcr.io/nvidia/k8s/cuda-sample``) are not infrastructure.
"""

from __future__ import annotations

import functools

from gpulint.model.resource import Container, PodSpec, shared
from gpulint.model.values.images import is_pause_image

# The last segment of an image repository's path (without tag or digest). A set, not one
# alternation: compiling that pattern was ~1.5 ms of every run.
_INFRA_NAMES = frozenset(
    {
        "k8s-device-plugin", "nvidia-device-plugin", "gpu-feature-discovery",
        "dcgm-exporter", "k8s-mig-manager", "mig-manager", "gpu-operator",
        "gpu-operator-validator", "container-toolkit", "k8s-driver-manager",
        "k8s-kata-manager", "k8s-cc-manager", "kubevirt-gpu-device-plugin",
        "vgpu-device-manager", "vgpu-manager", "k8s-dra-driver-gpu", "k8s-dra-driver",
        "dra-driver-nvidia-gpu", "cuda-validator", "node-feature-discovery",
        # the GPU Operator's GDS, GDRCopy and Kata sandbox operands (NVIDIA/gpu-operator
        # deployments/gpu-operator/values.yaml gds, gdrcopy, kataSandboxDevicePlugin),
        # named here too for mirrors of nvcr.io/nvidia/cloud-native
        "nvidia-fs", "gdrdrv", "nvidia-sandbox-device-plugin",
        "k8s-device-plugin-amd", "amd-gpu-device-plugin", "device-metrics-exporter",
        "intel-gpu-plugin", "intel-gpu-initcontainer", "intel-deviceplugin-operator",
        "hami", "hami-scheduler", "hami-device-plugin",
        # GKE's own GPU stack (github.com/GoogleCloudPlatform/container-engine-accelerators:
        # nvidia-driver-installer/*/daemonset*.yaml, cmd/nvidia_gpu): the driver installers,
        # the MIG partitioner and GKE's device plugin.
        "cos-nvidia-installer", "cos-gpu-installer", "ubuntu-nvidia-driver-installer",
        "nvidia-driver-installer", "nvidia-partition-gpu", "nvidia-gpu-device-plugin",
        # and its first ones (device-plugin-daemonset.yaml there, gcr.io/google-containers/)
        "cos-nvidia-driver-install", "device-plugin-gpu",
    }
)  # fmt: skip
_INFRA_REPOSITORY_PREFIXES = (
    "nvcr.io/nvidia/k8s/",  # dcgm-exporter, container-toolkit, ...
    "nvcr.io/nvidia/cloud-native/",  # gpu-operator-validator, k8s-driver-manager, dcgm, ...
    "nvcr.io/nvidia/driver",
    "nvcr.io/nvidia/dcgm",
    "projecthami/",
)
# Operands a vendor publishes in a namespace it shares with workload images (docker.io/rocm
# also holds rocm/pytorch, rocm/vllm, rocm/rocm-terminal; docker.io/intel holds
# intel/intel-extension-for-pytorch): the namespace (the path segment before the name) and
# the operand names in it, at any registry, since a mirror keeps the path (AMD's air-gapped
# guide pushes <internal-registry>/rocm/<name>). Each from the vendor's own lists (a few
# names are also in _INFRA_NAMES, which holds them in any namespace):
_VENDOR_OPERANDS: dict[str, frozenset[str]] = {
    # AMD GPU Operator (github.com/ROCm/gpu-operator): docs/specialized_networks/
    # airgapped-install.md "Required Images" (gpu-operator, gpu-operator-utils,
    # k8s-device-plugin and its labeller-* tags, k8s-node-labeller, device-metrics-exporter,
    # test-runner, device-config-manager, the four kernel-module-management-* images),
    # helm-charts-k8s/values.yaml and charts/kmm/values.yaml (the same), docs/dra/
    # dra-driver.md (k8s-gpu-dra-driver), airgapped-install-openshift.md (amdgpu-driver,
    # the driver source image KMM builds from).
    "rocm": frozenset(
        {
            "gpu-operator", "gpu-operator-utils", "k8s-device-plugin", "k8s-node-labeller",
            "device-metrics-exporter", "test-runner", "device-config-manager",
            "kernel-module-management-operator", "kernel-module-management-webhook-server",
            "kernel-module-management-worker", "kernel-module-management-signimage",
            "k8s-gpu-dra-driver", "amdgpu-driver",
        }
    ),
    # Intel (github.com/intel/intel-device-plugins-for-kubernetes build/docker/*.Dockerfile
    # and deployments/gpu_plugin: the plugin's levelzero sidecar, the XPU Manager sidecar;
    # intel/xpumanager deployment/kubernetes: its exporter DaemonSet, which mounts
    # /dev/dri; intel/intel-resource-drivers-for-kubernetes deployments/gpu: the DRA
    # driver, ghcr.io/intel/intel-gpu-resource-driver).
    "intel": frozenset(
        {
            "intel-gpu-plugin", "intel-gpu-initcontainer", "intel-gpu-levelzero",
            "intel-xpumanager-sidecar", "intel-deviceplugin-operator", "xpumanager",
            "intel-gpu-resource-driver",
        }
    ),
    # NVIDIA's driver container (github.com/NVIDIA/gpu-driver-container Makefile:
    # REGISTRY ?= nvidia, IMAGE_NAME := $(REGISTRY)/driver; nvcr.io/nvidia/driver, and
    # nvidia/driver on Docker Hub).
    "nvidia": frozenset({"driver"}),
}  # fmt: skip
# Workload samples published under an infrastructure prefix (vectoradd, nbody...).
_WORKLOAD_REPOSITORIES = ("nvcr.io/nvidia/k8s/cuda-sample",)
# The GPU Operator ships its operands with this image placeholder and fills it at run time
# (``FILLED BY THE OPERATOR``, ``FILLED_BY_OPERATOR``, any case).
_OPERATOR_PLACEHOLDERS = frozenset(
    f"FILLED BY {the}{who}" for the in ("", "THE ") for who in ("OPERATOR", "VALIDATOR")
)


def _operator_placeholder(image: str) -> bool:
    words = image.upper()
    return "  " not in words and words.replace("_", " ") in _OPERATOR_PLACEHOLDERS


def _repository(image: str) -> str:
    """``nvcr.io/nvidia/k8s-device-plugin:v0.17.0`` -> ``nvcr.io/nvidia/k8s-device-plugin``."""
    name = image.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name


@functools.lru_cache(maxsize=4096)  # a pure function of the text; every rule asks
def is_infra_image(image: str) -> bool:
    if not image:
        return False
    if _operator_placeholder(image.strip()):
        return True
    repo = _repository(image.strip())
    if repo.startswith(_WORKLOAD_REPOSITORIES):
        return False
    if repo.startswith(_INFRA_REPOSITORY_PREFIXES):
        return True
    parts = repo.rsplit("/", 2)
    if parts[-1] in _INFRA_NAMES:
        return True
    return len(parts) > 1 and parts[-1] in _VENDOR_OPERANDS.get(parts[-2], ())


def is_infra_container(container: Container) -> bool:
    return is_infra_image(container.image)


def is_infra_pod(pod: PodSpec) -> bool:
    """A pod whose regular containers are all GPU infrastructure, or the ``pause`` image
    behind infrastructure init containers (GKE's driver installer installs in an init
    container, then pauses). Judged once a pod: most rules about GPU pods ask."""
    return shared(pod, _infra_pod)


def _infra_pod(pod: PodSpec) -> bool:
    regular = pod.regular_containers()
    if not regular:
        return False
    if all(is_infra_container(c) for c in regular):
        return True
    return all(is_infra_container(c) or is_pause_image(c.image) for c in regular) and any(
        is_infra_container(c) for c in pod.init_containers()
    )
