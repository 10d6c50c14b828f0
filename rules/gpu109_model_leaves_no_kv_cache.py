"""
## What it checks
A vLLM, SGLang or Text Generation Inference container whose model weights fit
its GPUs but leave less than 10% of the memory the server may use for the KV
cache and activations. The memory the server may use is the GPUs' memory (as
GPU108 works it out) times `--gpu-memory-utilization` (vLLM, 0.9 when unset),
`--mem-fraction-static` (SGLang) or `--cuda-memory-fraction` (TGI). Weights that
do not fit at all are GPU108's. A command that sets the context length
(`--max-model-len`, SGLang `--context-length`, TGI `--max-total-tokens`) has
sized the cache to what is left and is not reported.

## Why it matters
After loading the weights the server sizes its KV cache from what is left.
With almost nothing left vLLM stops with `No available memory for the cache
blocks`, or starts with a cache too small for the model's context length
(`The model's max seq len is larger than the maximum number of tokens that can
be stored in KV cache`); at best it serves a handful of short requests at once.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.1
          args:
            - --model=meta-llama/Llama-3.1-70B-Instruct  # <- GPU109
            - --tensor-parallel-size=2
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
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.1
          args:
            - --model=meta-llama/Llama-3.1-70B-Instruct
            - --tensor-parallel-size=4
          resources:
            limits:
              nvidia.com/gpu: 4
```

## How to fix
Give the model more GPUs (a larger tensor parallel degree), serve a quantized
checkpoint, or raise `--gpu-memory-utilization` if nothing else shares the GPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from gpulint.findings import Severity
from gpulint.model.model_fit import model_fits
from gpulint.model.resource import Resource
from gpulint.rules.registry import Report, Rule

if TYPE_CHECKING:
    from gpulint.engine.run import Context

rule = Rule(
    "GPU109",
    "model-leaves-no-kv-cache",
    Severity.WARNING,
    "A served model's weights leave less than 10% of the usable GPU memory for the KV cache.",
    __doc__,
)

# The share of the usable memory the KV cache and activations need at the least.
KV_SHARE = 0.10


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for fit in model_fits(resource):
        total = fit.weights.total_bytes
        if fit.cannot_fit or fit.weights.context_set:
            continue  # GPU108's; or a context length chosen to fit what is left
        fraction = fit.weights.fraction or 1.0
        usable = fit.memory_bytes * fraction
        if total <= usable * (1 - KV_SHARE):
            continue
        left = max(usable - total, 0) / 1e9
        yield Report(
            fit.weights.path,
            f"{fit.arithmetic()}, of which {fit.weights.engine} may use "
            f"{usable / 1e9:.0f} GB (x {fraction:g}); {left:.0f} GB is left for the KV cache "
            f"and activations, less than {KV_SHARE:.0%}: the server fails with "
            f'"No available memory for the cache blocks" or serves short contexts only',
            container=fit.container.name,
            at="value",
        )
