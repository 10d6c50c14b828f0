"""GPU108: a served model's weights against the memory of the GPUs that hold it."""

from __future__ import annotations

from tests.helpers import lint, run_cli, where

TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
spec:
  selector:
    matchLabels: {{app: m}}
  template:
    metadata:
      labels: {{app: m}}
    spec:
      nodeSelector:
        {selector}
      containers:
        - name: server
          image: {image}
          args:
{args}
          resources:
            limits:
              nvidia.com/gpu: {gpus}
{env}"""


def deployment(
    args: str,
    gpus: int = 4,
    selector: str = "nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3",
    image: str = "vllm/vllm-openai:v0.9.1",
    env: str = "",
) -> str:
    """A Deployment whose first ``args`` item is on line 18, column 15."""
    return TEMPLATE.format(args=args, gpus=gpus, selector=selector, image=image, env=env)


def items(*words: str) -> str:
    return "\n".join(f"            - {w}" for w in words)


def codes(tmp_path, text: str) -> list[tuple[str, int, int]]:
    return where(lint(tmp_path, text, "--select", "GPU108"))


def test_gpu108_qwen3_235b_bf16_on_four_h100(tmp_path):
    text = deployment(items("--model=Qwen/Qwen3-235B-A22B", "--tensor-parallel-size=4"))
    found = lint(tmp_path, text, "--select", "GPU108")
    assert where(found) == [("GPU108", 18, 15)]
    message = found[0]["message"]
    assert "470 GB for its weights (235B parameters x 2 bytes" in message
    assert "4 x NVIDIA-H100-80GB-HBM3 of 85.5 GB (81559 MiB) = 342 GB" in message
    assert found[0]["severity"] == "error"


def test_gpu108_fp8_checkpoint_fits(tmp_path):
    text = deployment(items("--model=Qwen/Qwen3-235B-A22B-FP8", "--tensor-parallel-size=4"))
    assert codes(tmp_path, text) == []


def test_gpu108_quantization_flag_counts(tmp_path):
    text = deployment(
        items(
            "--model",
            "Qwen/Qwen3-235B-A22B",
            "--quantization",
            "fp8",
            "--tensor-parallel-size",
            "4",
        )
    )
    assert codes(tmp_path, text) == []


def test_gpu108_mixtral_name_is_not_its_count(tmp_path):
    # 8x7B is 46.7B in total (93 GB in BF16): more than one 80 GB GPU, not 112 GB.
    text = deployment(items("--model=mistralai/Mixtral-8x7B-Instruct-v0.1"), gpus=1)
    found = lint(tmp_path, text, "--select", "GPU108")
    assert where(found) == [("GPU108", 18, 15)]
    assert "46.7B parameters (Mixtral-8x7B: 46.7B in total, not 8 x 7B)" in found[0]["message"]
    assert "93 GB" in found[0]["message"]


def test_gpu108_deepseek_r1_ships_in_fp8(tmp_path):
    # 671 GB in FP8 fit 8 x H200 (8 x 143771 MiB = 1206 GB).
    text = deployment(
        items("--model=deepseek-ai/DeepSeek-R1", "--tensor-parallel-size=8"),
        gpus=8,
        selector="nvidia.com/gpu.product: NVIDIA-H200",
    )
    assert codes(tmp_path, text) == []
    text = deployment(items("--model=deepseek-ai/DeepSeek-R1", "--tensor-parallel-size=8"), gpus=8)
    # On 8 x H100 (684 GB) they load, within the names' rounding, and leave no KV cache.
    found = lint(tmp_path, text, "--select", "GPU108")
    assert where(found) == [("GPU108", 18, 15)]
    assert "671 GB" in found[0]["message"] and "shipped in FP8" in found[0]["message"]


def test_gpu108_tgi_env_model_id(tmp_path):
    text = deployment(
        items("--num-shard=1"),
        gpus=1,
        image="ghcr.io/huggingface/text-generation-inference:2.4",
        env=(
            "          env:\n"
            "            - name: MODEL_ID\n"
            "              value: meta-llama/Llama-3.1-70B\n"
        ),
    )
    found = lint(tmp_path, text, "--select", "GPU108")
    assert where(found) == [("GPU108", 24, 22)]
    assert "TGI fails" in found[0]["message"]


def test_gpu108_positional_model_in_a_shell_script(tmp_path):
    script = '"vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8"'
    text = deployment(items("-c", script), gpus=8)
    assert codes(tmp_path, text) == [("GPU108", 19, 15)]


def test_gpu108_lws_group_holds_the_model(tmp_path):
    # tp 8 x pp 2 over a LeaderWorkerSet of 2 pods: 16 H100 hold 810 GB (405B in BF16): fits.
    text = """\
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata:
          name: llama
        spec:
          leaderWorkerTemplate:
            size: 2
            leaderTemplate:
              spec:
                nodeSelector:
                  nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
                containers:
                  - name: leader
                    image: vllm/vllm-openai:v0.9.1
                    args: [--model=meta-llama/Llama-3.1-405B-Instruct, --tensor-parallel-size=8,
                    --pipeline-parallel-size=2]
                    resources:
                      limits:
                        nvidia.com/gpu: 8
        """
    assert codes(tmp_path, text) == []
    found = lint(
        tmp_path,
        text.replace("--pipeline-parallel-size=2", "--pipeline-parallel-size=1"),
        "--select",
        "GPU108",
    )
    assert where(found) == [("GPU108", 15, 20)]


def test_gpu108_silent_when_unknown(tmp_path):
    # no product selected; no count in the name; a placeholder; an unknown quantization; CPU offload
    no_product = deployment(items("--model=Qwen/Qwen3-235B-A22B"), selector="app-tier: gpu")
    no_count = deployment(items("--model=moonshotai/Kimi-K2-Instruct"), gpus=1)
    placeholder = deployment(items("--model=${MODEL}"), gpus=1)
    exl2 = deployment(items("--model=turboderp/Llama-3.1-70B-exl2"), gpus=1)
    offload = deployment(items("--model=meta-llama/Llama-3.1-70B", "--cpu-offload-gb=100"), gpus=1)
    moe_experts = deployment(
        items("--model=meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"), gpus=8
    )
    for text in (no_product, no_count, placeholder, exl2, offload, moe_experts):
        assert codes(tmp_path, text) == [], text


def test_gpu108_mig_slice_is_not_a_whole_gpu(tmp_path):
    text = deployment(
        items("--model=meta-llama/Llama-3.1-70B"),
        gpus=1,
        selector="nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
    )
    assert codes(tmp_path, text) == []


def test_gpu108_warning_seventy_b_on_two_h100(tmp_path):
    text = deployment(
        items("--model=meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size=2"), gpus=2
    )
    found = lint(tmp_path, text, "--select", "GPU108")
    assert where(found) == [("GPU108", 18, 15)]
    message = found[0]["message"]
    assert "vLLM may use 154 GB (x 0.9); 14 GB is left" in message
    assert found[0]["severity"] == "warning"


def test_gpu108_warning_lower_utilization_and_chosen_context(tmp_path):
    roomy = deployment(
        items("--model=meta-llama/Llama-3.1-8B-Instruct", "--gpu-memory-utilization=0.25"), gpus=1
    )
    assert codes(tmp_path, roomy) == []
    tight = deployment(
        items("--model=meta-llama/Llama-3.1-8B-Instruct", "--gpu-memory-utilization=0.2"), gpus=1
    )
    assert codes(tmp_path, tight) == [("GPU108", 18, 15)]
    sized = deployment(
        items(
            "--model=meta-llama/Llama-3.1-70B-Instruct",
            "--tensor-parallel-size=2",
            "--max-model-len=8192",
        ),
        gpus=2,
    )
    assert codes(tmp_path, sized) == []


def test_gpu108_gke_accelerator_selector(tmp_path):
    text = deployment(
        items("--model=meta-llama/Llama-3.1-70B-Instruct"),
        gpus=1,
        selector="cloud.google.com/gke-accelerator: nvidia-l4",
    )
    assert codes(tmp_path, text) == [("GPU108", 18, 15)]


def test_gpu108_cluster_profile_gives_the_model(tmp_path):
    text = deployment(items("--model=meta-llama/Llama-3.1-70B-Instruct"), gpus=1, selector="{}")
    assert codes(tmp_path, text) == []  # no product selected, no profile: silent
    config = tmp_path / "cluster.gpulint.yaml"
    config.write_text("cluster:\n  gpu-models: [NVIDIA-A100-SXM4-40GB]\n")
    found = lint(tmp_path, text, "--select", "GPU108", "--config", str(config))
    assert where(found) == [("GPU108", 18, 15)]
    assert "1 x NVIDIA-A100-SXM4-40GB of 42.5 GB (40536 MiB)" in found[0]["message"]
    config.write_text("cluster:\n  gpu-models: [NVIDIA-A100-SXM4-40GB, NVIDIA-Tesla-X1]\n")
    assert where(lint(tmp_path, text, "--select", "GPU108", "--config", str(config))) == []


def test_gpu108_kv_cache_share_is_the_rules_option(tmp_path):
    """The share of memory left for the KV cache is GPU108's declared option."""
    text = deployment(
        items("--model=meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size=2"), gpus=2
    )
    config = tmp_path / "cfg.yaml"
    config.write_text("rules:\n  model-exceeds-gpu-memory:\n    kv-cache-share: 0.05\n")
    # 14 GB of 154 GB left (9%): enough at 5%
    assert where(lint(tmp_path, text, "--select", "GPU108", "--config", str(config))) == []
    config.write_text("rules:\n  GPU108:\n    kv-cache-share: 0.2\n")
    found = lint(tmp_path, text, "--select", "GPU108", "--config", str(config))
    assert where(found) == [("GPU108", 18, 15)]
    assert "less than 20%" in found[0]["message"]
    config.write_text("rules:\n  GPU108:\n    kv-cache-share: 0.95\n")
    result = run_cli("check", str(tmp_path / "manifest.yaml"), "--config", str(config))
    assert result.exit_code == 2
    assert "rules.GPU108.kv-cache-share" in result.stderr
