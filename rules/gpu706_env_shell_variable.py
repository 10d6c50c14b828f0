"""
## What it checks
An environment variable `value` that refers to another variable the shell
way, `${VAR}` or `$VAR`. Kubernetes expands only `$(VAR)`, and only for
variables defined earlier in the same container (`$$` escapes a `$`).

Not reported: a value that is nothing but one reference (`value: $HF_TOKEN`,
an `envsubst` placeholder in a file that is a template), options meant
for a launcher script (a variable named `*_ARGS`, `*_OPTS`, `*_OPTIONS`,
`*_FLAGS`, or a value starting with `-`), which such scripts often `eval`,
and a path list that refers only to itself where nothing it needs is lost:
`PATH: $PATH:/usr/bin:/opt/x/bin` (it still lists `/usr/bin`), or
`LD_LIBRARY_PATH: $LD_LIBRARY_PATH:/opt/x/lib` in a container that holds no
GPU (the image's entries a CUDA program needs are the driver's, mounted for
GPU containers only).

## Why it matters
No shell reads `env` values: the kubelet passes them to the container as they
are, after replacing `$(VAR)` references. `LD_LIBRARY_PATH:
${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64` therefore sets the library path
to the literal text `${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64`, dropping
the paths the image set, and CUDA fails with `libcudart.so: cannot open shared
object file` or `libcuda.so.1: cannot open shared object file` although the
files are there.

## Failing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      env:
        - name: BASE
          value: /usr/local/nvidia
        - name: LD_LIBRARY_PATH
          value: ${BASE}/lib64:/usr/local/cuda/lib64  # <- GPU706
        - name: PRICE
          value: $$5
      resources:
        limits:
          nvidia.com/gpu: 1
```

## Passing example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      env:
        - name: BASE
          value: /usr/local/nvidia
        - name: LD_LIBRARY_PATH
          value: $(BASE)/lib64:/usr/local/cuda/lib64
        - name: PRICE
          value: $$5
      resources:
        limits:
          nvidia.com/gpu: 1
```

## How to fix
Write the full value (`/usr/local/cuda/lib64:/usr/local/nvidia/lib64`), use
`$(VAR)` for a variable defined earlier in the same `env` list, or build
the value in the container's command (`sh -c 'export X=...; exec ...'`), where
a shell does expand it. When every variable the value names is defined earlier
in the same `env` list, `gpulint check --fix` rewrites `${VAR}` and `$VAR` as
`$(VAR)` (a safe fix: the kubelet then expands what the author meant); other
references (`$HOME`) are fixed by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.values.placeholders import is_sole_placeholder
from gpulint.rules.api import Context, FixSafety, Report, Resource, Rule, Severity, mentions, quoted
from gpulint.rules.fixes import builders

rule = Rule(
    "GPU706",
    "env-shell-variable",
    Severity.WARNING,
    "An env value uses ${VAR} or $VAR, which Kubernetes does not expand (only $(VAR)).",
    __doc__,
    fix=FixSafety.SAFE,
    reads=mentions("$"),  # a variable reference
)

# `$$` is an escaped dollar; after it nothing is a reference.
_SHELL_REF = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


# Options handed to a launcher script, which word-splits or evals them
# (KServe's vLLM launcher runs `eval "vllm serve ... ${VLLM_ADDITIONAL_ARGS}"`).
_ARGS_NAME = re.compile(r"(?:ARGS|OPTS|OPTIONS|FLAGS)$", re.IGNORECASE)


def meant_for_a_shell(name: str, value: str) -> bool:
    """Values a shell or envsubst, not the kubelet, is expected to expand."""
    text = value.strip()
    # A value that is nothing but one placeholder (`value: $HF_TOKEN`, `{{ .Values.token }}`):
    # the file is a template filled before it is applied, like `image: ${IMAGE}`.
    return bool(is_sole_placeholder(text) or _ARGS_NAME.search(name) or text.startswith("-"))


def _entries_kept(name: str, value: str, holds_gpus: bool) -> bool:
    """A path list that refers only to its own old value (``PATH: $PATH:/opt/x/bin``) loses
    the entries the image set; whether that harms is read from the rest of the value:
    ``PATH`` keeps working while it still lists ``/usr/bin``, and ``LD_LIBRARY_PATH`` of a
    container without GPUs loses no driver libraries (CUDA images list
    ``/usr/local/nvidia/lib64`` there for the driver the toolkit mounts)."""
    refs = {m.group(1) or m.group(2) for m in _SHELL_REF.finditer(value) if m.group(0) != "$$"}
    if refs != {name}:
        return False
    entries = set(value.split(":"))
    if name == "PATH":
        return "/usr/bin" in entries
    return name == "LD_LIBRARY_PATH" and not holds_gpus


def shell_references(value: str) -> list[str]:
    """The shell-style references in a value, as written (``${HOME}``, ``$HOME``)."""
    return [m.group(0) for m in _SHELL_REF.finditer(value) if m.group(0) != "$$"]


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for container in resource.containers:
        if is_infra_container(container):
            continue
        env = container.data.get("env")
        if not isinstance(env, list):
            continue
        for i, item in enumerate(env):
            if not isinstance(item, dict) or not isinstance(item.get("value"), str):
                continue
            name = str(item.get("name", f"#{i}"))
            found = shell_references(item["value"])
            if not found or meant_for_a_shell(name, item["value"]):
                continue
            if _entries_kept(name, item["value"], bool(container.gpus)):
                continue  # the literal is dead text, and what the program needs is listed
            names = ", ".join(dict.fromkeys(found))
            yield Report(
                container.path + ("env", i, "value"),
                f"env {name} uses {names}, which Kubernetes does not expand (only $(VAR) is); "
                f"the container gets the literal text {quoted(item['value'])}",
                container=container.name,
                at="value",
                fix=builders.env_references(
                    container.path + ("env", i, "value"), item["value"], env[:i]
                ),
            )
