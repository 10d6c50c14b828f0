"""The cluster profile: where its facts come from, and rules held back without them."""

from __future__ import annotations

from gpulint import catalog
from gpulint.model.cluster_profile import (
    TOLERATION_ADDED_BY,
    ClusterConfig,
    GpuNodeGroup,
    GpuTaint,
    Observations,
    decide,
)
from tests.helpers import (
    BATCH_TOO,
    GPU_NODEPOOL,
    findings_json,
    gpu_node,
    held_back,
    run_cli,
    trainer_pod,
    where,
    write_files,
)


def test_without_facts_gpu201_and_gpu202_are_held_back_and_said_once(tmp_path):
    paths = write_files(tmp_path, app=trainer_pod())
    report = findings_json(*paths, "--select", "GPU201,GPU202")
    assert report["findings"] == []
    assert held_back(report) == {"GPU201": ["gpu-models"], "GPU202": ["gpu-taints"]}
    result = run_cli("check", *paths, "--select", "GPU201,GPU202")
    assert result.exit_code == 0
    notes = [line for line in result.stdout.splitlines() if "held back" in line]
    assert notes == [
        "note: 2 finding(s) of GPU201, GPU202 held back for want of cluster facts (gpu-models, "
        "gpu-taints); give them with --cluster nodes.yaml (kubectl get nodes -o yaml) or a "
        "cluster: section in .gpulint.yaml (--verbose says more)"
    ]
    verbose = run_cli("check", *paths, "--select", "GPU201,GPU202", "--verbose").stdout
    assert "note: held back 1 GPU202 gpu-toleration-missing finding(s): needs gpu-taints" in verbose


def _no_toleration_plugin(tmp_path) -> list[str]:
    config = tmp_path / "no-ert.gpulint.yaml"
    config.write_text("extended-resource-toleration: false\n")
    return ["--config", str(config)]


def test_a_nodepool_in_another_file_of_the_run_establishes_taints_and_models(tmp_path):
    paths = write_files(tmp_path, app=trainer_pod(), pool=GPU_NODEPOOL)
    report = findings_json(*paths, "--select", "GPU201,GPU202")
    # g5 (A10G) and g6 (L4): two models; the NodePool taints nvidia.com/gpu, but it is an
    # EKS one (karpenter.k8s.aws), and EKS adds the toleration to every GPU pod
    # (ExtendedResourceToleration is on in every platform version).
    assert where(report["findings"]) == [("GPU201", 12, 11)]
    assert "(the cluster has a10g, l4)" in report["findings"][0]["message"]
    assert held_back(report) == {}
    # Where the plugin is off (the config says so), the taint keeps the pod off GPU nodes.
    report = findings_json(*paths, "--select", "GPU202", *_no_toleration_plugin(tmp_path))
    assert where(report["findings"]) == [("GPU202", 12, 11)]


def test_cluster_nodes_one_model_and_an_untainted_kind_settle_both_rules(tmp_path):
    app = write_files(tmp_path, app=trainer_pod())
    nodes = write_files(
        tmp_path, nodes=gpu_node("a", "NVIDIA-L4") + "---\n" + gpu_node("b", "NVIDIA-L4", False)
    )
    report = findings_json(*app, "--cluster", nodes[0], "--select", "GPU201,GPU202")
    # One model: any GPU is that one; an untainted GPU node takes the pod: nothing to report
    # and nothing held back.
    assert report["findings"] == [] and held_back(report) == {}


def test_cluster_nodes_two_models_and_all_tainted(tmp_path):
    app = write_files(tmp_path, app=trainer_pod())
    nodes = write_files(
        tmp_path, nodes=gpu_node("a", "NVIDIA-L4") + "---\n" + gpu_node("b", "NVIDIA-H100")
    )
    report = findings_json(*app, "--cluster", nodes[0], "--select", "GPU201,GPU202")
    assert sorted(where(report["findings"])) == [("GPU201", 12, 11), ("GPU202", 12, 11)]


def test_gke_selector_says_gke_which_adds_the_toleration(tmp_path):
    gke = trainer_pod("  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-l4")
    paths = write_files(tmp_path, gke=gke, plain=trainer_pod())
    report = findings_json(*paths, "--select", "GPU202")
    assert report["findings"] == [] and held_back(report) == {}
    # A workload's selector only quiets; GPU207 assumes the nvidia.com/gpu taint where the run
    # says nothing (and says so), and a GKE cluster object makes it a known fact.
    daemonset = """\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: dcgm}
        spec:
          template:
            spec:
              containers:
                - name: exporter
                  image: nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04
        """
    paths += write_files(tmp_path, ds=daemonset)
    report = findings_json(*paths, "--select", "GPU207")
    assert where(report["findings"]) == [("GPU207", 9, 11)] and held_back(report) == {}
    assert "(assumed: GKE taints GPU node pools nvidia.com/gpu" in report["findings"][0]["message"]
    gke_node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: cpu-0\n  labels:\n"
    gke_node += "    cloud.google.com/gke-nodepool: default-pool\n"
    nodes = write_files(tmp_path, nodes=gke_node)
    report = findings_json(*paths, "--cluster", nodes[0], "--select", "GPU207")
    assert where(report["findings"]) == [("GPU207", 9, 11)]
    assert "assumed" not in report["findings"][0]["message"]


def test_two_providers_make_none(tmp_path):
    gke = trainer_pod("  nodeSelector:\n    cloud.google.com/gke-nodepool: gpu")
    eks = trainer_pod("  nodeSelector:\n    eks.amazonaws.com/nodegroup: gpu")
    paths = write_files(tmp_path, gke=gke, eks=eks, plain=trainer_pod())
    report = findings_json(*paths, "--select", "GPU202")
    # The GKE pod is on GKE (left alone); the others wait for the taint facts.
    assert report["findings"] == []
    assert report["heldBack"] == [
        {"code": "GPU202", "name": "gpu-toleration-missing", "needs": ["gpu-taints"], "count": 2}
    ]


def test_decide_weighs_config_over_objects():
    seen = Observations()
    seen.groups.append(GpuNodeGroup("Node a", (GpuTaint("nvidia.com/gpu"),), frozenset({"T4"})))
    assert decide(ClusterConfig(), seen).gpu_taint_keys == ("nvidia.com/gpu",)
    assert decide(ClusterConfig(), seen).gpu_models == frozenset({"T4"})
    config = ClusterConfig(gpu_taints=(), gpu_models=frozenset({"A100", "T4"}))
    profile = decide(config, seen)
    assert profile.gpu_taints == () and profile.gpu_models == frozenset({"A100", "T4"})
    # A group that does not name its model leaves one named model unproven.
    seen.groups.append(GpuNodeGroup("NodePool p", (GpuTaint("nvidia.com/gpu"),)))
    assert decide(ClusterConfig(), seen).gpu_models is None


def test_a_runtime_class_adds_its_tolerations_to_the_pods_that_name_it(tmp_path):
    runtime = """\
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata: {name: nvidia-gpu}
        handler: nvidia
        scheduling:
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        """
    named = trainer_pod("  runtimeClassName: nvidia-gpu")
    other = trainer_pod("  runtimeClassName: runc")
    paths = write_files(tmp_path, rc=runtime, pool=GPU_NODEPOOL, named=named, other=other)
    report = findings_json(*paths, "--select", "GPU202", *_no_toleration_plugin(tmp_path))
    assert [(f["path"].rsplit("/", 1)[1], f["line"]) for f in report["findings"]] == [
        ("other.yaml", 12)
    ]


def test_verbose_says_where_each_fact_came_from(tmp_path):
    paths = write_files(tmp_path, app=trainer_pod(), pool=GPU_NODEPOOL)
    out = run_cli("check", *paths, "--select", "GPU202", "--verbose").stdout
    pool = f"NodePool gpu ({tmp_path}/pool.yaml)"
    assert (
        "note: cluster profile: provider eks: requirement "
        f"karpenter.k8s.aws/instance-family of {pool}" in out
    )
    assert f"note: cluster profile: gpu-taints nvidia.com/gpu:NoSchedule: {pool}" in out
    assert f"note: cluster profile: gpu-models a10g, l4: {pool}" in out


def test_github_format_says_once_what_was_held_back(tmp_path):
    paths = write_files(tmp_path, app=trainer_pod())
    out = run_cli("check", *paths, "--select", "GPU202", "--format", "github").stdout
    assert out.splitlines() == [
        "::notice title=gpulint::1 finding(s) of GPU202 held back for want of cluster facts "
        "(gpu-taints); give them with --cluster nodes.yaml (kubectl get nodes -o yaml) or a "
        "cluster: section in .gpulint.yaml (--verbose says more)"
    ]


def test_odd_shapes_in_profile_objects_are_not_facts_and_break_nothing(tmp_path):
    odd = """\
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: odd}
        spec: {template: {spec: {requirements: x, taints: [1, {key: null}, {effect: NoSchedule}]}}}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: n, labels: [a]}
        spec: [1]
        status: {allocatable: {nvidia.com/gpu: lots}}
        ---
        kind: Node
        """
    paths = write_files(tmp_path, odd=odd, app=trainer_pod())
    report = findings_json(*paths, "--select", "GPU202")
    assert report["findings"] == [] and held_back(report) == {"GPU202": ["gpu-taints"]}


def test_config_gpu_models_one_settles_two_establish(tmp_path):
    paths = write_files(tmp_path, app=trainer_pod())
    config = tmp_path / "models.gpulint.yaml"
    config.write_text("cluster:\n  gpu-models: [NVIDIA-L4]\n")
    report = findings_json(*paths, "--select", "GPU201", "--config", str(config))
    assert report["findings"] == [] and held_back(report) == {}
    config.write_text("cluster:\n  gpu-models: [NVIDIA-L4, NVIDIA-H100-80GB-HBM3]\n")
    report = findings_json(*paths, "--select", "GPU201", "--config", str(config))
    assert where(report["findings"]) == [("GPU201", 12, 11)]
    assert "(the cluster has NVIDIA-H100-80GB-HBM3, NVIDIA-L4)" in report["findings"][0]["message"]


def test_probes_and_placeholders_are_left_to_run_on_any_gpu(tmp_path):
    def job(name: str, command: str) -> str:
        return (
            f"apiVersion: batch/v1\nkind: Job\nmetadata: {{name: {name}}}\nspec:\n  template:\n"
            f"    spec:\n      restartPolicy: Never\n      containers:\n        - name: c\n"
            f"          image: ubuntu:22.04\n{command}"
            f"          resources: {{limits: {{nvidia.com/gpu: 1}}}}\n"
        )

    probe = job("smi", '          command: [sh, -c, "nvidia-smi; sleep 3600"]\n')
    loop = job("loop", '          args: ["while true; do nvidia-smi -L; sleep 10; done"]\n')
    work = job("train", '          command: [sh, -c, "nvidia-smi && python train.py"]\n')
    paths = write_files(tmp_path, probe=probe, loop=loop, work=work, pool=GPU_NODEPOOL)
    (tmp_path / "batch.gpulint.yaml").write_text(BATCH_TOO)  # GPU106 judges Jobs too
    config = str(tmp_path / "batch.gpulint.yaml")
    report = findings_json(*paths, "--select", "GPU106,GPU201", "--config", config)
    found = sorted((f["path"].rsplit("/", 1)[1], f["code"]) for f in report["findings"])
    assert found == [("work.yaml", "GPU106"), ("work.yaml", "GPU201")]


def test_a_cuda_sample_image_is_a_probe_whatever_flags_it_gets(tmp_path):
    sample = trainer_pod("  restartPolicy: Never").replace(
        "image: nvcr.io/nvidia/pytorch:24.05-py3",
        "image: nvcr.io/nvidia/k8s/cuda-sample:nbody-cuda11.7.1-ubuntu18.04\n"
        '      args: ["--benchmark"]',
    )
    paths = write_files(tmp_path, sample=sample, pool=GPU_NODEPOOL)
    assert findings_json(*paths, "--select", "GPU201")["findings"] == []


def test_the_providers_that_add_the_toleration_are_the_catalogs_cited_ones():
    cited = catalog.raw()["kubernetes"]["extended_resource_toleration_providers"]
    assert frozenset(cited) == TOLERATION_ADDED_BY
