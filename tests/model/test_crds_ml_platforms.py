"""Where ML serving platforms keep their pods (gpulint/model/kinds/assembled.py): Dynamo's
DynamoGraphDeployment (v1alpha1 services, v1beta1 components) and DynamoComponentDeployment,
llm-d's ModelService; and --verbose naming GPU objects no pod spec was read from."""

from __future__ import annotations

import textwrap

from tests.helpers import BURSTABLE_TOO, lint, lint_known, lint_with, run_cli, where

DYNAMO_V1ALPHA1 = """\
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: llm
    spec:
      services:
        Frontend:
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0
        VllmDecodeWorker:
          replicas: 2
          resources:
            requests:
              gpu: "2"
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0
              args:
                - python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --tensor-parallel-size 4
    """


def _one(findings: list[dict], code: str) -> dict:
    found = [f for f in findings if f["code"] == code]
    assert len(found) == 1, found
    return found[0]


def test_dynamo_gpu_in_dynamo_shape_is_nvidia_gpu_on_the_main_container(tmp_path):
    findings = lint(tmp_path, DYNAMO_V1ALPHA1, "--select", "GPU101,GPU107")
    # requests.gpu without limits.gpu: the operator writes requests nvidia.com/gpu only
    assert where(findings) == [("GPU101", 15, 11), ("GPU107", 20, 15)]
    limit = _one(findings, "GPU101")
    assert limit["path"].endswith("manifest.yaml")
    assert limit["container"] == "VllmDecodeWorker/main"
    assert "nvidia.com/gpu is requested (2)" in limit["message"]
    assert limit.get("fix") is None  # the assembled container's paths are not the text
    # the command's tensor parallelism against the GPUs of the assembled container
    assert "container 'main' holds 2" in _one(findings, "GPU107")["message"]


def test_dynamo_limit_in_either_place_satisfies_gpu101(tmp_path):
    in_dynamo = DYNAMO_V1ALPHA1.replace(
        '            requests:\n              gpu: "2"\n',
        '            requests:\n              gpu: "2"\n'
        '            limits:\n              gpu: "2"\n',
    )
    assert lint(tmp_path, in_dynamo, "--select", "GPU101") == []
    in_main = DYNAMO_V1ALPHA1.replace(
        "              args:\n",
        "              resources:\n                limits:\n                  nvidia.com/gpu: 2\n"
        "              args:\n",
    )
    assert lint(tmp_path, in_main, "--select", "GPU101") == []


def test_dynamo_gpu_type_names_the_resource(tmp_path):
    amd = DYNAMO_V1ALPHA1.replace('gpu: "2"\n', 'gpu: "2"\n              gpuType: amd.com/gpu\n')
    found = _one(lint(tmp_path, amd, "--select", "GPU101"), "GPU101")
    assert found["message"].startswith("amd.com/gpu is requested (2)")
    assert (found["line"], found["column"]) == (15, 11)


def test_dynamo_replicas_and_nodes_count_pods():
    from gpulint.core.sources import Source
    from gpulint.model.resource import resources_of
    from gpulint.yaml.parse import documents

    text = textwrap.dedent(DYNAMO_V1ALPHA1).replace(
        "      replicas: 2\n", "      replicas: 2\n      multinode:\n        nodeCount: 3\n"
    )
    doc = next(documents(Source("m.yaml", text), []))
    (resource,) = list(resources_of(doc))
    pods = {pod.role: pod.replicas for pod in resource.pod_specs}
    assert pods == {"Frontend": 1, "VllmDecodeWorker": 6}


DYNAMO_V1BETA1 = """\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoGraphDeployment
    metadata:
      name: beta
    spec:
      components:
        - name: decode
          type: decode
          replicas: 2
          podTemplate:
            spec:
              containers:
                - name: main
                  image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0
                  resources:
                    requests:
                      nvidia.com/gpu: "1"
    """


def test_dynamo_v1beta1_component_pod_template(tmp_path):
    findings = lint(tmp_path, DYNAMO_V1BETA1, "--select", "GPU101")
    assert where(findings) == [("GPU101", 17, 19)]
    assert findings[0]["container"] == "decode/main"


def test_dynamo_component_deployment_reads_the_shared_spec(tmp_path):
    dcd = """\
        apiVersion: nvidia.com/v1alpha1
        kind: DynamoComponentDeployment
        metadata:
          name: worker
        spec:
          serviceName: VllmWorker
          resources:
            requests:
              gpu: "1"
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0
        """
    findings = lint(tmp_path, dcd, "--select", "GPU101")
    assert where(findings) == [("GPU101", 9, 7)]
    assert findings[0]["container"] == "VllmWorker/main"


def test_dynamo_operator_mounts_shm_for_assembled_pods(tmp_path):
    assert lint(tmp_path, DYNAMO_V1ALPHA1, "--select", "GPU705") == []


MODEL_SERVICE = """\
    apiVersion: llm-d.ai/v1alpha1
    kind: ModelService
    metadata:
      name: qwen
    spec:
      routing:
        modelName: qwen
      modelArtifacts:
        uri: hf://Qwen/Qwen3-8B
      decode:
        replicas: 2
        acceleratorTypes:
          labelKey: nvidia.com/gpu.product
          labelValues: [NVIDIA-H100-80GB-HBM3]
        containers:
          - name: vllm
            image: ghcr.io/llm-d/llm-d:v0.2.0
            resources:
              requests:
                nvidia.com/gpu: "2"
      prefill:
        containers:
          - name: vllm
            image: ghcr.io/llm-d/llm-d:v0.2.0
            resources:
              limits:
                nvidia.com/gpu: "1"
                cpu: "8"
              requests:
                cpu: "4"
    """


def test_model_service_decode_and_prefill_are_pods_with_roles(tmp_path):
    findings = lint(tmp_path, MODEL_SERVICE, "--select", "GPU101,GPU106")
    assert where(findings) == [("GPU106", 18, 9), ("GPU101", 20, 13)]  # decode is BestEffort
    # prefill is Burstable (cpu request 4 != limit 8, no memory): a note on request
    findings = lint_with(tmp_path, BURSTABLE_TOO, MODEL_SERVICE, "--select", "GPU101,GPU106")
    assert where(findings) == [("GPU106", 18, 9), ("GPU101", 20, 13), ("GPU106", 26, 11)]
    assert [f["container"] for f in findings] == ["decode/vllm", "decode/vllm", "prefill/vllm"]
    assert [f["severity"] for f in findings] == ["warning", "error", "note"]


def test_model_service_accelerator_types_select_gpu_nodes(tmp_path):
    findings = lint_known(tmp_path, MODEL_SERVICE, "--select", "GPU201")
    # decode names its accelerators (a required node affinity); prefill selects no GPU node
    assert [f["container"] for f in findings] == ["prefill/vllm"]


def test_model_service_overlaying_a_base_config_is_not_judged_alone(tmp_path):
    overlay = MODEL_SERVICE.replace(
        "      routing:\n", "      baseConfigMapRef:\n        name: base\n      routing:\n"
    )
    assert lint(tmp_path, overlay, "--select", "GPU101,GPU106") == []
    result = run_cli("check", str(tmp_path / "manifest.yaml"), "-v")
    notes = [line for line in result.output.splitlines() if "read no pod spec" in line]
    assert len(notes) == 1
    assert notes[0].startswith(f"note: {tmp_path / 'manifest.yaml'}:22: ModelService qwen")


def test_verbose_names_gpu_objects_that_gave_no_pod_spec(tmp_path):
    text = textwrap.dedent(
        """\
        apiVersion: example.com/v1
        kind: GpuJob
        metadata:
          name: mystery
        spec:
          worker:
            resources:
              limits:
                nvidia.com/gpu: 2
        ---
        apiVersion: example.com/v1
        kind: Other
        metadata:
          name: plain
        spec:
          size: 3
        ---
        apiVersion: v1
        kind: ResourceQuota
        metadata:
          name: gpus
        spec:
          hard:
            requests.nvidia.com/gpu: 4
        """
    )
    path = tmp_path / "crs.yaml"
    path.write_text(text)
    result = run_cli("check", str(path), "-v")
    notes = [line for line in result.output.splitlines() if "read no pod spec" in line]
    assert notes == [
        f"note: {path}:9: GpuJob mystery (example.com/v1) names nvidia.com/gpu but gpulint "
        "read no pod spec from it: its containers were not checked (gpulint does not know "
        "where this kind keeps its pods)"
    ]
    quiet = run_cli("check", str(path))
    assert "read no pod spec" not in quiet.output


KSERVE_PAIR = """\
    apiVersion: serving.kserve.io/v1alpha1
    kind: ServingRuntime
    metadata:
      name: vllm
    spec:
      supportedModelFormats:
        - name: huggingface
      containers:
        - name: kserve-container
          image: kserve/huggingfaceserver:v0.15.0-gpu
          resources:
            requests:
              nvidia.com/gpu: "1"
    ---
    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata:
      name: llm
    spec:
      predictor:
        model:
          modelFormat:
            name: huggingface
          runtime: vllm
          resources:
            limits:
              nvidia.com/gpu: "1"
    """


def test_kserve_limit_in_the_isvc_covers_the_runtime_request(tmp_path):
    assert lint(tmp_path, KSERVE_PAIR, "--select", "GPU101") == []


def test_kserve_runtime_no_user_fixes_is_reported_once(tmp_path):
    # the InferenceService requests too: one merged container, one finding (on the isvc)
    text = KSERVE_PAIR.replace("            limits:\n", "            requests:\n")
    findings = lint(tmp_path, text, "--select", "GPU101")
    assert where(findings) == [("GPU101", 27, 11)]
    assert "neither here nor in ServingRuntime vllm" in findings[0]["message"]
    assert findings[0]["related"][0]["line"] == 9


def test_kserve_runtime_alone_or_with_a_user_that_adds_nothing(tmp_path):
    unused = KSERVE_PAIR.replace("runtime: vllm", "runtime: other")
    assert where(lint(tmp_path, unused, "--select", "GPU101")) == [("GPU101", 13, 11)]
    silent_user = KSERVE_PAIR.replace(
        '          resources:\n            limits:\n              nvidia.com/gpu: "1"\n    ', ""
    )
    findings = lint(tmp_path, silent_user, "--select", "GPU101")
    assert where(findings) == [("GPU101", 13, 11)]
    assert "InferenceService llm, which runs on this runtime, sets none" in findings[0]["message"]


def test_kserve_cluster_runtime_and_other_namespace(tmp_path):
    cluster = KSERVE_PAIR.replace("kind: ServingRuntime", "kind: ClusterServingRuntime")
    assert lint(tmp_path, cluster, "--select", "GPU101") == []
    elsewhere = KSERVE_PAIR.replace("      name: vllm\n", "      name: vllm\n      namespace: a\n")
    # a namespaced runtime serves only its namespace: judged alone
    assert where(lint(tmp_path, elsewhere, "--select", "GPU101")) == [("GPU101", 14, 11)]


KUBEAI_VALUES = """\
    modelServers:
      VLLM:
        images:
          default: vllm/vllm-openai:v0.6.4.post1
    resourceProfiles:
      nvidia-gpu-l4:
        imageName: nvidia-gpu
        requests:
          nvidia.com/gpu: "1"
          cpu: "6"
          memory: 24Gi
        nodeSelector:
          cloud.google.com/gke-accelerator: nvidia-l4
      nvidia-gpu-h100:
        imageName: nvidia-gpu
        limits:
          nvidia.com/gpu: "1"
    """


def test_kubeai_resource_profiles_are_read_as_pods(tmp_path):
    findings = lint_with(
        tmp_path, BURSTABLE_TOO, KUBEAI_VALUES, "--select", "GPU101,GPU106", name="values.yaml"
    )
    assert where(findings) == [("GPU106", 6, 3), ("GPU101", 9, 7), ("GPU106", 16, 5)]
    assert [f["resource"]["name"] for f in findings] == [
        "nvidia-gpu-l4",
        "nvidia-gpu-l4",
        "nvidia-gpu-h100",
    ]
    assert findings[1]["resource"]["kind"] == "ResourceProfile"
    # KubeAI mounts a memory-backed /dev/shm in every model server pod
    assert lint(tmp_path, KUBEAI_VALUES, "--select", "GPU705", name="values.yaml") == []


def test_kubeai_profiles_under_an_umbrella_chart_and_other_files(tmp_path):
    umbrella = "kubeai:\n" + textwrap.indent(textwrap.dedent(KUBEAI_VALUES), "  ")
    found = lint(tmp_path, umbrella, "--select", "GPU101", name="values.yaml")
    assert where(found) == [("GPU101", 10, 9)]
    # a resourceProfiles mapping of other keys is some other chart's
    other = "resourceProfiles:\n  big:\n    gpus: 2\n    requests:\n      nvidia.com/gpu: 1\n"
    assert lint(tmp_path, other, "--select", "GPU101", name="values.yaml") == []


def test_dynamo_v1beta1_shared_memory_size_zero_turns_the_operator_shm_off(tmp_path):
    two = DYNAMO_V1BETA1.replace(
        '"1"\n', '"2"\n                    limits:\n                      nvidia.com/gpu: "2"\n'
    )
    assert lint(tmp_path, two, "--select", "GPU705") == []
    off = two.replace(
        "          replicas: 2\n", '          replicas: 2\n          sharedMemorySize: "0"\n'
    )
    # two GPUs, one process as far as the manifest says: a note, on request
    assert lint(tmp_path, off, "--select", "GPU705") == []
    single_rank = "rules:\n  GPU705:\n    single-rank: true\n"
    findings = lint_with(tmp_path, single_rank, off, "--select", "GPU705")
    assert where(findings) == [("GPU705", 14, 15)]
    assert findings[0]["container"] == "decode/main"


def test_verbose_ignores_gpu_label_keys_that_are_not_requests(tmp_path):
    path = tmp_path / "rule.yaml"
    path.write_text(
        "apiVersion: nfd.k8s-sigs.io/v1alpha1\nkind: NodeFeatureRule\nmetadata:\n  name: r\n"
        "spec:\n  rules:\n    - name: gpu\n      labels:\n        gpu.intel.com/product: flex\n"
    )
    result = run_cli("check", str(path), "-v")
    assert "read no pod spec" not in result.output


def test_dynamo_cpu_memory_left_out_is_not_judged(tmp_path):
    # older operators fill cpu/memory defaults into every component, newer ones none
    assert lint(tmp_path, DYNAMO_V1ALPHA1, "--select", "GPU106") == []
    half = DYNAMO_V1ALPHA1.replace(
        '            requests:\n              gpu: "2"\n',
        '            requests:\n              gpu: "2"\n              cpu: "4"\n',
    )
    assert lint(tmp_path, half, "--select", "GPU106") == []  # Burstable: by default, no finding
    found = lint_with(tmp_path, BURSTABLE_TOO, half, "--select", "GPU106")
    assert where(found) == [("GPU106", 13, 7)]
    assert "no cpu limit" in found[0]["message"]


def test_dynamo_multinode_tensor_parallelism_spans_pods(tmp_path):
    # issue 24: 2 pods x 2 GPUs carry --tensor-parallel-size 4; each pod's count is right
    assert where(lint(tmp_path, DYNAMO_V1ALPHA1, "--select", "GPU107")) == [("GPU107", 20, 15)]
    spread = DYNAMO_V1ALPHA1.replace(
        "          replicas: 2\n",
        "          replicas: 2\n          multinode:\n            nodeCount: 2\n",
    )
    assert lint(tmp_path, spread, "--select", "GPU107") == []
    uneven = spread.replace("--tensor-parallel-size 4", "--tensor-parallel-size 3")
    assert [f["code"] for f in lint(tmp_path, uneven, "--select", "GPU107")] == ["GPU107"]
