"""
## What it checks
A vLLM, SGLang or Text Generation Inference container whose model weights alone
are larger than the memory of the GPUs that hold one copy of the model:

- the parameter count from the model id where its name states it
  (`Llama-3.1-70B`, `Qwen3-235B-A22B`: the total, not the active `A22B`), or a
  small table of models whose names mislead (`Mixtral-8x7B` is 46.7B, not 56B;
  `DeepSeek-V3`/`R1` 671B in FP8; `Llama-4-Scout-17B-16E` 109B; `gpt-oss-120b`);
- bytes per parameter from `--quantization`/`--quantize`, name suffixes (`FP8`,
  `AWQ`, `GPTQ`, `INT4`, `MXFP4`, `bnb-4bit`, GGUF `Q4_K_M`...) or `--dtype`,
  else 2 (an unquantized BF16/FP16 checkpoint);
- the GPUs: tensor x pipeline parallel (across the pods of a LeaderWorkerSet or
  Ray group too), else the container's `nvidia.com/gpu`; their memory is what
  GPU feature discovery reports for the product the pod selects
  (`nvidia.com/gpu.product`, `cloud.google.com/gke-accelerator`).

Names carry rounded counts, so the weights must exceed the GPUs' memory by more
than 5%. Nothing is reported when any part is unknown: no product selected, no
count in the name, a placeholder model, weights offloaded to the CPU.

## Why it matters
The server loads the weights before it serves anything: a model larger than
its GPUs fails at start-up with `CUDA out of memory` and restarts forever,
holding the GPUs.

## Failing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.1
          args:
            - --model=Qwen/Qwen3-235B-A22B  # <- GPU108
            - --tensor-parallel-size=4
          resources:
            limits:
              nvidia.com/gpu: 4
```

## Passing example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.9.1
          args:
            - --model=Qwen/Qwen3-235B-A22B-FP8
            - --tensor-parallel-size=4
          resources:
            limits:
              nvidia.com/gpu: 4
```

## How to fix
Serve a quantized checkpoint (FP8 halves BF16 weights, AWQ/GPTQ 4-bit quarter
them), split the model over more GPUs (a larger tensor parallel degree, or
pipeline parallel across the pods of a LeaderWorkerSet), or select a GPU with
more memory.
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
    "GPU108",
    "model-exceeds-gpu-memory",
    Severity.ERROR,
    "A served model's weights are larger than the memory of the GPUs that hold it.",
    __doc__,
)


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for fit in model_fits(resource):
        if not fit.cannot_fit:
            continue
        yield Report(
            fit.weights.path,
            f"{fit.arithmetic()}: the weights alone do not fit, so {fit.weights.engine} "
            f"fails at start-up with CUDA out of memory",
            container=fit.container.name,
            at="value",
        )
