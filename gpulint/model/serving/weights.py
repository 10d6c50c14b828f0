"""How much GPU memory a served model's weights take, from what the command line says.

The model id (vLLM ``--model`` or ``vllm serve MODEL``, SGLang ``--model-path``, TGI
``--model-id`` or env ``MODEL_ID``) gives the parameter count where its name states it
(``Llama-3.1-70B``, ``Qwen3-235B-A22B``: the total, never the ``A22B`` active count);
the precision comes from ``--quantization``/``--quantize`` (env ``QUANTIZE``), name
suffixes (``-FP8``, ``-AWQ``, ``-bnb-4bit``, GGUF ``Q4_K_M``...) and ``--dtype``, else the
BF16/FP16 of an unquantized checkpoint. Anything not certain gives None: rules stay
silent rather than guess.
"""

from __future__ import annotations

import re

from gpulint.core.lazy_re import LazyPattern, lazy
from gpulint.core.record import record
from gpulint.model.serving.parallelism import (
    NUM_SHARD_FLAGS,
    PP_FLAGS,
    TP_FLAGS,
    Arg,
    CommandLine,
    literal_env,
)
from gpulint.model.values import placeholders

MODEL_FLAGS = ("--model", "--model-path", "--model-id", "--model-name-or-path")
QUANT_FLAGS = ("--quantization", "-q", "--quantize")
DTYPE_FLAGS = ("--dtype",)
# vLLM --gpu-memory-utilization (default 0.9, vllm/engine/arg_utils.py); SGLang
# --mem-fraction-static (chosen at start-up when unset); TGI --cuda-memory-fraction (1.0).
FRACTION_FLAGS = ("--gpu-memory-utilization", "--mem-fraction-static", "--cuda-memory-fraction")
VLLM_DEFAULT_FRACTION = 0.9
# A context length the user chose: the KV cache is sized for it, not for the model's maximum.
CONTEXT_FLAGS = ("--max-model-len", "--context-length", "--max-total-tokens", "--max-input-length")
# Weights kept in host memory: the GPUs need not hold them all.
OFFLOAD_FLAGS = ("--cpu-offload-gb", "--offload-group-size", "--kt-cpuinfer")

# Names where the count misleads, or the checkpoint is natively quantized; the total
# parameters from each model's own card:
# - Mixtral-8x7B: 46.7B total, 12.9B per token (Mistral AI, "Mixtral of experts", 2023-12-11)
# - Mixtral-8x22B: 141B total, 39B active (Mistral AI, "Cheaper, Better, Faster, Stronger",
#   2024-04-17)
# - DeepSeek-V3/R1: 671B total, 37B active, weights shipped in FP8 (deepseek-ai/DeepSeek-V3
#   README_WEIGHTS.md; DeepSeek-R1 shares the V3 architecture)
# - Llama-4-Scout-17B-16E: 109B total; Llama-4-Maverick-17B-128E: 400B total (Meta, "The Llama 4
#   herd", 2025-04-05): the 17B in the name is the active count
# - gpt-oss-120b: 117B total, gpt-oss-20b: 21B, MoE weights in MXFP4 (OpenAI gpt-oss model card)
KNOWN_MODELS: tuple[tuple[LazyPattern[str], float, float | None, str], ...] = (
    (lazy(r"^mixtral-8x7b"), 46.7e9, None, "Mixtral-8x7B: 46.7B in total, not 8 x 7B"),
    (lazy(r"^mixtral-8x22b"), 141e9, None, "Mixtral-8x22B: 141B in total"),
    (
        lazy(r"^deepseek-(?:v3|r1)(?!.*(?:distill|lite))"),
        671e9,
        1.0,
        "DeepSeek-V3/R1: 671B, shipped in FP8",
    ),
    (lazy(r"^llama-4-scout-17b-16e"), 109e9, None, "Llama-4-Scout: 109B in total"),
    (lazy(r"^llama-4-maverick-17b-128e"), 400e9, None, "Llama-4-Maverick: 400B in total"),
    (lazy(r"^gpt-oss-120b"), 117e9, 0.5, "gpt-oss-120b: 117B, MoE weights in MXFP4"),
    (lazy(r"^gpt-oss-20b"), 21e9, 0.5, "gpt-oss-20b: 21B, MoE weights in MXFP4"),
)

_COUNT = lazy(r"^(\d+(?:\.\d+)?)([bm])$")
_EXPERTS = lazy(r"^\d+e$|^\d+x\d+(?:\.\d+)?[bm]$")  # 16E, 8x7B: the name hides the total
_GGUF_QUANT = lazy(r"^i?q(\d)(?:_[a-z0-9]+)*$")  # Q4_K_M, IQ2_XS, Q8_0
# Name tokens that fix the bytes per parameter of the stored weights.
_NAME_BYTES = {
    "fp8": 1.0,
    "int8": 1.0,
    "w8a8": 1.0,
    "w8a16": 1.0,
    "8bit": 1.0,
    "awq": 0.5,
    "gptq": 0.5,
    "int4": 0.5,
    "w4a16": 0.5,
    "mxfp4": 0.5,
    "nvfp4": 0.5,
    "fp4": 0.5,
    "nf4": 0.5,
    "4bit": 0.5,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp32": 4.0,
}
# Name tokens that say "quantized" without saying how far: the size is unknown.
_NAME_UNKNOWN = frozenset(
    ("gguf", "ggml", "exl2", "exl3", "hqq", "aqlm", "eetq", "quantized", "quant", "3bit", "2bit")
)
# --quantization / --quantize values (vLLM, SGLang, TGI) -> bytes per parameter of the weights
# at least (the scales and the unquantized layers add a little).
_QUANT_BYTES = {
    "fp8": 1.0,
    "fbgemm_fp8": 1.0,
    "ptpc_fp8": 1.0,
    "w8a8_int8": 1.0,
    "w8a8_fp8": 1.0,
    "eetq": 1.0,
    "bitsandbytes": None,  # 4-bit in vLLM, 8-bit in TGI: decided per launcher below
    "bitsandbytes-nf4": 0.5,
    "bitsandbytes-fp4": 0.5,
    "awq": 0.5,
    "awq_marlin": 0.5,
    "gptq": 0.5,
    "gptq_marlin": 0.5,
    "marlin": 0.5,
    "mxfp4": 0.5,
    "modelopt_fp4": 0.5,
}
_DTYPE_BYTES = {
    "float16": 2.0,
    "half": 2.0,
    "bfloat16": 2.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "float32": 4.0,
    "float": 4.0,
}


@record(frozen=True)
class Weights:
    """A model's weights: what the count and precision are, and where the model is named."""

    model: str
    path: tuple  # the command/args item or env value naming the model
    engine: str  # "vLLM", "SGLang" or "TGI"
    parameters: float
    bytes_per_parameter: float
    precision: (
        str  # how the bytes were decided ("BF16, unquantized checkpoint", "--quantization awq")
    )
    note: str | None  # the table entry used, when the name misleads
    fraction: float | None  # the share of GPU memory the engine may use, when known
    context_set: bool  # the command limits the context length

    @property
    def total_bytes(self) -> float:
        return self.parameters * self.bytes_per_parameter


def _normal(text: str) -> str:
    flag, sep, value = text.partition("=")
    return (flag.replace("_", "-") + sep + value) if text.startswith("--") else text


def _flag(words: list[Arg], flags: tuple[str, ...]) -> Arg | None:
    """The value of the last ``--flag V`` or ``--flag=V`` (argparse: the last one wins)."""
    found = None
    for i, word in enumerate(words):
        text = _normal(word.text)
        for flag in flags:
            if text == flag and i + 1 < len(words) and not words[i + 1].text.startswith("-"):
                found = words[i + 1]
            elif text.startswith(flag + "="):
                found = Arg(text[len(flag) + 1 :], word.path)
    return found


def _engine(words: list[Arg], image: str) -> str | None:
    text = " ".join(w.text for w in words).lower() + " " + image.lower()
    if "text-generation-launcher" in text or "text-generation-inference" in text:
        return "TGI"
    if "sglang" in text:
        return "SGLang"
    if "vllm" in text:
        return "vLLM"
    return None


def _model_arg(words: list[Arg], env: dict[str, tuple[str, tuple]]) -> Arg | None:
    found = _flag(words, MODEL_FLAGS)
    if found is not None:
        return found
    for i, word in enumerate(words[:-1]):  # vllm serve MODEL
        serve = word.text.rsplit("/", 1)[-1] == "vllm" and words[i + 1].text == "serve"
        if serve and i + 2 < len(words) and not words[i + 2].text.startswith("-"):
            return words[i + 2]
    if "MODEL_ID" in env:
        return Arg(*env["MODEL_ID"])
    return None


def _name(model: str) -> str:
    return model.rstrip("/").rsplit("/", 1)[-1].lower()


def _count(name: str) -> float | None:
    """The parameter count a name states (70B, 1.5B, 135M); None when absent or unclear."""
    words = [t for t in re.split(r"-", name) if t]
    if any(_EXPERTS.match(w) for w in words):
        return None
    counts = set()
    for word in words:
        match = _COUNT.match(word)
        if match:
            counts.add(float(match[1]) * (1e9 if match[2] == "b" else 1e6))
    return counts.pop() if len(counts) == 1 else None


def _name_bytes(name: str) -> tuple[float | None, bool]:
    """(bytes per parameter the name states, whether the name hides an unknown quantization)."""
    tokens = set(re.split(r"[-_.]", name)) | set(re.split(r"[-.]", name))
    found = [_NAME_BYTES[t] for t in tokens if t in _NAME_BYTES]
    for token in re.split(r"[-.]", name):
        match = _GGUF_QUANT.match(token)
        if match:
            found.append(int(match[1]) / 8)
    if len(set(found)) == 1:
        return found[0], False
    return None, bool(found) or bool(tokens & _NAME_UNKNOWN)


def _fraction(words: list[Arg], engine: str) -> float | None:
    found = _flag(words, FRACTION_FLAGS)
    if found is not None:
        try:
            value = float(found.text.strip("'\""))
        except ValueError:
            return None
        return value if 0 < value <= 1 else None
    return VLLM_DEFAULT_FRACTION if engine == "vLLM" else (1.0 if engine == "TGI" else None)


def _quant_bytes(words: list[Arg], env: dict, engine: str) -> tuple[float | None, str] | None:
    """Bytes the --quantization flag gives; None: no flag; (None, ...): a flag of unknown size."""
    found = _flag(words, QUANT_FLAGS)
    value = found.text if found is not None else env.get("QUANTIZE", (None,))[0]
    if value is None:
        return None
    value = value.strip("'\"").lower()
    label = f"--quantization {value}"
    if value == "bitsandbytes":
        return (1.0 if engine == "TGI" else 0.5), label  # TGI: LLM.int8; vLLM: 4-bit
    return _QUANT_BYTES.get(value), label


def weights(line: CommandLine, image: str) -> Weights | None:
    """The weights a serving container loads, or None when any part is unknown."""
    words = line.words
    engine = _engine(words, image)
    if engine is None or _flag(words, OFFLOAD_FLAGS) is not None:
        return None
    env = literal_env(line.container)
    arg = _model_arg(words, env)
    if arg is None or placeholders.is_placeholder(arg.text) or "$" in arg.text:
        return None
    name = _name(arg.text)
    parameters, native, note = _count(name), None, None
    for pattern, count, stored, why in KNOWN_MODELS:
        if pattern.match(name):
            parameters, native, note = count, stored, why
            break
    if parameters is None:
        return None
    quant = _quant_bytes(words, env, engine)
    named, hidden = _name_bytes(name)
    if quant is not None and quant[0] is not None:
        size, precision = quant
    elif quant is not None and named is None:
        return None  # a quantization method whose size only the checkpoint knows
    elif named is not None:
        size, precision = named, f"{name_suffix(named)} in the name"
    elif hidden:
        return None
    elif native is not None:
        size, precision = native, "as shipped"
    else:
        dtype = _flag(words, DTYPE_FLAGS) or (
            Arg(*env["DTYPE"]) if engine == "TGI" and "DTYPE" in env else None
        )
        text = dtype.text.strip("'\"").lower() if dtype is not None else "auto"
        size = _DTYPE_BYTES.get(text, 2.0 if text == "auto" else 0.0) or None
        precision = f"--dtype {text}" if dtype is not None else "BF16/FP16 checkpoint"
    if not size:
        return None
    return Weights(
        arg.text,
        arg.path,
        engine,
        parameters,
        size,
        precision,
        note,
        _fraction(words, engine),
        _flag(words, CONTEXT_FLAGS) is not None,
    )


def name_suffix(size: float) -> str:
    return {0.5: "4-bit", 1.0: "8-bit", 2.0: "16-bit", 4.0: "32-bit"}.get(size, f"{size * 8:g}-bit")


def model_parallel_degree(line: CommandLine) -> int | None:
    """GPUs one copy of the model is split over (tensor x pipeline; data parallel copies it)."""
    found = line.parallelism
    if found is None or found.launcher == "torchrun":
        return None
    split = TP_FLAGS + PP_FLAGS + NUM_SHARD_FLAGS + ("NUM_SHARD",)
    degrees = [d.value for d in found.degrees if _normal(d.flag) in split]
    if not degrees:
        return None
    product = 1
    for value in degrees:
        product *= value
    return product
