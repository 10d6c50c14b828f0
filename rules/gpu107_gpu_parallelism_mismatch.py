"""
## What it checks
A container holding GPUs whose command sets a parallel degree that differs
from the number of GPUs it holds:

- vLLM `--tensor-parallel-size`/`-tp` x `--pipeline-parallel-size`/`-pp`
  (x `--data-parallel-size[-local]`), as `--flag=N` or `--flag N`, also inside
  an `sh -c "..."` script;
- SGLang `--tp`/`--tp-size` (x `--pp-size`, x `--dp` without DP attention);
- Text Generation Inference `--num-shard` or the env `NUM_SHARD`;
- torchrun `--nproc-per-node`/`--nproc_per_node`.

The GPUs it holds are its device plugin resources and the devices of the DRA
claims it uses, where the run defines the claim (model/gpu_holding.py); a DRA
request with `allocationMode: All` holds a count only the node knows and is not
compared.

When the model is spread over several pods (`--nnodes N`, a Ray cluster,
`--distributed-executor-backend ray`, a command that starts or joins one
(`ray start`, vLLM's `multi-node-serving.sh`, `--ray_address`,
`--ray_cluster_size`), a `LeaderWorkerSet` group of more than
one pod, a Dynamo component with `multinode.nodeCount` above 1), a degree
larger than the container's GPUs is expected and only a split that cannot
come out even is reported.

## Why it matters
More ranks than GPUs fails at start-up (vLLM: `The number of required GPUs
exceeds the total number of available GPUs in the placement group`; torchrun
ranks crash with `invalid device ordinal`). Fewer ranks than GPUs starts fine
and leaves the extra GPUs idle, reserved and paid for, with nothing in the
logs.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  replicas: 1
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args:
            - --model=meta-llama/Llama-3.1-70B-Instruct
            - --tensor-parallel-size
            - "4"  # <- GPU107
          resources:
            limits:
              nvidia.com/gpu: 2
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  replicas: 1
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args:
            - --model=meta-llama/Llama-3.1-70B-Instruct
            - --tensor-parallel-size
            - "4"
          resources:
            limits:
              nvidia.com/gpu: 4
```

## How to fix
Make the product of the parallel degrees equal to the container's GPU limit,
changing whichever is wrong. Templating both from one value (a Helm value or
an env var referenced as `$(TP)`) keeps them from drifting apart.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.gpu.holding import container_holding
from gpulint.model.gpu.infra import is_infra_container
from gpulint.model.serving.fit import spans_pods
from gpulint.model.serving.parallelism import arguments, command_line
from gpulint.rules.api import Container, Context, Report, Resource, Rule, Severity

rule = Rule(
    "GPU107",
    "gpu-parallelism-mismatch",
    Severity.WARNING,
    "A serving or training command's parallel degree differs from the GPUs its container holds.",
    __doc__,
    pods_only=True,
)

# What a launcher says when it has fewer GPUs than ranks.
START_ERRORS = {
    "vllm/sglang": '"The number of required GPUs exceeds the total number of available GPUs" '
    "(vLLM)",
    "torchrun": '"CUDA error: invalid device ordinal"',
}


def _runs_sglang(container: Container) -> bool:
    """SGLang shares vLLM's flags' meaning but not its error message."""
    text = " ".join([container.image, *(a.text for a in arguments(container))]).lower()
    return "sglang" in text


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    group_of_pods = spans_pods(resource)
    for container in resource.containers:
        holding = container_holding(container, ctx.profile)
        held = holding.count
        if not held or is_infra_container(container):  # None: a DRA count only the node knows
            continue
        found = command_line(container).parallelism
        if found is None:
            continue
        wanted = found.per_pod
        if wanted == held:
            continue
        spread = found.multi_node or group_of_pods
        if wanted > held and spread and wanted % held == 0:
            continue  # the group spans several pods of `held` GPUs each
        gpus = holding.describe(container)
        if wanted > held:
            effect = f"it needs {wanted} GPUs per pod and fails at start-up"
            if found.launcher in START_ERRORS and not _runs_sglang(container):
                effect += f": {START_ERRORS[found.launcher]}"
        else:
            effect = f"{held - wanted} of the GPUs sit idle"
        yield Report(
            found.degrees[0].path,
            f"{found.describe()} = {wanted} GPUs per pod, but container {container.name!r} "
            f"holds {held} ({gpus}); {effect}",
            container=container.name,
            at="value",
        )
