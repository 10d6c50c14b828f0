"""Probes and placeholders: GPU containers that only look at the GPU, or only wait.

A container whose command runs nothing but a device probe (``nvidia-smi``, a CUDA
sample such as ``vectorAdd`` or ``nbody``) or a placeholder (``sleep``, ``tail -f
/dev/null``, ``echo``) does no work that its QoS class or its GPU model could spoil:
it is meant to run on any GPU, and eviction costs it nothing. Rules whose harm is to
the work (GPU106, GPU201) leave such pods alone. Only what the command says counts:
a container without ``command``/``args`` runs its image's entrypoint, unknown here,
except the CUDA sample images, which are probes by name.

An MPI worker that only runs ``sshd`` (its launcher's ``mpirun`` sends it the work over
ssh: MPIJob, a Volcano job with the ssh plugin) does what its launcher's program does: it
is a probe when every launcher of the same object runs a probe under ``mpirun``.

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
     "p2pbandwidthlatencytest", "nvbandwidth"}
)  # fmt: skip
# nvbandwidth: NVIDIA's bandwidth measurement tool (github.com/NVIDIA/nvbandwidth), the
# successor of the CUDA samples' bandwidthTest.
_MPI_LAUNCHERS = frozenset({"mpirun", "mpiexec", "orterun", "prterun"})
# What an MPI worker runs besides the ssh daemon the launcher reaches it through.
_WORKER_SETUP = _PLACEHOLDERS | {"sshd", "mkdir", "chmod", "chown", "cp", "service"}
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


def is_probe_pod(pod: PodSpec, resource: Resource | None = None) -> bool:
    """Whether every GPU container of the pod is a probe or a placeholder, or (given its
    ``resource``) an MPI worker whose launchers run probes (see the module docstring)."""
    holders = [c for c in pod.containers if c.gpus]
    if not holders:
        return False
    if all(is_probe(c) for c in holders):
        return True
    return (
        resource is not None and all(_ssh_worker(c) for c in holders) and _probe_launchers(resource)
    )


def _ssh_worker(container: Container) -> bool:
    programs = _programs([arg.text for arg in arguments(container)])
    return "sshd" in programs and all(p in _WORKER_SETUP for p in programs)


def _probe_launchers(resource: Resource) -> bool:
    """Whether the object has MPI launchers and each runs a probe under ``mpirun``."""
    launched = []
    for pod in resource.pod_specs:
        for container in pod.containers:
            words = [arg.text.rsplit("/", 1)[-1].lower() for arg in arguments(container)]
            start = next((i for i, w in enumerate(words) if w in _MPI_LAUNCHERS), None)
            if start is not None:
                launched.append(any(w in _PROBES for w in words[start + 1 :]))
    return bool(launched) and all(launched)


def is_one_off_pod(resource: Resource) -> bool:
    """Whether ``resource`` is a bare core/v1 Pod that runs once (see the module docstring);
    a Pod's restartPolicy defaults to Always (a long-running pod)."""
    if resource.kind != "Pod" or resource.api_version != "v1":
        return False
    spec = resource.obj.get("spec")
    return isinstance(spec, dict) and spec.get("restartPolicy") in ("Never", "OnFailure")
