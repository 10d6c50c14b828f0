"""GPU104-GPU107: GPU counts against nodes, init/sidecar GPUs, QoS, command-line parallelism."""

from __future__ import annotations

import pytest

from tests.helpers import (
    findings_json,
    gpu_node,
    held_back,
    lint,
    trainer_pod,
    where,
    write_files,
)


def pod(containers: str, spec_extra: str = "", kind: str = "Pod") -> str:
    """A Pod whose ``containers`` block starts on line 6 (first container name)."""
    return (
        f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: p\nspec:\n"
        f"{spec_extra}  containers:\n{containers}"
    )


# --- GPU104 gpu-count-exceeds-node -------------------------------------------------------------


def _max_eight(tmp_path) -> str:
    config = tmp_path / "eight.gpulint.yaml"
    config.write_text("cluster:\n  max-gpus-per-node: 8\n")
    return str(config)


def _write_text(tmp_path, text: str):
    import textwrap

    path = tmp_path / "other.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_gpu104_more_than_default_node_maximum(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: big
        spec:
          containers:
            - name: trainer
              image: pytorch:2.3
              resources:
                limits:
                  nvidia.com/gpu: 17
        """
    # More than any GPU server holds (16): no cluster facts needed.
    found = lint(tmp_path, text, "--select", "GPU104")
    assert where(found) == [("GPU104", 11, 11)]
    assert "requests 17 nvidia.com/gpu" in found[0]["message"]
    assert "no GPU server holds more than 16" in found[0]["message"]
    assert "Insufficient nvidia.com/gpu" in found[0]["message"]
    assert found[0]["severity"] == "error"
    # 16 fits a 16-GPU server: held back until the cluster's node size is known.
    report = findings_json(
        str(_write_text(tmp_path, text.replace("17", "16"))), "--select", "GPU104"
    )
    assert report["findings"] == []
    assert report["heldBack"] == [
        {
            "code": "GPU104",
            "name": "gpu-count-exceeds-node",
            "needs": ["max-gpus-per-node"],
            "count": 1,
        }
    ]


def test_gpu104_eight_fits_the_default(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: ok
        spec:
          containers:
            - name: trainer
              image: pytorch:2.3
              resources:
                limits:
                  nvidia.com/gpu: 8
        """
    assert lint(tmp_path, text, "--select", "GPU104") == []


def test_gpu104_selected_gpu_count_in_affinity(tmp_path):
    text = """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: d
        spec:
          template:
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions:
                          - key: nvidia.com/gpu.count
                            operator: In
                            values: ["2", "4"]
              containers:
                - name: a
                  image: x:1
                  resources:
                    requests:
                      nvidia.com/gpu: 6
                    limits:
                      nvidia.com/gpu: 6
        """
    found = lint(tmp_path, text, "--select", "GPU104")
    assert where(found) == [("GPU104", 23, 15)]  # the limit, not the request
    assert "nvidia.com/gpu.count 2, 4" in found[0]["message"]


def test_gpu104_request_within_the_largest_selected_count(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          nodeSelector:
            nvidia.com/gpu.count: "4"
          containers:
            - name: a
              image: x:1
              resources:
                limits:
                  nvidia.com/gpu: 4
        """
    assert lint(tmp_path, text, "--select", "GPU104") == []


def test_gpu104_selected_replicas_multiply_the_count(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          nodeSelector:
            nvidia.com/gpu.count: "2"
            nvidia.com/gpu.replicas: "4"
          containers:
            - name: a
              image: x:1
              resources:
                limits:
                  nvidia.com/gpu: 8
        """
    assert lint(tmp_path, text, "--select", "GPU104") == []
    found = lint(tmp_path, text.replace("gpu: 8", "gpu: 9"), "--select", "GPU104")
    assert where(found) == [("GPU104", 14, 11)]
    assert "offer at most 8" in found[0]["message"]


def test_gpu104_sidecar_pushes_the_pod_over(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          initContainers:
            - name: side
              image: x:1
              restartPolicy: Always
              resources:
                limits:
                  nvidia.com/gpu: 1
          containers:
            - name: trainer
              image: x:1
              resources:
                limits:
                  nvidia.com/gpu: 8
        """
    found = lint(tmp_path, text, "--select", "GPU104", "--config", _max_eight(tmp_path))
    assert where(found) == [("GPU104", 18, 11)]
    assert "requests 9 nvidia.com/gpu (this container holds 8)" in found[0]["message"]


def test_gpu104_amd_and_mig_resources(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          containers:
            - name: amd
              image: x:1
              resources:
                limits:
                  amd.com/gpu: 12
            - name: mig
              image: x:1
              resources:
                limits:
                  nvidia.com/mig-1g.10gb: 14
        """
    found = lint(tmp_path, text, "--select", "GPU104", "--config", _max_eight(tmp_path))
    assert where(found) == [("GPU104", 11, 11)]  # MIG instances: several per GPU, not bounded
    assert "12 amd.com/gpu" in found[0]["message"]


def test_gpu104_max_gpus_per_node_from_config(tmp_path):
    text = pod(
        "    - name: a\n      image: x:1\n      resources:\n        limits:\n"
        "          nvidia.com/gpu: 12\n"
    )
    found = []
    for limit in (8, 16):
        config = tmp_path / f"gpulint-{limit}.yaml"
        config.write_text(f"max-gpus-per-node: {limit}\n")
        found.append(where(lint(tmp_path, text, "--select", "GPU104", "--config", str(config))))
    assert found == [[("GPU104", 11, 11)], []]


# --- GPU105 gpu-sidecar-holds-gpu --------------------------------------------------------------


def test_gpu105_init_and_sidecar_messages(tmp_path):
    text = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          initContainers:
            - name: warm
              image: x:1
              resources:
                requests:
                  nvidia.com/gpu: 4
            - name: side
              image: x:1
              restartPolicy: Always
              resources:
                limits:
                  nvidia.com/gpu: 1
          containers:
            - name: app
              image: x:1
              resources:
                limits:
                  nvidia.com/gpu: 1
        """
    found = lint(tmp_path, text, "--select", "GPU105")
    assert where(found) == [("GPU105", 11, 11), ("GPU105", 17, 11)]
    warm, side = found
    # init 4 + sidecar declared before it: 0 -> 4; steady state: app 1 + sidecar 1 = 2.
    assert "reserves max(init, app containers) = 4 nvidia.com/gpu" in warm["message"]
    assert "the app containers use 1" in warm["message"]
    assert "added to the app containers' 1: the pod reserves 4" in side["message"]
    assert side["severity"] == "warning"


def test_gpu105_an_init_container_within_the_apps_gpus_reserves_nothing_more(tmp_path):
    text = pod(
        "    - name: app\n      image: x:1\n      resources:\n        limits:\n"
        "          nvidia.com/gpu: 2\n",
        "  initContainers:\n    - name: check\n      image: x:1\n      resources:\n"
        "        limits:\n          nvidia.com/gpu: 1\n",
    )
    assert lint(tmp_path, text, "--select", "GPU105") == []  # a check of the GPUs the app gets
    equal = text.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 2")
    assert lint(tmp_path, equal, "--select", "GPU105") == []
    more = text.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 3")
    found = lint(tmp_path, more, "--select", "GPU105")
    assert where(found) == [("GPU105", 11, 11)]
    assert "max(init, app containers) = 3 nvidia.com/gpu" in found[0]["message"]


def test_gpu105_a_gpu_check_before_an_app_without_gpus_in_a_job_is_a_note(tmp_path):
    # AIBrix's GPU precheck: nvidia-smi in an init container, then an app that exits at once.
    text = pod(
        "    - name: done\n      image: busybox:1.36\n      command: [sh, -c, exit 0]\n",
        "  restartPolicy: Never\n  initContainers:\n    - name: check\n      image: x:1\n"
        "      resources:\n        limits:\n          nvidia.com/gpu: 1\n",
    )
    found = lint(tmp_path, text, "--select", "GPU105")
    assert [(*w, f["severity"]) for w, f in zip(where(found), found, strict=True)] == [
        ("GPU105", 12, 11, "note")
    ]
    # A pod that keeps running holds the GPU for good while its app uses none.
    found = lint(tmp_path, text.replace("Never", "Always"), "--select", "GPU105")
    assert [f["severity"] for f in found] == ["warning"]


def test_gpu105_an_operators_pod_template_without_a_restart_policy_may_run_to_completion(
    tmp_path,
):
    # AIBrix's ModelWarmup (mode: Once): the operator makes the pod; the files do not say
    # whether it keeps running.
    text = """\
apiVersion: model.aibrix.ai/v1alpha1
kind: ModelWarmup
metadata:
  name: precheck
spec:
  mode: Once
  custom:
    initContainers:
      - name: check-gpu
        image: nvidia/cuda:12.4.1-base-ubuntu22.04
        command: [nvidia-smi]
        resources:
          limits:
            nvidia.com/gpu: 1
    containers:
      - name: done
        image: busybox:1.36
        command: [sh, -c, exit 0]
"""
    found = lint(tmp_path, text, "--select", "GPU105")
    assert [(*w, f["severity"]) for w, f in zip(where(found), found, strict=True)] == [
        ("GPU105", 14, 13, "note")
    ]


def test_gpu105_app_containers_alone_pass(tmp_path):
    text = pod(
        "    - name: a\n      image: x:1\n      resources:\n        limits:\n"
        "          nvidia.com/gpu: 2\n",
        "  initContainers:\n    - name: dl\n      image: busybox:1\n",
    )
    assert lint(tmp_path, text, "--select", "GPU105") == []


# --- GPU107 gpu-parallelism-mismatch -----------------------------------------------------------


def _server(args: str, gpus: int = 2, env: str = "") -> str:
    """A Pod whose container starts on line 7; ``args`` is a YAML block at 6 spaces."""
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "    - name: srv\n      image: vllm/vllm-openai:v0.6.3\n"
        f"{args}{env}"
        f"      resources:\n        limits:\n          nvidia.com/gpu: {gpus}\n"
    )


def test_gpu107_quotes_vllms_start_up_error_only_for_vllm(tmp_path):
    text = _server("      args: [--tensor-parallel-size, '4']\n")
    found = lint(tmp_path, text, "--select", "GPU107")
    assert '"The number of required GPUs exceeds' in found[0]["message"]
    sglang = text.replace("vllm/vllm-openai:v0.6.3", "lmsysorg/sglang:v0.4.0").replace(
        "--tensor-parallel-size", "--tp-size"
    )
    found = lint(tmp_path, sglang, "--select", "GPU107")
    assert found[0]["message"].endswith("it needs 4 GPUs per pod and fails at start-up")


def test_gpu107_vllm_flag_with_separate_value(tmp_path):
    text = _server(
        '      args:\n        - --model=m\n        - --tensor-parallel-size\n        - "4"\n'
    )
    found = lint(tmp_path, text, "--select", "GPU107")
    assert where(found) == [("GPU107", 12, 11)]  # the item holding 4
    assert "--tensor-parallel-size 4 = 4 GPUs per pod" in found[0]["message"]
    assert "holds 2 (nvidia.com/gpu 2)" in found[0]["message"]
    assert "fails at start-up" in found[0]["message"]


def test_gpu107_vllm_equals_form_and_pipeline(tmp_path):
    text = _server("      args: [--tensor-parallel-size=2, --pipeline-parallel-size=2]\n")
    found = lint(tmp_path, text, "--select", "GPU107")
    assert where(found) == [("GPU107", 9, 14)]
    assert "--tensor-parallel-size 2 x --pipeline-parallel-size 2 = 4" in found[0]["message"]


def test_gpu107_fewer_ranks_leave_gpus_idle(tmp_path):
    text = _server("      args: [-tp, '2']\n", gpus=8)
    found = lint(tmp_path, text, "--select", "GPU107")
    assert where(found) == [("GPU107", 9, 19)]
    assert "6 of the GPUs sit idle" in found[0]["message"]


def test_gpu107_inside_a_shell_script_with_env(tmp_path):
    text = _server(
        "      command: [sh, -c]\n"
        "      args:\n"
        "        - |\n"
        "          pip install x && \\\n"
        "          python -m sglang.launch_server --tp-size ${TP} --port 8000\n",
        gpus=2,
        env='      env:\n        - name: TP\n          value: "4"\n',
    )
    found = lint(tmp_path, text, "--select", "GPU107")
    assert where(found) == [("GPU107", 11, 11)]  # the script item
    assert "--tp-size 4" in found[0]["message"]


def test_gpu107_kubernetes_var_reference_resolves(tmp_path):
    env = '      env:\n        - name: TP\n          value: "2"\n'
    text = _server("      args: [--tensor-parallel-size, $(TP)]\n", env=env)
    assert lint(tmp_path, text, "--select", "GPU107") == []


def test_gpu107_tgi_num_shard_flag_and_env(tmp_path):
    text = _server("      args: [--num-shard, '1']\n")
    assert where(lint(tmp_path, text, "--select", "GPU107")) == [("GPU107", 9, 27)]
    text = _server("", env='      env:\n        - name: NUM_SHARD\n          value: "4"\n')
    found = lint(tmp_path, text, "--select", "GPU107")
    assert where(found) == [("GPU107", 11, 18)]
    assert "NUM_SHARD 4" in found[0]["message"]


def test_gpu107_torchrun_both_spellings(tmp_path):
    for flag in ("--nproc-per-node", "--nproc_per_node"):
        text = _server(f"      command: [torchrun, {flag}=4, train.py]\n", gpus=4)
        assert lint(tmp_path, text, "--select", "GPU107") == []
        text = _server(f"      command: [torchrun, {flag}, '8', train.py]\n", gpus=4)
        found = lint(tmp_path, text, "--select", "GPU107")
        assert len(found) == 1 and found[0]["code"] == "GPU107"
        assert f"{flag} 8 = 8 GPUs per pod" in found[0]["message"]


def test_gpu107_multi_node_groups(tmp_path):
    # SGLang over two nodes: 16 ranks, 8 per pod.
    text = _server("      args: [--tp, '16', --nnodes, '2']\n", gpus=8)
    assert lint(tmp_path, text, "--select", "GPU107") == []
    # vLLM over a Ray cluster: tp x pp spans pods of 8 GPUs each.
    text = _server(
        "      args: [--tensor-parallel-size, '8', --pipeline-parallel-size, '2',"
        " --distributed-executor-backend, ray]\n",
        gpus=8,
    )
    assert lint(tmp_path, text, "--select", "GPU107") == []
    # ... but a split that cannot come out even is still wrong.
    text = text.replace("gpu: 8", "gpu: 3")
    assert where(lint(tmp_path, text, "--select", "GPU107")) == [("GPU107", 9, 38)]


@pytest.mark.parametrize(
    "start",
    [
        "/workspace/vllm/multi-node-serving.sh leader --ray_cluster_size=2;",
        "ray start --head --port=6379;",
        "python3 boot.py --ray-address=vllm-0.vllm:6379;",
    ],
)
def test_gpu107_a_ray_cluster_started_by_the_command_spans_pods(tmp_path, start):
    # KAITO's distributed vLLM: a StatefulSet of 2 one-GPU pods pooled into one Ray cluster.
    text = _server(
        f"      command: [sh, -c, '{start} vllm serve m --pipeline-parallel-size=2']\n", gpus=1
    )
    assert lint(tmp_path, text, "--select", "GPU107") == []
    alone = text.replace(start, "")
    assert where(lint(tmp_path, alone, "--select", "GPU107")) == [("GPU107", 9, 25)]


def test_gpu107_container_without_gpus_or_degree_is_ignored(tmp_path):
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "    - name: router\n      image: x:1\n      args: [--tensor-parallel-size, '4']\n"
        "    - name: srv\n      image: x:1\n      args: [--model, m]\n"
        "      resources:\n        limits:\n          nvidia.com/gpu: 2\n"
    )
    assert lint(tmp_path, text, "--select", "GPU107") == []


def test_gpu107_leader_worker_set_group_spans_pods(tmp_path):
    text = """\
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata:
          name: trt
        spec:
          leaderWorkerTemplate:
            size: 2
            leaderTemplate:
              spec:
                containers:
                  - name: leader
                    image: x:1
                    command: [sh, -c, "python3 server.py leader --pp=8 --tp=2"]
                    resources:
                      limits:
                        nvidia.com/gpu: 8
        """
    assert lint(tmp_path, text, "--select", "GPU107") == []
    single = text.replace("size: 2", "size: 1")
    found = lint(tmp_path, single, "--select", "GPU107")
    assert where(found) == [("GPU107", 13, 31)]
    assert "--tp 2 x --pp 8 = 16 GPUs per pod" in found[0]["message"]


def test_gpu107_shell_references_resolve_only_under_a_shell(tmp_path):
    env = '      env:\n        - name: TP\n          value: "4"\n'
    # No shell: vLLM receives the literal "$TP", not 4; nothing to compare.
    text = _server("      args: [--tensor-parallel-size, $TP]\n", env=env)
    assert lint(tmp_path, text, "--select", "GPU107") == []
    # Under `bash -c` the shell expands it.
    text = _server(
        "      command: [/bin/bash, -c]\n      args: [vllm serve m --tensor-parallel-size=$TP]\n",
        env=env,
    )
    found = lint(tmp_path, text, "--select", "GPU107")
    assert where(found) == [("GPU107", 10, 14)]
    assert "--tensor-parallel-size 4 = 4 GPUs per pod" in found[0]["message"]


def test_gpu103_leaves_template_placeholders_to_the_renderer(tmp_path):
    found = lint(
        tmp_path,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: nvbandwidth}
        spec:
          containers:
            - name: c
              image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
              resources:
                limits:
                  nvidia.com/gpu: ${GPUS_PER_NODE}
                  amd.com/gpu: FILLED BY THE OPERATOR
                  gpu.intel.com/i915: two
        """,
        "--select",
        "GPU103",
    )
    assert where(found) == [("GPU103", 12, 31)]


def test_gpu103_placeholders_of_every_syntax_and_gpu102_defers_to_it(tmp_path):
    text = """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
            - name: a
              image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
              resources:
                limits:
                  nvidia.com/gpu: "{{workflow.parameters.gpus}}"
                  amd.com/gpu: $(GPUS)
                  gpu.intel.com/i915: <gpus>
            - name: b
              image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
              resources:
                requests: {nvidia.com/gpu: 0.5}
                limits: {nvidia.com/gpu: 1}
        """
    found = lint(tmp_path, text, "--select", "GPU102,GPU103")
    # one root cause, one finding: the fraction (GPU103), not also the mismatch (GPU102)
    assert where(found) == [("GPU103", 16, 36)]
    assert "0.5 must be an integer" in found[0]["message"]


def test_gpu104_takes_the_largest_node_of_the_inventory(tmp_path):
    twelve = trainer_pod().replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 12")
    app = write_files(tmp_path, app=twelve)
    eight = write_files(tmp_path, eight=gpu_node("a", "NVIDIA-H100-80GB-HBM3", gpus=8))
    report = findings_json(*app, "--cluster", eight[0], "--select", "GPU104")
    assert where(report["findings"]) == [("GPU104", 12, 11)]
    assert "no node of the cluster holds more than 8" in report["findings"][0]["message"]
    sixteen = write_files(tmp_path, sixteen=gpu_node("b", "NVIDIA-A100-SXM4-40GB", gpus=16))
    report = findings_json(*app, "--cluster", sixteen[0], "--select", "GPU104")
    assert report["findings"] == [] and held_back(report) == {}
