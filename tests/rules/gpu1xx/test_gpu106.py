"""GPU106 weighs a pod by what it is for (gpulint/model/workloads/purpose.py): a BestEffort
server is a warning, one per pod; batch runs, benchmarks, probes, hand-loaded images and
pod templates an operator completes are left alone; the options `batch` and `burstable`
widen it; an elastic training job that scales on a resource it does not request is a
warning whatever it runs."""

from __future__ import annotations

import pytest

from tests.helpers import BATCH_TOO, BURSTABLE_TOO, lint, lint_with, where

_DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: llm
    spec:
      selector:
        matchLabels: {{app: llm}}
      template:
        metadata:
          labels: {{app: llm}}
        spec:
          containers:
            - name: server
              image: {image}
              args: [{args}]
              resources:
                limits:
                  nvidia.com/gpu: 2
            - name: sidecar
              image: example.com/proxy:1.0
            - name: second
              image: {image}
              args: [{args}]
              resources:
                limits:
                  nvidia.com/gpu: 1
    """


def _deployment(image: str = "vllm/vllm-openai:v0.6.3", args: str = "--port, '8000'") -> str:
    return _DEPLOYMENT.format(image=image, args=args)


def test_a_best_effort_server_is_one_warning_at_its_first_gpu_container(tmp_path):
    found = lint(tmp_path, _deployment(), "--select", "GPU106")
    assert [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)] == [
        ("GPU106", 17, 13, "warning")
    ]
    assert found[0]["container"] == "server"
    assert "(a server) is BestEffort" in found[0]["message"]


def test_one_cpu_or_memory_entry_anywhere_in_the_pod_makes_it_not_best_effort(tmp_path):
    text = _deployment().replace(
        "              image: example.com/proxy:1.0\n",
        "              image: example.com/proxy:1.0\n"
        "              resources: {requests: {memory: 64Mi}}\n",
    )
    assert lint(tmp_path, text, "--select", "GPU106") == []  # Burstable: advice, off by default


@pytest.mark.parametrize(
    ("image", "args"),
    [
        ("ghcr.io/example/gpu-burn:1.0", "'60'"),  # a load generator
        ("ghcr.io/example/tools:1.0", "all_reduce_perf, -b, 8, -e, 8G"),  # nccl-tests
        ("nvcr.io/nvidia/cloud-native/dcgm:3.3.5-1-ubuntu22.04", "dcgmproftester12, -t, '1004'"),
        ("registry.k8s.io/pause:3.9", "''"),  # holds the GPUs, runs nothing
        ("nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "nvidia-smi"),  # a probe
    ],
)
def test_benchmarks_and_probes_are_left_alone_whatever_their_kind(tmp_path, image, args):
    text = _deployment(image, args)
    if args.startswith(("all_reduce", "dcgmprof", "nvidia-smi")):
        text = text.replace("args:", "command:")
    assert lint(tmp_path, text, "--select", "GPU106") == []


def test_images_loaded_by_hand_are_a_development_cluster(tmp_path):
    text = _deployment().replace(
        "              resources:\n",
        "              imagePullPolicy: Never\n              resources:\n",
    )
    assert lint(tmp_path, text, "--select", "GPU106") == []
    once = _deployment().replace(
        "              args:", "              imagePullPolicy: Never\n              args:", 1
    )
    assert where(lint(tmp_path, once, "--select", "GPU106")) == [("GPU106", 18, 13)]


_JOB = """\
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: trainer
              image: {image}
              command: [torchrun, train.py]
              resources:
                limits:
                  nvidia.com/gpu: 1
    """


def test_a_batch_run_is_reported_only_with_the_option_batch(tmp_path):
    # whatever its image: a server a Job starts stops with it
    for image in ("nvcr.io/nvidia/pytorch:24.05-py3", "vllm/vllm-openai:v0.6.3"):
        text = _JOB.format(image=image)
        assert lint(tmp_path, text, "--select", "GPU106") == []
        found = lint_with(tmp_path, BATCH_TOO, text, "--select", "GPU106")
        assert where(found) == [("GPU106", 14, 13)]
        assert "(a batch run) is BestEffort" in found[0]["message"]


_BARE_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: notebook\nspec:\n  containers:\n"
    "    - name: work\n      image: {image}\n{extra}"
    "      resources:\n        limits:\n          nvidia.com/gpu: 1\n"
)


def test_a_bare_pod_is_a_server_when_it_serves(tmp_path):
    def pod(image: str, extra: str = "") -> str:
        return _BARE_POD.format(image=image, extra=extra)

    notebook = "quay.io/jupyter/pytorch-notebook:cuda12-2024-10-07"
    assert lint(tmp_path, pod(notebook), "--select", "GPU106") == []  # runs to completion
    ported = pod(notebook, "      ports: [{containerPort: 8888}]\n")
    assert where(lint(tmp_path, ported, "--select", "GPU106")) == [("GPU106", 11, 9)]
    served = pod("ollama/ollama:0.3.12")  # a model server, by its image
    assert where(lint(tmp_path, served, "--select", "GPU106")) == [("GPU106", 10, 9)]


def test_a_pod_template_found_by_its_shape_is_left_to_its_operator(tmp_path):
    text = """\
        apiVersion: games.example.com/v1
        kind: Session
        metadata:
          name: desktop
        spec:
          template:
            spec:
              containers:
                - name: stream
                  image: ghcr.io/example/stream:1.0
                  ports: [{containerPort: 8080}]
                  resources:
                    limits:
                      nvidia.com/gpu: 1
        """
    assert lint(tmp_path, text, "--select", "GPU106") == []


def test_the_option_burstable_reports_every_gpu_container_that_is_not_guaranteed(tmp_path):
    text = """\
        apiVersion: apps/v1
        kind: StatefulSet
        metadata:
          name: p
        spec:
          selector: {matchLabels: {app: p}}
          serviceName: p
          template:
            metadata: {labels: {app: p}}
            spec:
              containers:
                - name: half
                  image: vllm/vllm-openai:v0.6.3
                  resources:
                    requests:
                      memory: 8Gi
                    limits:
                      cpu: "4"
                      nvidia.com/gpu: 1
                - name: unequal
                  image: vllm/vllm-openai:v0.6.3
                  resources:
                    requests: {cpu: 2, memory: 4Gi}
                    limits: {cpu: 2000m, memory: 8Gi, nvidia.com/gpu: 1}
                - name: guaranteed
                  image: vllm/vllm-openai:v0.6.3
                  resources:
                    limits: {cpu: 4, memory: 16Gi, nvidia.com/gpu: 1}
        """
    assert lint(tmp_path, text, "--select", "GPU106") == []
    found = lint_with(tmp_path, BURSTABLE_TOO, text, "--select", "GPU106")
    assert [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)] == [
        ("GPU106", 17, 13, "note"),
        ("GPU106", 24, 13, "note"),
    ]
    assert "has no memory limit;" in found[0]["message"]
    assert "Burstable, not Guaranteed" in found[0]["message"]
    assert "memory request 4Gi != limit 8Gi" in found[1]["message"]
    assert "cpu request" not in found[1]["message"]  # 2 == 2000m


def test_kserve_fills_what_is_left_out_so_only_a_half_set_pair_is_burstable(tmp_path):
    text = """\
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata:
          name: isvc
        spec:
          predictor:
            model:
              modelFormat: {name: pytorch}
              resources:
                limits:
                  nvidia.com/gpu: 1
        """
    assert lint_with(tmp_path, BURSTABLE_TOO, text, "--select", "GPU106") == []
    half = text.replace(
        "limits:\n", "requests:\n                  cpu: 2\n                limits:\n"
    )
    found = lint_with(tmp_path, BURSTABLE_TOO, half, "--select", "GPU106")
    assert where(found) == [("GPU106", 12, 9)]
    assert "has no cpu limit;" in found[0]["message"]


def test_a_knative_service_is_burstable_through_its_queue_proxy(tmp_path):
    # Knative adds a queue-proxy sidecar requesting 25m of CPU: the pod is not BestEffort.
    text = """\
        apiVersion: serving.knative.dev/v1
        kind: Service
        metadata:
          name: llm
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.6.3
                  ports:
                    - containerPort: 8000
                  resources:
                    limits:
                      nvidia.com/gpu: 1
        """
    assert lint(tmp_path, text, "--select", "GPU106") == []
    found = lint_with(tmp_path, BURSTABLE_TOO, text, "--select", "GPU106")
    assert where(found) == [("GPU106", 14, 13)]
    assert found[0]["severity"] == "note"
    assert "has no cpu request, cpu limit, memory request and memory limit" in found[0]["message"]
    # The same pod in a Deployment is BestEffort.
    deployment = text.replace("serving.knative.dev/v1", "apps/v1").replace(
        "kind: Service", "kind: Deployment"
    )
    assert where(lint(tmp_path, deployment, "--select", "GPU106")) == [("GPU106", 14, 13)]


_RUNTIME = """\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata:
      name: torch-distributed
    spec:
      mlPolicy:
        numNodes: 1
        torch:
          numProcPerNode: auto
      template:
        spec:
          replicatedJobs:
            - name: node
              template:
                spec:
                  template:
                    spec:
                      containers:
                        - name: {name}
                          image: pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime
                          command: [torchrun, /workspace/train.py]
                          resources:
                            limits:
                              nvidia.com/gpu: 1
    """


def test_a_trainer_runtime_node_container_is_a_blueprint(tmp_path):
    found = lint_with(tmp_path, BATCH_TOO, _RUNTIME.format(name="node"), "--select", "GPU106")
    assert [(*spot, f["severity"]) for spot, f in zip(where(found), found, strict=True)] == [
        ("GPU106", 23, 25, "note")
    ]
    assert "spec.trainer.resourcesPerNode" in found[0]["message"]
    found = lint_with(tmp_path, BATCH_TOO, _RUNTIME.format(name="helper"), "--select", "GPU106")
    assert [f["severity"] for f in found] == ["warning"]


_ELASTIC = """\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata:
      name: elastic
    spec:
      elasticPolicy:
        rdzvBackend: c10d
        minReplicas: 1
        maxReplicas: 4
        metrics:
          - type: Resource
            resource:
              name: cpu
              target: {type: Utilization, averageUtilization: 80}
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          template:
            spec:
              containers:
                - name: pytorch
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  command: [torchrun, train.py]
                  resources:
                    limits:
                      nvidia.com/gpu: 1
                      memory: 32Gi
    """


def test_an_elastic_job_that_scales_on_a_resource_it_does_not_request(tmp_path):
    found = lint(tmp_path, _ELASTIC, "--select", "GPU106")
    assert where(found) == [("GPU106", 13, 17)]  # the metric's resource name
    assert found[0]["severity"] == "warning"
    assert "scales on cpu utilization" in found[0]["message"]
    on_memory = _ELASTIC.replace("name: cpu", "name: memory")  # a limit is the request
    assert lint(tmp_path, on_memory, "--select", "GPU106") == []


def test_a_pod_whose_work_only_waits_behind_an_init_check_is_a_probe(tmp_path):
    text = _deployment("busybox:1.36", "sleep, '6000'").replace(
        "          containers:\n",
        "          initContainers:\n"
        "            - name: check\n"
        "              image: ghcr.io/example/gpu-test-runner:1.0\n"
        "              resources: {limits: {nvidia.com/gpu: 1}}\n"
        "          containers:\n",
    )
    text = text.replace("args: [sleep", "command: [sleep")
    assert lint(tmp_path, text, "--select", "GPU106") == []
    working = text.replace("command: [sleep, '6000']", "command: [python, serve.py]")
    assert where(lint(tmp_path, working, "--select", "GPU106")) == [("GPU106", 21, 13)]
