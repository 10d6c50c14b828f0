"""Pod specs inside operator CRDs: every kind of the table, at exact lines and columns.

Each document requests a GPU without a limit (GPU101) in every pod template it
holds; the line marked ``# <- here`` is where the finding must be, and its
column is where the resource name starts on that line.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from gpulint.core.sources import Source
from gpulint.model.resource import resources_of
from gpulint.yaml.parse import parse
from tests.helpers import findings_json, lint, run_cli

MARK = "# <- here"
GPU = "nvidia.com/gpu"


def _expected(text: str) -> list[tuple[str, int, int]]:
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    return [("GPU101", i + 1, line.index(GPU) + 1) for i, line in enumerate(lines) if MARK in line]


def _found(tmp_path, text: str, *args: str) -> list[tuple[str, int, int]]:
    found = lint(tmp_path, text, "--select", "GPU101", *args)
    return sorted((f["code"], f["line"], f["column"]) for f in found)


def _resources(text: str):
    docs, errors = parse(Source("x.yaml", textwrap.dedent(text).lstrip("\n")))
    assert errors == []
    return [r for d in docs for r in resources_of(d)]


def _roles(text: str) -> list[tuple[str | None, int | None]]:
    (resource,) = _resources(text)
    return [(pod.role, pod.replicas) for pod in resource.pod_specs]


PYTORCHJOB = """
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: nvcr.io/nvidia/pytorch:24.05-py3
              resources:
                requests:
                  nvidia.com/gpu: 1  # <- here
    Worker:
      replicas: 3
      template:
        spec:
          containers:
            - name: pytorch
              image: nvcr.io/nvidia/pytorch:24.05-py3
              resources:
                requests:
                  nvidia.com/gpu: 8  # <- here
"""

KUBEFLOW_JOBS = {
    "TFJob": ("tfReplicaSpecs", "Chief", "tensorflow"),
    "MPIJob": ("mpiReplicaSpecs", "Worker", "mpi"),
    "XGBoostJob": ("xgbReplicaSpecs", "Worker", "xgboost"),
    "PaddleJob": ("paddleReplicaSpecs", "Worker", "paddle"),
    "JAXJob": ("jaxReplicaSpecs", "Worker", "jax"),
}


def _kubeflow_job(kind: str, field: str, role: str, container: str) -> str:
    version = "v2beta1" if kind == "MPIJob" else "v1"
    return f"""
apiVersion: kubeflow.org/{version}
kind: {kind}
metadata:
  name: job
spec:
  {field}:
    {role}:
      replicas: 4
      template:
        spec:
          containers:
            - name: {container}
              image: example.com/{container}:1.0
              resources:
                requests:
                  nvidia.com/gpu: 2  # <- here
"""


TRAINING_RUNTIME = """
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
        - name: dataset-initializer
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: dataset-initializer
                      image: ghcr.io/kubeflow/trainer/dataset-initializer
        - name: node
          replicas: 2
          template:
            spec:
              parallelism: 3
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                      resources:
                        requests:
                          nvidia.com/gpu: 4  # <- here
"""

KATIB = """
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata:
  name: pytorch-mnist
spec:
  parallelTrialCount: 2
  maxTrialCount: 12
  objective:
    type: minimize
    objectiveMetricName: loss
  trialTemplate:
    primaryContainerName: pytorch
    trialParameters:
      - name: lr
        reference: lr
    trialSpec:
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      spec:
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            template:
              spec:
                containers:
                  - name: pytorch
                    image: docker.io/kubeflowkatib/pytorch-mnist-cpu:latest
                    command: ["python3", "mnist.py", "--lr=${trialParameters.lr}"]
                    resources:
                      requests:
                        nvidia.com/gpu: 1  # <- here
"""

KATIB_JOB = """
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata:
  name: random
spec:
  trialTemplate:
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
              - name: training-container
                image: docker.io/kubeflowkatib/mxnet-mnist:latest
                resources:
                  requests:
                    nvidia.com/gpu: 1  # <- here
"""

NOTEBOOK = """
apiVersion: kubeflow.org/v1
kind: Notebook
metadata:
  name: jupyter
spec:
  template:
    spec:
      containers:
        - name: jupyter
          image: kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.8.0
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
"""

JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: multislice
spec:
  replicatedJobs:
    - name: driver
      template:
        spec:
          template:
            spec:
              containers:
                - name: driver
                  image: python:3.12
    - name: workers
      replicas: 2
      template:
        spec:
          parallelism: 4
          completions: 4
          template:
            spec:
              containers:
                - name: worker
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources:
                    requests:
                      nvidia.com/gpu: 8  # <- here
"""

LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: vllm
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 4
    restartPolicy: RecreateGroupOnPodRestart
    leaderTemplate:
      metadata:
        labels:
          role: leader
      spec:
        containers:
          - name: vllm-leader
            image: vllm/vllm-openai:v0.8.5
            resources:
              requests:
                nvidia.com/gpu: "8"  # <- here
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: vllm/vllm-openai:v0.8.5
            resources:
              requests:
                nvidia.com/gpu: "8"  # <- here
"""

VOLCANO = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: mpi
spec:
  minAvailable: 3
  schedulerName: volcano
  plugins:
    ssh: []
    svc: []
  tasks:
    - replicas: 1
      name: mpimaster
      template:
        spec:
          containers:
            - name: mpimaster
              image: volcanosh/example-mpi:0.0.3
    - replicas: 2
      name: mpiworker
      template:
        spec:
          containers:
            - name: mpiworker
              image: volcanosh/example-mpi:0.0.3
              resources:
                requests:
                  nvidia.com/gpu: 1  # <- here
"""


def _ray_cluster(kind: str, version: str, cluster_key: str | None) -> str:
    body = """
headGroupSpec:
  rayStartParams:
    dashboard-host: 0.0.0.0
  template:
    spec:
      containers:
        - name: ray-head
          image: rayproject/ray:2.41.0
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
workerGroupSpecs:
  - groupName: gpu-group
    replicas: 3
    minReplicas: 1
    maxReplicas: 5
    numOfHosts: 2
    rayStartParams: {}
    template:
      spec:
        containers:
          - name: ray-worker
            image: rayproject/ray:2.41.0-gpu
            resources:
              requests:
                nvidia.com/gpu: 4  # <- here
"""
    indent = "    " if cluster_key else "  "
    body = textwrap.indent(textwrap.dedent(body).strip("\n"), indent)
    head = f"apiVersion: ray.io/{version}\nkind: {kind}\nmetadata:\n  name: ray\nspec:\n"
    if cluster_key:
        head += (
            "  entrypoint: python /home/ray/samples/sample_code.py\n" if kind == "RayJob" else ""
        )
        head += f"  {cluster_key}:\n"
    return head + body + "\n"


RAYJOB_SUBMITTER = """
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: job
spec:
  entrypoint: python train.py
  submitterPodTemplate:
    spec:
      restartPolicy: Never
      containers:
        - name: submitter
          image: rayproject/ray:2.41.0
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
"""

ISVC_INLINE = """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama
spec:
  predictor:
    minReplicas: 2
    containers:
      - name: kserve-container
        image: vllm/vllm-openai:v0.8.5
        resources:
          requests:
            nvidia.com/gpu: "1"  # <- here
  transformer:
    containers:
      - name: transformer
        image: example.com/transformer:1.0
        resources:
          requests:
            nvidia.com/gpu: "1"  # <- here
"""

ISVC_FRAMEWORK = """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: hf
spec:
  predictor:
    model:
      modelFormat:
        name: huggingface
      args:
        - --model_name=llama3
      storageUri: hf://meta-llama/Meta-Llama-3-8B-Instruct
      resources:
        requests:
          nvidia.com/gpu: "1"  # <- here
    workerSpec:
      pipelineParallelSize: 2
      tensorParallelSize: 1
      containers:
        - name: worker-container
          image: kserve/huggingfaceserver:latest-gpu
          resources:
            requests:
              nvidia.com/gpu: "1"  # <- here
  explainer:
    art:
      type: SquareAttack
      resources:
        requests:
          nvidia.com/gpu: "1"  # <- here
"""

SERVING_RUNTIME = """
apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: huggingfaceserver-multinode
spec:
  supportedModelFormats:
    - name: huggingface
      version: "1"
      autoSelect: true
  containers:
    - name: kserve-container
      image: kserve/huggingfaceserver:v0.15.0-gpu
      resources:
        requests:
          nvidia.com/gpu: "1"  # <- here
  workerSpec:
    pipelineParallelSize: 2
    containers:
      - name: worker-container
        image: kserve/huggingfaceserver:v0.15.0-gpu
        resources:
          requests:
            nvidia.com/gpu: "1"  # <- here
"""

LLMISVC = """
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: pd
spec:
  model:
    uri: hf://Qwen/Qwen3-8B
  replicas: 2
  template:
    containers:
      - name: main
        image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
        resources:
          requests:
            nvidia.com/gpu: "1"  # <- here
  prefill:
    replicas: 3
    template:
      containers:
        - name: main
          image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
          resources:
            requests:
              nvidia.com/gpu: "1"  # <- here
"""

ARGO_WORKFLOW = """
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: train-
spec:
  entrypoint: main
  templates:
    - name: main
      steps:
        - - name: train
            template: train
    - name: train
      container:
        image: nvcr.io/nvidia/pytorch:24.05-py3
        command: [python, train.py]
        resources:
          requests:
            nvidia.com/gpu: 1  # <- here
    - name: evaluate
      script:
        image: python:3.12
        command: [python]
        source: print("ok")
        resources:
          requests:
            nvidia.com/gpu: 1  # <- here
    - name: pair
      containerSet:
        containers:
          - name: a
            image: nvcr.io/nvidia/pytorch:24.05-py3
            resources:
              requests:
                nvidia.com/gpu: 1  # <- here
"""

CRON_WORKFLOW = """
apiVersion: argoproj.io/v1alpha1
kind: CronWorkflow
metadata:
  name: nightly
spec:
  schedule: "0 2 * * *"
  workflowSpec:
    entrypoint: train
    templates:
      - name: train
        container:
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
"""

ROLLOUT = """
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: serve
spec:
  replicas: 5
  strategy:
    canary:
      steps:
        - setWeight: 20
  selector:
    matchLabels:
      app: serve
  template:
    metadata:
      labels:
        app: serve
    spec:
      containers:
        - name: serve
          image: nvcr.io/nim/meta/llama3-8b-instruct:1.0.0
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
"""

KNATIVE = """
apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: whisper
spec:
  template:
    metadata:
      annotations:
        autoscaling.knative.dev/min-scale: "1"
    spec:
      containers:
        - image: example.com/whisper:1.0
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
"""

CASES = {
    "PyTorchJob": PYTORCHJOB,
    **{kind: _kubeflow_job(kind, *spec) for kind, spec in KUBEFLOW_JOBS.items()},
    "ClusterTrainingRuntime": TRAINING_RUNTIME,
    "TrainingRuntime": TRAINING_RUNTIME.replace(
        "kind: ClusterTrainingRuntime", "kind: TrainingRuntime"
    ),
    "Experiment-PyTorchJob": KATIB,
    "Experiment-Job": KATIB_JOB,
    "Notebook": NOTEBOOK,
    "JobSet": JOBSET,
    "LeaderWorkerSet": LWS,
    "VolcanoJob": VOLCANO,
    "RayCluster-v1": _ray_cluster("RayCluster", "v1", None),
    "RayCluster-v1alpha1": _ray_cluster("RayCluster", "v1alpha1", None),
    "RayJob-v1": _ray_cluster("RayJob", "v1", "rayClusterSpec"),
    "RayJob-v1alpha1": _ray_cluster("RayJob", "v1alpha1", "rayClusterSpec"),
    "RayJob-submitter": RAYJOB_SUBMITTER,
    "RayService-v1": _ray_cluster("RayService", "v1", "rayClusterConfig"),
    "RayService-v1alpha1": _ray_cluster("RayService", "v1alpha1", "rayClusterConfig"),
    "InferenceService-inline": ISVC_INLINE,
    "InferenceService-framework": ISVC_FRAMEWORK,
    "ClusterServingRuntime": SERVING_RUNTIME,
    "ServingRuntime": SERVING_RUNTIME.replace(
        "kind: ClusterServingRuntime", "kind: ServingRuntime"
    ),
    "LLMInferenceService": LLMISVC,
    "Workflow": ARGO_WORKFLOW,
    "WorkflowTemplate": ARGO_WORKFLOW.replace("kind: Workflow", "kind: WorkflowTemplate"),
    "ClusterWorkflowTemplate": ARGO_WORKFLOW.replace(
        "kind: Workflow", "kind: ClusterWorkflowTemplate"
    ),
    "CronWorkflow": CRON_WORKFLOW,
    "Rollout": ROLLOUT,
    "KnativeService": KNATIVE,
}


@pytest.mark.parametrize("name", list(CASES))
def test_every_pod_template_of_the_kind_is_checked(tmp_path, name):
    text = CASES[name]
    expected = _expected(text)
    assert expected, "each case marks at least one line"
    assert _found(tmp_path, text) == expected
    # Read through the table, not by the generic fallback.
    assert [r.generic for r in _resources(text)] == [False]


def test_pytorchjob_exact_positions(tmp_path):
    # Spelled out once, so a broken marker helper cannot hide a wrong position.
    assert _found(tmp_path, PYTORCHJOB) == [("GPU101", 17, 19), ("GPU101", 27, 19)]


def test_findings_name_the_crd_and_container(tmp_path):
    found = lint(tmp_path, LWS, "--select", "GPU101")
    assert {(f["resource"]["kind"], f["container"]) for f in found} == {
        ("LeaderWorkerSet", "vllm-leader"),
        ("LeaderWorkerSet", "vllm-worker"),
    }
    assert found[0]["pointer"] == (
        "/spec/leaderWorkerTemplate/leaderTemplate/spec/containers/0"
        "/resources/requests/nvidia.com~1gpu"
    )


def test_a_crd_kind_in_another_group_is_not_mistaken(tmp_path):
    # `Job` of batch/v1 keeps its template under spec.template, not spec.tasks.
    text = VOLCANO.replace("batch.volcano.sh/v1alpha1", "example.com/v1")
    assert _found(tmp_path, text) == _expected(VOLCANO)  # found generically instead


# --- replicas per role ---


def test_replicas_of_kubeflow_roles():
    assert _roles(PYTORCHJOB) == [("Master", 1), ("Worker", 3)]


def test_replicas_of_jobset_roles_multiply_parallelism():
    assert _roles(JOBSET) == [("driver", 1), ("workers", 8)]


def test_replicas_of_training_runtime_jobs():
    assert _roles(TRAINING_RUNTIME) == [("dataset-initializer", 1), ("node", 6)]


def test_katib_trials_run_in_parallel():
    assert _roles(KATIB) == [("Master", 2)]
    # parallelTrialCount defaults to 3
    assert _roles(KATIB_JOB) == [("trial", 3)]


def test_leaderworkerset_leaders_and_workers():
    assert _roles(LWS) == [("leader", 2), ("worker", 6)]
    without_leader = (
        LWS.split("    leaderTemplate:")[0]
        + "    workerTemplate:"
        + LWS.split("    workerTemplate:")[1]
    )
    assert _roles(without_leader) == [("worker", 8)]


def test_volcano_tasks():
    assert _roles(VOLCANO) == [("mpimaster", 1), ("mpiworker", 2)]


def test_ray_head_and_worker_groups_with_hosts():
    assert _roles(CASES["RayCluster-v1"]) == [("head", 1), ("gpu-group", 6)]
    assert _roles(CASES["RayJob-v1alpha1"]) == [("head", 1), ("gpu-group", 6)]
    no_replicas = re.sub(r"(?m)^ +replicas: 3\n", "", CASES["RayCluster-v1"])
    assert _roles(no_replicas) == [("head", 1), ("gpu-group", 2)]  # minReplicas x numOfHosts


def test_kserve_components():
    assert _roles(ISVC_INLINE) == [("predictor", 2), ("transformer", 1)]
    assert _roles(LLMISVC) == [("decode", 2), ("prefill", 3)]


def test_argo_templates_are_named_by_template():
    roles = [role for role, _ in _roles(ARGO_WORKFLOW)]
    assert roles == ["main", "train", "evaluate", "pair"]


def test_argo_containers_are_named_as_the_controller_names_them(tmp_path):
    # `container` and `script` run as `main` (Argo's MainContainerName); findings name the
    # template with it, since every template's container is `main`.
    data = findings_json(str(_write(tmp_path, ARGO_WORKFLOW)), "--select", "GPU101")
    spots = [(f["line"], f["container"]) for f in data["findings"]]
    assert spots == [(18, "train/main"), (26, "evaluate/main"), (34, "pair/a")]


def test_rollout_replicas():
    assert _roles(ROLLOUT) == [(None, 5)]


# --- the generic fallback ---

UNKNOWN = """
apiVersion: nim.example.com/v1
kind: ModelServer
metadata:
  name: nim
spec:
  deployment:
    podSpec:
      containers:
        - name: nim
          image: nvcr.io/nim/meta/llama3-8b-instruct:1.0.0
          resources:
            requests:
              nvidia.com/gpu: 1  # <- here
  config:
    containers: not-a-pod-spec
"""


def test_unknown_kind_is_checked_generically(tmp_path):
    assert _found(tmp_path, UNKNOWN) == _expected(UNKNOWN) == [("GPU101", 13, 15)]


def test_verbose_names_the_kind_read_generically(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(textwrap.dedent(UNKNOWN).lstrip("\n"))

    quiet = run_cli("check", str(path), "--select", "GPU101")
    loud = run_cli("check", str(path), "--select", "GPU101", "--verbose")
    notice = "ModelServer (nim.example.com/v1) is not in the workload table"
    assert notice not in quiet.output
    assert notice in loud.output


def test_builtin_kinds_are_never_searched_generically():
    text = """
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: c
    data:
      spec:
        containers:
          - image: x
    """
    (resource,) = _resources(text)
    assert resource.pod_specs == []


def test_containers_without_images_are_not_a_pod_spec():
    text = """
    apiVersion: example.com/v1
    kind: Thing
    metadata:
      name: t
    spec:
      containers:
        - name: a
    """
    (resource,) = _resources(text)
    assert resource.pod_specs == []


def test_kserve_framework_container_is_named_in_json(tmp_path):
    data = findings_json(str(_write(tmp_path, ISVC_FRAMEWORK)), "--select", "GPU101")
    pointers = sorted(f["pointer"] for f in data["findings"])
    assert pointers == [
        "/spec/explainer/art/resources/requests/nvidia.com~1gpu",
        "/spec/predictor/model/resources/requests/nvidia.com~1gpu",
        "/spec/predictor/workerSpec/containers/0/resources/requests/nvidia.com~1gpu",
    ]


def _write(tmp_path, text: str):
    path = tmp_path / "isvc.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


# --- GPU901 ray-gpus-mismatch ---


def test_the_crd_modules_name_api_groups_of_their_own():
    """So table.lookup answers an object of a built-in kind's group from the built-in
    kinds alone, without importing the CRD modules (start-up)."""
    from gpulint.model.kinds import assembled, crds, kubeai, table

    for module in (crds, assembled, kubeai):
        for entry in module.KINDS:
            assert entry.group is not None, (module.__name__, entry.kind)
            assert entry.group not in table._BUILTIN_GROUPS, (module.__name__, entry.kind)


def test_lookup_answers_as_the_whole_table_does():
    from gpulint.model.kinds import table

    whole = table._whole_table()
    versions = {f"{e.group}/v1" if e.group else "v1" for es in whole.values() for e in es}
    versions |= {"v1", "apps/v1", "batch/v1", "example.com/v1", "nogroup"}
    kinds = [*whole, "ConfigMap", "Unknown"]
    for kind in kinds:
        for version in sorted(versions):
            group = table.api_group(version)
            expected = next(
                (e for e in whole.get(kind, ()) if e.group is None or e.group == group), None
            )
            assert table.lookup(kind, version) is expected, (kind, version)
