"""GPU201-GPU204 and GPU207: GPU model selection, GPU taints and tolerations."""

from __future__ import annotations

from tests.helpers import (
    GPU_NODEPOOL,
    findings_json,
    gpu_pod,
    held_back,
    lint,
    lint_known,
    where,
    write_files,
)

# These rules report only what the cluster profile establishes (tests/model/test_profile.py
# covers where the facts come from); most tests here give them the facts.
known = lint_known


# --- GPU201 gpu-node-selection-missing ----------------------------------------------------------


def test_gpu201_reports_the_gpu_limit_when_nothing_is_selected(tmp_path):
    found = known(tmp_path, gpu_pod(), "--select", "GPU201")
    assert where(found) == [("GPU201", 12, 11)]
    assert "nvidia.com/gpu: 1 with no GPU model selected" in found[0]["message"]


def test_gpu201_presence_label_is_not_a_model(tmp_path):
    scheduling = "  nodeSelector:\n    nvidia.com/gpu.present: 'true'"
    found = known(tmp_path, gpu_pod(scheduling), "--select", "GPU201")
    assert where(found) == [("GPU201", 13, 11)]
    assert "nvidia.com/gpu.present only says the node has a GPU" in found[0]["message"]


def test_gpu201_model_labels_from_gfd_gke_karpenter_and_instance_type_count(tmp_path):
    for key, value in [
        ("nvidia.com/gpu.product", "NVIDIA-L4"),
        ("nvidia.com/gpu.family", "hopper"),
        ("cloud.google.com/gke-accelerator", "nvidia-l4"),
        ("karpenter.k8s.aws/instance-gpu-name", "a10g"),
        ("eks.amazonaws.com/instance-gpu-name", "t4"),
        ("node.kubernetes.io/instance-type", "g5.xlarge"),
        ("cloud.google.com/gke-nodepool", "l4-pool"),
    ]:
        scheduling = f"  nodeSelector:\n    {key}: {value}"
        assert known(tmp_path, gpu_pod(scheduling), "--select", "GPU201") == [], key


def test_gpu201_own_labels_that_name_a_model_count(tmp_path):
    for value in ("a100", "gpu-h100-80gb", "nvidia-tesla-t4"):
        scheduling = f"  nodeSelector:\n    example.com/gpu-type: {value}"
        assert known(tmp_path, gpu_pod(scheduling), "--select", "GPU201") == [], value
    pool = "  nodeSelector:\n    example.com/pool: gpu-large"
    assert where(known(tmp_path, gpu_pod(pool), "--select", "GPU201")) == [("GPU201", 13, 11)]


def test_gpu201_every_affinity_term_must_pin_a_model(tmp_path):
    scheduling = """  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}
          - matchExpressions:
              - {key: nvidia.com/gpu.product, operator: Exists}"""
    found = known(tmp_path, gpu_pod(scheduling), "--select", "GPU201")
    assert where(found) == [("GPU201", 19, 11)]
    assert "in every affinity term" in found[0]["message"]
    # Both terms pinning a model (one by a memory bound) is a selection.
    fixed = scheduling.replace(
        "{key: nvidia.com/gpu.product, operator: Exists}",
        "{key: nvidia.com/gpu.memory, operator: Gt, values: ['40000']}",
    )
    assert known(tmp_path, gpu_pod(fixed), "--select", "GPU201") == []


def test_gpu201_preferred_affinity_does_not_count(tmp_path):
    scheduling = """  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 1
          preference:
            matchExpressions:
              - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}"""
    assert where(known(tmp_path, gpu_pod(scheduling), "--select", "GPU201")) == [("GPU201", 18, 11)]


def test_gpu201_mig_only_pods_and_hami_type_annotation_are_selections(tmp_path):
    mig = gpu_pod(resource="nvidia.com/mig-1g.10gb")
    assert known(tmp_path, mig, "--select", "GPU201") == []
    hami = gpu_pod().replace(
        "  name: p\n", "  name: p\n  annotations:\n    nvidia.com/use-gputype: A100\n"
    )
    assert known(tmp_path, hami, "--select", "GPU201") == []


def test_gpu201_leaves_gpu_infrastructure_alone(tmp_path):
    text = gpu_pod().replace(
        "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.0",
    )
    assert known(tmp_path, text, "--select", "GPU201") == []


# --- GPU202 gpu-toleration-missing ------------------------------------------------------------


def test_gpu202_without_tolerations_points_at_the_gpu_limit(tmp_path):
    found = known(tmp_path, gpu_pod(), "--select", "GPU202")
    assert where(found) == [("GPU202", 12, 11)]
    assert "does not tolerate the GPU taint nvidia.com/gpu" in found[0]["message"]


def test_gpu202_mig_toleration_does_not_count(tmp_path):
    scheduling = """  tolerations:
    - key: nvidia.com/mig-1g.10gb
      operator: Exists"""
    found = known(tmp_path, gpu_pod(scheduling, "nvidia.com/mig-1g.10gb"), "--select", "GPU202")
    assert where(found) == [("GPU202", 6, 3)]
    assert "the toleration on nvidia.com/mig-1g.10gb does not count" in found[0]["message"]


def test_gpu202_wrong_effect_does_not_count_but_keyless_exists_does(tmp_path):
    no_execute = """  tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoExecute}"""
    assert where(known(tmp_path, gpu_pod(no_execute), "--select", "GPU202")) == [("GPU202", 6, 3)]
    for good in (
        "  tolerations:\n    - {operator: Exists}",
        "  tolerations:\n    - {key: nvidia.com/gpu, value: present, effect: NoSchedule}",
    ):
        assert known(tmp_path, gpu_pod(good), "--select", "GPU202") == [], good


def test_gpu202_nvidia_taint_does_not_concern_amd_pods(tmp_path):
    assert known(tmp_path, gpu_pod(resource="amd.com/gpu"), "--select", "GPU202") == []


def test_gpu202_in_a_crd_role_and_a_sidecar(tmp_path):
    text = """
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists}
          containers:
            - name: pytorch
              image: nvcr.io/nvidia/pytorch:24.05-py3
              resources: {limits: {nvidia.com/gpu: 1}}
    Worker:
      replicas: 3
      template:
        spec:
          initContainers:
            - name: warm
              image: nvcr.io/nvidia/pytorch:24.05-py3
              restartPolicy: Always
              resources: {limits: {nvidia.com/gpu: 1}}
          containers:
            - name: pytorch
              image: nvcr.io/nvidia/pytorch:24.05-py3
"""
    found = known(tmp_path, text, "--select", "GPU202")
    assert where(found) == [("GPU202", 25, 36)]


def test_gpu202_configured_keys_and_extended_resource_toleration(tmp_path):
    config = tmp_path / "gpulint.yaml"
    config.write_text("gpu-taint-keys: [nvidia.com/gpu]\nextended-resource-toleration: true\n")
    # The admission plugin tolerates nvidia.com/gpu for a pod that requests it...
    assert lint(tmp_path, gpu_pod(), "--select", "GPU202", "--config", str(config)) == []
    # ...but names a MIG pod's toleration after its MIG resource, not after the taint.
    mig = gpu_pod(resource="nvidia.com/mig-1g.10gb")
    found = lint(tmp_path, mig, "--select", "GPU202", "--config", str(config))
    assert where(found) == [("GPU202", 12, 11)]
    # A vendor-neutral key concerns every GPU pod, AMD included.
    config.write_text("gpu-taint-keys: [sku]\n")
    amd = gpu_pod(resource="amd.com/gpu")
    found = lint(tmp_path, amd, "--select", "GPU202", "--config", str(config))
    assert where(found) == [("GPU202", 12, 11)]
    assert "GPU taint sku" in found[0]["message"]
    tolerated = gpu_pod("  tolerations:\n    - {key: sku, operator: Equal, value: gpu}")
    assert lint(tmp_path, tolerated, "--select", "GPU202", "--config", str(config)) == []


# --- GPU203 gpu-taint-tolerated-without-gpu ----------------------------------------------------

CPU_DEPLOYMENT = """
apiVersion: apps/v1
kind: {kind}
metadata:
  name: web
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}{annotations}
    spec:
{scheduling}
      containers:
        - name: web
          image: ghcr.io/example/web:1.0.0
          resources:
            limits: {{cpu: "1", memory: 1Gi}}
"""


def cpu_workload(scheduling: str, kind: str = "Deployment", annotations: str = "") -> str:
    return CPU_DEPLOYMENT.format(scheduling=scheduling, kind=kind, annotations=annotations)


TOLERATIONS = """      tolerations:
        - {key: dedicated, operator: Equal, value: web}
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        - {operator: Exists, effect: NoExecute}
        - operator: Exists"""


def test_gpu203_reports_each_toleration_that_admits_the_gpu_taint(tmp_path):
    found = known(tmp_path, cpu_workload(TOLERATIONS), "--select", "GPU203")
    assert where(found) == [("GPU203", 14, 12), ("GPU203", 16, 11)]
    assert "tolerates the GPU taint nvidia.com/gpu" in found[0]["message"]
    assert "tolerates every taint" in found[1]["message"]


def test_gpu203_exempts_daemonsets_infrastructure_and_other_gpu_use(tmp_path):
    assert known(tmp_path, cpu_workload(TOLERATIONS, "DaemonSet"), "--select", "GPU203") == []
    infra = cpu_workload(TOLERATIONS).replace(
        "ghcr.io/example/web:1.0.0", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04"
    )
    assert known(tmp_path, infra, "--select", "GPU203") == []
    fraction = cpu_workload(TOLERATIONS, annotations='\n      annotations: {gpu-fraction: "0.5"}')
    assert known(tmp_path, fraction, "--select", "GPU203") == []
    dra = cpu_workload(
        TOLERATIONS + "\n      resourceClaims:\n        - {name: gpu, resourceClaimTemplateName: g}"
    )
    assert known(tmp_path, dra, "--select", "GPU203") == []


def test_gpu203_silent_for_pods_of_another_accelerator(tmp_path):
    # A Gaudi, Neuron or TPU pod fits only the nodes that advertise its accelerator; the
    # key-less toleration gets it past those nodes' own taints, never onto a GPU node.
    for resource in ("habana.ai/gaudi", "aws.amazon.com/neuroncore", "google.com/tpu"):
        text = cpu_workload(TOLERATIONS).replace('cpu: "1",', f'cpu: "1", {resource}: 8,')
        assert known(tmp_path, text, "--select", "GPU203") == [], resource
    # an extended resource GPU nodes may advertise too (RDMA) is no such accelerator
    rdma = cpu_workload(TOLERATIONS).replace('cpu: "1",', 'cpu: "1", rdma/hca: 1,')
    assert where(known(tmp_path, rdma, "--select", "GPU203")) == [
        ("GPU203", 14, 12),
        ("GPU203", 16, 11),
    ]


def test_gpu203_silent_when_the_pod_requests_a_gpu(tmp_path):
    scheduling = "  tolerations:\n    - {key: nvidia.com/gpu, operator: Exists}"
    assert known(tmp_path, gpu_pod(scheduling), "--select", "GPU203") == []


# --- GPU204 gpu-node-selected-without-gpu ------------------------------------------------------


def test_gpu204_reports_the_gpu_selector(tmp_path):
    scheduling = """      nodeSelector:
        kubernetes.io/os: linux
        nvidia.com/gpu.present: "true\""""
    found = known(tmp_path, cpu_workload(scheduling), "--select", "GPU204")
    assert where(found) == [("GPU204", 14, 9)]
    assert "nvidia.com/gpu.present=true" in found[0]["message"]


def test_gpu204_affinity_must_pin_gpu_nodes_in_every_term(tmp_path):
    scheduling = """      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {{key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["0"]}}
              - matchExpressions:
                  - {other}"""
    both = scheduling.format(
        other="{key: feature.node.kubernetes.io/pci-10de.present, operator: Exists}"
    )
    found = known(tmp_path, cpu_workload(both), "--select", "GPU204")
    assert where(found) == [("GPU204", 17, 22)]
    one = scheduling.format(other="{key: kubernetes.io/arch, operator: In, values: [amd64]}")
    assert known(tmp_path, cpu_workload(one), "--select", "GPU204") == []


def test_gpu204_keeping_away_from_gpu_nodes_is_fine(tmp_path):
    for scheduling in (
        '      nodeSelector:\n        nvidia.com/gpu.present: "false"',
        """      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: nvidia.com/gpu.product, operator: DoesNotExist}""",
    ):
        assert known(tmp_path, cpu_workload(scheduling), "--select", "GPU204") == [], scheduling


def test_gpu204_exempts_daemonsets_and_gpu_infrastructure(tmp_path):
    scheduling = '      nodeSelector:\n        nvidia.com/gpu.deploy.dcgm-exporter: "true"'
    assert known(tmp_path, cpu_workload(scheduling, "DaemonSet"), "--select", "GPU204") == []
    infra = cpu_workload(scheduling).replace(
        "ghcr.io/example/web:1.0.0", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"
    )
    assert known(tmp_path, infra, "--select", "GPU204") == []


# --- GPU207 gpu-infra-toleration-missing -------------------------------------------------------

INFRA_DAEMONSET = """
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: infra
spec:
  selector:
    matchLabels: {{app: infra}}
  template:
    metadata:
      labels: {{app: infra}}
    spec:
{scheduling}
      containers:
        - name: agent
          image: {image}
"""


def infra(scheduling: str, image: str = "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1") -> str:
    return INFRA_DAEMONSET.format(scheduling=scheduling, image=image)


def test_gpu207_reports_tolerations_without_the_gpu_taint(tmp_path):
    scheduling = "      tolerations:\n        - {key: CriticalAddonsOnly, operator: Exists}"
    found = known(tmp_path, infra(scheduling), "--select", "GPU207")
    assert where(found) == [("GPU207", 12, 7)]
    assert "dcgm-exporter:3.3.5-3.4.1" in found[0]["message"]


def test_gpu207_without_tolerations_points_at_the_image(tmp_path):
    found = known(tmp_path, infra("      hostPID: true"), "--select", "GPU207")
    assert where(found) == [("GPU207", 15, 11)]


def test_gpu207_tolerated_or_not_infrastructure_or_not_a_daemonset(tmp_path):
    tolerated = "      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists}"
    assert known(tmp_path, infra(tolerated), "--select", "GPU207") == []
    everything = "      tolerations:\n        - operator: Exists"
    assert known(tmp_path, infra(everything), "--select", "GPU207") == []
    workload = infra("      hostPID: true", image="ghcr.io/example/agent:1.0.0")
    assert known(tmp_path, workload, "--select", "GPU207") == []
    # NVIDIA's taint does not concern AMD's device plugin.
    amd = infra("      hostPID: true", image="rocm/k8s-device-plugin:1.25.2.8")
    assert known(tmp_path, amd, "--select", "GPU207") == []


def test_gpu207_every_configured_key_must_be_tolerated(tmp_path):
    config = tmp_path / "gpulint.yaml"
    config.write_text("gpu-taint-keys: [nvidia.com/gpu, sku]\n")
    tolerated = "      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists}"
    found = lint(tmp_path, infra(tolerated), "--select", "GPU207", "--config", str(config))
    assert where(found) == [("GPU207", 12, 7)]
    assert "GPU taint sku" in found[0]["message"]


def test_gpu201_gpu202_skip_pods_bound_by_node_name(tmp_path):
    text = gpu_pod("  nodeName: gpu-node-3")
    assert known(tmp_path, text, "--select", "GPU201,GPU202") == []


def test_gpu201_advice_follows_the_gpu_vendor(tmp_path):
    found = known(tmp_path, gpu_pod(resource="amd.com/gpu"), "--select", "GPU201")
    assert where(found) == [("GPU201", 12, 11)]
    assert "amd.com/gpu.family" in found[0]["message"]
    assert "nvidia.com/gpu.product" not in found[0]["message"]


def test_gpu202_kueue_adds_the_flavor_tolerations(tmp_path):
    job = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
{labels}spec:
  template:
    {template}spec:
      restartPolicy: Never
      containers:
        - name: t
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
    queued = job.format(labels="  labels: {kueue.x-k8s.io/queue-name: gpu}\n", template="")
    assert lint_known(tmp_path, queued, "--select", "GPU202") == []
    on_template = job.format(
        labels="", template="metadata: {labels: {kueue.x-k8s.io/queue-name: gpu}}\n    "
    )
    assert lint_known(tmp_path, on_template, "--select", "GPU202") == []
    plain = job.format(labels="", template="")
    assert [f["code"] for f in lint_known(tmp_path, plain, "--select", "GPU202")] == ["GPU202"]


def test_gpu201_leaves_daemonsets_alone_they_mean_any_gpu(tmp_path):
    probe = """\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: gpu-probe}
        spec:
          template:
            spec:
              containers:
                - name: probe
                  image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
                  resources: {limits: {nvidia.com/gpu: 1}}
        """
    paths = write_files(tmp_path, probe=probe, pool=GPU_NODEPOOL)
    report = findings_json(*paths, "--select", "GPU201")
    assert report["findings"] == [] and held_back(report) == {}


def _daemonset(name: str, image: str, tolerations: str = "") -> str:
    return (
        f"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: {name}}}\nspec:\n"
        f"  template:\n    spec:\n{tolerations}      containers:\n"
        f"        - name: main\n          image: {image}\n"
    )


def test_gpu207_holds_infrastructure_to_what_the_rest_of_it_tolerates(tmp_path):
    tolerant = "      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists}\n"
    plugin = _daemonset(
        "nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", tolerant
    )
    gfd = _daemonset("gpu-feature-discovery", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0")
    dcgm = _daemonset("dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04")
    alone = write_files(tmp_path, dcgm=dcgm)
    report = findings_json(*alone, "--select", "GPU207")
    # nothing in the run says: the usual nvidia.com/gpu taint is assumed, and said; most
    # clusters do not taint GPU nodes, so it is advice
    assert [f["line"] for f in report["findings"]] == [9] and held_back(report) == {}
    assert "(assumed: GKE taints GPU node pools nvidia.com/gpu" in report["findings"][0]["message"]
    assert report["findings"][0]["severity"] == "note"
    # A DaemonSet that tolerates its cluster's own GPU taint (AKS's sku=gpu) knows it; a
    # Kubernetes taint (node.kubernetes.io/not-ready) says nothing about GPU nodes.
    for toleration, found in (
        ("{key: sku, operator: Equal, value: gpu, effect: NoSchedule}", []),
        ("{key: node.kubernetes.io/not-ready, operator: Exists}", [7]),
        ("{key: CriticalAddonsOnly, operator: Exists}", [7]),  # at tolerations
    ):
        tolerations = f"      tolerations:\n        - {toleration}\n"
        own = _daemonset("dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5", tolerations)
        paths = write_files(tmp_path, dcgm=own)
        lines = [f["line"] for f in findings_json(*paths, "--select", "GPU207")["findings"]]
        assert lines == found, toleration
    config = tmp_path / "untainted.gpulint.yaml"
    config.write_text("cluster:\n  gpu-taints: []\n")
    untainted = findings_json(*alone, "--select", "GPU207", "--config", str(config))
    assert untainted["findings"] == [] and held_back(untainted) == {}
    paths = write_files(tmp_path, plugin=plugin, gfd=gfd)
    report = findings_json(*paths, "--select", "GPU207")
    assert [(f["path"].rsplit("/", 1)[1], f["line"]) for f in report["findings"]] == [
        ("gfd.yaml", 9)
    ]
    message = report["findings"][0]["message"]
    assert "(DaemonSet nvidia-device-plugin of this run tolerates it)" in message
    assert message.endswith("and they get no GPU labels from it")
