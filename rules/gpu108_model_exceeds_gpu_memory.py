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

Names carry rounded counts, so an error needs weights more than 5% above the
GPUs' memory. Weights that fit but leave less than 10% (the option `kv-cache-share`)
of the memory the server may use for the KV cache and activations are a warning:
the GPUs' memory times `--gpu-memory-utilization` (vLLM, 0.9 when unset), `--mem-fraction-static`
(SGLang) or `--cuda-memory-fraction` (TGI); a command that sets the context
length (`--max-model-len`, `--context-length`, `--max-total-tokens`) has sized
its cache to what is left and gets no warning.

Without a product selector, the cluster profile's GPU models count when each of
them is in the catalog. Nothing is reported when any part is unknown: no product
selected or profiled, no count in the name, a placeholder model, weights
offloaded to the CPU.

## Why it matters
The server loads the weights before it serves anything: a model larger than
its GPUs fails at start-up with `CUDA out of memory` and restarts forever,
holding the GPUs. With almost nothing left after the weights, vLLM stops with
`No available memory for the cache blocks`, or refuses a context length its
cache cannot hold; at best it serves a few short requests at a time.

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
more memory. Where the weights only just fit, limiting the context length
(`--max-model-len`) or raising `--gpu-memory-utilization` also works.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpulint.model.serving.fit import GB, Fit, model_fits
from gpulint.rules.api import Context, Option, Report, Resource, Rule, Severity, mentions

rule = Rule(
    "GPU108",
    "model-exceeds-gpu-memory",
    Severity.ERROR,
    "A served model's weights exceed (or all but fill) the memory of the GPUs that hold it.",
    __doc__,
    # the serving engines it knows, by image or command (model_weights._engine)
    reads=mentions("vllm", "sglang", "text-generation", ignore_case=True),
    options=(
        Option(
            "kv-cache-share",
            float,
            0.10,
            "The share of the memory a server may use that the KV cache and activations need "
            "at the least; weights that leave less are a warning (0 turns the warning off).",
            {"minimum": 0, "maximum": 0.9},
        ),
    ),
)


def _kv_short(fit: Fit, kv_share: float) -> str | None:
    """Why the weights leave too little for the KV cache, or None."""
    if fit.weights.context_set:
        return None  # the context length was chosen to fit what is left
    fraction = fit.weights.fraction or 1.0
    usable = fit.memory_bytes * fraction
    total = fit.weights.total_bytes
    if total <= usable * (1 - kv_share):
        return None
    left = max(usable - total, 0) / GB
    return (
        f", of which {fit.weights.engine} may use {usable / GB:.0f} GB (x {fraction:g}); "
        f"{left:.0f} GB is left for the KV cache and activations, less than {kv_share:.0%}: "
        f'the server fails with "No available memory for the cache blocks" or serves short '
        f"contexts only"
    )


@rule.resource_check
def check(resource: Resource, ctx: Context) -> Iterator[Report]:
    for fit in model_fits(resource, ctx.profile):
        if fit.cannot_fit:
            yield Report(
                fit.weights.path,
                f"{fit.arithmetic()}: the weights alone do not fit, so {fit.weights.engine} "
                f"fails at start-up with CUDA out of memory",
                container=fit.container.name,
                at="value",
            )
            continue
        short = _kv_short(fit, ctx.option(rule, "kv-cache-share"))
        if short is not None:
            yield Report(
                fit.weights.path,
                fit.arithmetic() + short,
                container=fit.container.name,
                at="value",
                severity=Severity.WARNING,
            )
