"""Probes and placeholders: GPU containers that only look at the GPU, or only wait.

A container whose command runs nothing but a device probe (``nvidia-smi``, a CUDA
sample such as ``vectorAdd`` or ``nbody``) or a placeholder (``sleep``, ``tail -f
/dev/null``, ``echo``) does no work that its QoS class or its GPU model could spoil:
it is meant to run on any GPU, and eviction costs it nothing. Rules whose harm is to
the work (GPU106, GPU201) leave such pods alone. Only what the command says counts:
a container without ``command``/``args`` runs its image's entrypoint, unknown here,
except the CUDA sample images, which are probes by name.

A bare Pod that runs once (``restartPolicy: Never`` or ``OnFailure``, no controller to
recreate it) is a one-off run: a smoke test, an example, a debugging session. Production
work runs under a controller (a Deployment, a Job, an operator's CRD), where a pod lives
long enough to meet node pressure; GPU106 says less about the one-off kind.
"""

from __future__ import annotations

from gpulint.model.commands import arguments
from gpulint.model.resource import Container, PodSpec, Resource

_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "busybox"})
# Shell syntax after which the next word is a program again.
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", ";;", "!"})
_KEYWORDS = frozenset({"do", "then", "else", "elif", "while", "until", "if", "time"})
_CLOSERS = frozenset({"done", "fi", "esac", "{", "}"})
# Programs that wait, print, or filter what a probe printed.
_PLACEHOLDERS = frozenset(
    {"sleep", "tail", "true", ":", "echo", "printf", "ls", "cat", "env", "printenv", "date",
     "hostname", "wait", "exit", "set", "trap", "exec", "export", "nproc", "free", "uname",
     "grep", "head", "wc"}
)  # fmt: skip
# Programs that only query or exercise the device (driver tools; CUDA and ROCm samples).
_PROBES = frozenset(
    {"nvidia-smi", "rocm-smi", "amd-smi", "rocminfo", "xpu-smi", "clinfo", "vectoradd",
     "vectoradd_cuda", "devicequery", "bandwidthtest", "nbody", "simplemultigpu",
     "p2pbandwidthlatencytest"}
)  # fmt: skip
_SAMPLE_IMAGES = ("nvcr.io/nvidia/k8s/cuda-sample:", "k8s.gcr.io/cuda-vector-add:")


def _programs(words: list[str]) -> list[str]:
    """The words in program position: the first, and each after a separator or keyword
    (a shell and its flags are skipped: ``sh -c "nvidia-smi; sleep 5"`` runs two programs)."""
    found, expect = [], True
    for word in words:
        if word in _SEPARATORS or word in _KEYWORDS:
            expect = True
            continue
        if word in _CLOSERS or not expect:
            continue
        name = word.rsplit("/", 1)[-1].lower()
        if name in _SHELLS or name.startswith("-"):
            continue
        found.append(name)
        expect = False
    return found


def is_probe(container: Container) -> bool:
    """Whether the container only probes the GPU or waits (see the module docstring)."""
    if "command" not in container.data and container.image.startswith(_SAMPLE_IMAGES):
        return True  # the sample is the entrypoint; args are its flags
    programs = _programs([arg.text for arg in arguments(container)])
    if not programs:
        return False
    return all(p in _PLACEHOLDERS or p in _PROBES for p in programs)


def is_probe_pod(pod: PodSpec) -> bool:
    """Whether every GPU container of the pod is a probe or a placeholder."""
    holders = [c for c in pod.containers if c.gpus]
    return bool(holders) and all(is_probe(c) for c in holders)


def is_one_off_pod(resource: Resource) -> bool:
    """Whether ``resource`` is a bare core/v1 Pod that runs once (see the module docstring);
    a Pod's restartPolicy defaults to Always (a long-running pod)."""
    if resource.kind != "Pod" or resource.api_version != "v1":
        return False
    spec = resource.obj.get("spec")
    return isinstance(spec, dict) and spec.get("restartPolicy") in ("Never", "OnFailure")
