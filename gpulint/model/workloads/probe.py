"""Probes and placeholders: GPU containers that only look at the GPU, or only wait.

A container whose command runs nothing but a device probe (``nvidia-smi``, a CUDA
sample such as ``vectorAdd`` or ``nbody``) or a placeholder (``sleep``, ``tail -f
/dev/null``, ``echo``) does no work that its QoS class or its GPU model could spoil:
it is meant to run on any GPU, and eviction costs it nothing. Rules whose harm is to
the work (GPU106, GPU201) leave such pods alone. Only what the command says counts:
a container without ``command``/``args`` runs its image's entrypoint, unknown here,
except the CUDA sample images, which are probes by name. ``exec``, ``env`` and
``nohup`` count as the program they run (``exec python train.py`` is work).

A GPU check script is a probe too: an interpreter (``python``, ``python3``,
``python3.11``) running a script whose file name says it checks the GPU, that is whose
stem, split on ``-``, ``_`` and ``.``, holds both a check word (test, check, smoke,
probe, verify, sanity) and a device word (gpu, gpus, cuda, nccl, device, devices):
``gpu-test.py``, ``check_cuda.py``, ``nccl_check.py``. Examples and smoke tests ship
such scripts to show that a pod sees its GPUs; they run for seconds and do no work a
QoS class or a GPU model could spoil. Both words are required, so that work is never
taken for a probe: ``test.py`` (which test?), ``gpu_train.py`` (GPU work),
``run_trial.py`` are not probes; nor is ``python -c``/``python -m`` (no script name),
nor a script name that is a variable. Only the pod-level question (:func:`is_probe_pod`:
GPU106, GPU201) takes a check script for a probe; :func:`is_probe` (GPU302, GPU705)
does not: a Python check imports its image's CUDA and framework, which pinning keeps
stable, and an NCCL check passes data between ranks through ``/dev/shm``.

An MPI worker that only runs ``sshd`` (its launcher's ``mpirun`` sends it the work over
ssh: MPIJob, a Volcano job with the ssh plugin) does what its launcher's program does: it
is a probe when every launcher of the same object runs a probe under ``mpirun``.

A pod whose GPU containers run the ``pause`` image holds GPUs and runs nothing: a probe
too (a placeholder that reserves a node, a scheduling test).
"""

from __future__ import annotations

import re

from gpulint.core.lazy_re import lazy
from gpulint.model.resource import Container, PodSpec, Resource, shared
from gpulint.model.serving.parallelism import arguments
from gpulint.model.values.images import is_pause_image

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
# The driver's management tools: they query (or set) device state through NVML and
# run no kernel on the device, as a container granted only the `utility` capability.
_QUERIES = frozenset({"nvidia-smi", "rocm-smi", "amd-smi", "rocminfo", "xpu-smi"})
# nvbandwidth: NVIDIA's bandwidth measurement tool (github.com/NVIDIA/nvbandwidth), the
# successor of the CUDA samples' bandwidthTest.
# A GPU check script's name: both a check word and a device word (see the module docstring).
_INTERPRETER = lazy(r"^python(?:3(?:\.\d+)?)?$")
_CHECK_WORDS = frozenset({"test", "check", "smoke", "probe", "verify", "sanity"})
_DEVICE_WORDS = frozenset({"gpu", "gpus", "cuda", "nccl", "device", "devices"})
# Programs that run the command that follows them (``exec python train.py`` runs Python,
# not a placeholder); alone (``env``, ``exec >log``) they are what they are.
_PREFIXES = frozenset({"exec", "env", "nohup"})
_ASSIGNMENT = lazy(r"^[A-Za-z_][A-Za-z0-9_]*=")
_MPI_LAUNCHERS = frozenset({"mpirun", "mpiexec", "orterun", "prterun"})
# What an MPI worker runs besides the ssh daemon the launcher reaches it through.
_WORKER_SETUP = _PLACEHOLDERS | {"sshd", "mkdir", "chmod", "chown", "cp", "service"}
_SAMPLE_IMAGES = ("nvcr.io/nvidia/k8s/cuda-sample:", "k8s.gcr.io/cuda-vector-add:")


def _runs(words: list[str]) -> list[tuple[str, list[str]]]:
    """The programs a command line runs, each with the words up to the next separator:
    the first word, and each after a separator or keyword (a shell and its flags are
    skipped: ``sh -c "nvidia-smi; sleep 5"`` runs two programs; ``exec``, ``env`` and
    ``nohup`` give way to the program they run)."""
    found: list[tuple[str, list[str]]] = []
    expect, prefixed = True, False
    for word in words:
        if word in _SEPARATORS or word in _KEYWORDS:
            expect, prefixed = True, False
            continue
        if word in _CLOSERS:
            continue
        if not expect:
            if found:
                found[-1][1].append(word)
            continue
        name = word.rsplit("/", 1)[-1].lower()
        if name in _SHELLS or name.startswith("-"):
            continue
        if found and found[-1][0] in _PREFIXES and prefixed:
            if _ASSIGNMENT.match(word):
                continue  # env FOO=1 python ...
            found.pop()  # exec/env/nohup run the program that follows: that one counts
        prefixed = name in _PREFIXES
        found.append((name, []))
        expect = prefixed
    return found


def _programs(words: list[str]) -> list[str]:
    """The names of the programs a command line runs (see :func:`_runs`)."""
    return [name for name, _ in _runs(words)]


def is_check_script(name: str, args: list[str]) -> bool:
    """Whether program ``name`` with ``args`` is an interpreter running a GPU check script
    (see the module docstring): the first word that is not a flag names a ``.py`` file
    whose stem holds a check word and a device word."""
    if not name.startswith("python") or not _INTERPRETER.match(name):
        return False
    script = next((a for a in args if not a.startswith("-")), None)
    if script is None or any(a in ("-c", "-m") for a in args[: args.index(script)]):
        return False  # no script, or code given inline or as a module
    base = script.rsplit("/", 1)[-1].lower()
    if not base.endswith(".py") or "$" in base:
        return False
    parts = set(re.split(r"[-_.]", base[: -len(".py")]))
    return bool(parts & _CHECK_WORDS) and bool(parts & _DEVICE_WORDS)


def _probe_run(name: str, args: list[str], scripts: bool) -> bool:
    if name in _PLACEHOLDERS or name in _PROBES:
        return True
    return scripts and is_check_script(name, args)


def is_probe(container: Container, scripts: bool = False) -> bool:
    """Whether the container only probes the GPU or waits (see the module docstring); with
    ``scripts``, a GPU check script counts as a probe too."""
    if "command" not in container.data and container.image.startswith(_SAMPLE_IMAGES):
        return True  # the sample is the entrypoint; args are its flags
    if "command" not in container.data and is_pause_image(container.image):
        return True  # the pause container only sleeps (a pod that holds nodes for a test)
    runs = _runs([arg.text for arg in arguments(container)])
    return bool(runs) and all(_probe_run(name, args, scripts) for name, args in runs)


def only_queries(container: Container) -> bool:
    """Whether the container's command runs nothing but the driver's management tools
    (``nvidia-smi``) and placeholders: it reads the GPUs' state and runs no work on them
    (a node labeler, a health or inventory DaemonSet). A CUDA sample is work; so is an
    entrypoint the command does not name."""
    runs = _runs([arg.text for arg in arguments(container)])
    return any(name in _QUERIES for name, _ in runs) and all(
        name in _QUERIES or name in _PLACEHOLDERS for name, _ in runs
    )


def is_probe_pod(pod: PodSpec, resource: Resource | None = None) -> bool:
    """Whether every GPU container that runs the pod's work is a probe (a GPU check script
    included) or a placeholder, or (given its ``resource``) an MPI worker whose launchers run
    probes (see the module docstring). The work is the app containers and sidecars: a classic
    init container runs once before it (counted only when nothing else holds a GPU).
    Judged once a pod given its own resource (what a pod is for, and three rules, ask)."""
    if resource is not None and resource is pod.resource:
        return shared(pod, _probe_pod_in_resource)
    return _probe_pod(pod, resource)


def _probe_pod_in_resource(pod: PodSpec) -> bool:
    return _probe_pod(pod, pod.resource)


def _probe_pod(pod: PodSpec, resource: Resource | None) -> bool:
    holders = [c for c in pod.containers if c.gpus]
    working = [c for c in holders if not c.is_init or c.is_sidecar]
    holders = working or holders
    if not holders:
        return False
    if all(is_probe(c, scripts=True) for c in holders):
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
            words = [arg.text for arg in arguments(container)]
            names = [w.rsplit("/", 1)[-1].lower() for w in words]
            start = next((i for i, w in enumerate(names) if w in _MPI_LAUNCHERS), None)
            if start is not None:
                launched.append(_launches_probe(words[start + 1 :], names[start + 1 :]))
    return bool(launched) and all(launched)


def _launches_probe(words: list[str], names: list[str]) -> bool:
    """Whether the words after ``mpirun`` name a probe program, or an interpreter running
    a GPU check script (``mpiexec -np 2 python /tmp/gpu-test.py``)."""
    return any(
        name in _PROBES or is_check_script(name, words[i + 1 :]) for i, name in enumerate(names)
    )
