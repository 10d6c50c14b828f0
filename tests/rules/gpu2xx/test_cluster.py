"""GPU210/GPU211 against realistic inventories, through the CLI (``check --cluster``).

The main inventory is 12 nodes as ``kubectl get nodes -o yaml`` writes them (a List):
three CPU nodes, an untainted T4 pool (1 GPU each), a tainted A100 pool (8 each), two
tainted H100 nodes (one cordoned) and a MIG-mixed H100 node that advertises MIG
profiles only. A second inventory is the same cluster after the T4 pool was
re-provisioned with A100s, which leaves workloads pinned to the T4's memory label.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.helpers import findings_json, run_cli, where

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
CORDON_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
T4 = {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.memory": "15360",
      "nvidia.com/gpu.family": "turing"}  # fmt: skip
A100 = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.memory": "40536",
        "nvidia.com/gpu.family": "ampere"}  # fmt: skip
H100 = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.memory": "81559",
        "nvidia.com/gpu.family": "hopper"}  # fmt: skip


def node(name, labels=None, taints=(), allocatable=None, unschedulable=False) -> dict:
    obj: dict = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {},
        "status": {
            "allocatable": {
                "cpu": "31850m",
                "memory": "121Gi",
                "pods": "110",
                **(allocatable or {}),
            }
        },
    }
    if taints:
        obj["spec"]["taints"] = [dict(t) for t in taints]
    if unschedulable:
        obj["spec"]["unschedulable"] = True
    return obj


def main_cluster() -> list[dict]:
    mig = {"nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "all-balanced", **H100}
    return [
        *(node(f"cpu-{i}") for i in (1, 2, 3)),
        *(node(f"gpu-t4-{i}", T4, (), {"nvidia.com/gpu": "1"}) for i in (1, 2)),
        *(node(f"gpu-a100-{i}", A100, [GPU_TAINT], {"nvidia.com/gpu": "8"}) for i in (1, 2, 3, 4)),
        node("gpu-h100-1", H100, [GPU_TAINT, CORDON_TAINT], {"nvidia.com/gpu": "8"}, True),
        node("gpu-h100-2", H100, [GPU_TAINT], {"nvidia.com/gpu": "8"}),
        node(
            "gpu-mig-1",
            mig,
            [GPU_TAINT],
            {
                "nvidia.com/gpu": "0",
                "nvidia.com/mig-1g.10gb": "2",
                "nvidia.com/mig-2g.20gb": "1",
                "nvidia.com/mig-3g.40gb": "1",
            },
        ),
    ]


def after_t4_swap() -> list[dict]:
    """The T4 pool (pool-b) re-provisioned with A100s: GFD now labels the A100's memory."""
    pool = {"cloud.google.com/gke-nodepool": "pool-b"}
    return [
        *(node(f"cpu-{i}") for i in (1, 2)),
        *(
            node(f"gpu-pool-b-{i}", {**A100, **pool}, [GPU_TAINT], {"nvidia.com/gpu": "8"})
            for i in (1, 2)
        ),  # fmt: skip
        node("gpu-h100-2", H100, [GPU_TAINT], {"nvidia.com/gpu": "8"}),
    ]


@pytest.fixture
def inventory(tmp_path: Path):
    """Write nodes as ``kubectl get nodes -o yaml`` does (JSON is YAML) and return the path."""

    def _write(nodes: list[dict], name: str = "nodes.yaml") -> str:
        path = tmp_path / name
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes}, indent=2))
        return str(path)

    return _write


def check(tmp_path: Path, manifest: str, nodes: str, *args: str) -> list[dict]:
    path = tmp_path / "app.yaml"
    path.write_text(textwrap.dedent(manifest).lstrip("\n"))
    report = findings_json(str(path), "--cluster", nodes, "--select", "GPU210,GPU211", *args)
    assert report["errors"] == []  # a typo in a fixture must not pass as "no finding"
    return report["findings"]


def deployment(
    name: str,
    gpus: str = "nvidia.com/gpu: 1",
    extra: str = "",
    replicas: int = 1,
    tolerate: bool = False,
) -> str:
    """A Deployment: replicas on line 5, the GPU limit on line 15, ``extra`` from line 16."""
    extra = textwrap.dedent(extra).strip("\n") + (TOLERATE_GPU if tolerate else "")
    spec = textwrap.indent(extra.strip("\n"), " " * 6) + "\n" if extra.strip() else ""
    return (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        f"metadata: {{name: {name}, namespace: ml}}\n"
        "spec:\n"
        f"  replicas: {replicas}\n"
        f"  selector: {{matchLabels: {{app: {name}}}}}\n"
        "  template:\n"
        f"    metadata: {{labels: {{app: {name}}}}}\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: main\n"
        "          image: nvcr.io/nvidia/pytorch:24.05-py3\n"
        "          resources:\n"
        "            limits:\n"
        f"              {gpus}\n" + spec
    )


TOLERATE_GPU = """
tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
"""


def messages(found: list[dict], code: str) -> list[str]:
    return [f["message"] for f in found if f["code"] == code]


# --- GPU210: verdicts and the scheduler's event text -----------------------------------------


def test_too_many_gpus_per_pod_counts_every_node(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("big", "nvidia.com/gpu: 16", TOLERATE_GPU),
        inventory(main_cluster()),
    )
    assert where(found) == [("GPU210", 15, 15)]
    assert messages(found, "GPU210") == [
        "no node can take this pod: the pod needs 16 nvidia.com/gpu; the scheduler would report "
        '"0/12 nodes are available: 1 node(s) were unschedulable, 11 Insufficient nvidia.com/gpu."'
    ]


def test_untolerated_gpu_taint_is_counted_per_node(tmp_path, inventory):
    found = check(tmp_path, deployment("no-tol", "nvidia.com/gpu: 4"), inventory(main_cluster()))
    assert where(found) == [("GPU210", 15, 15)]
    assert (
        '"0/12 nodes are available: 1 node(s) were unschedulable, 5 Insufficient nvidia.com/gpu, '
        '6 node(s) had untolerated taint {nvidia.com/gpu: present}."' in found[0]["message"]
    )


def test_tolerating_the_taint_fits_the_a100_pool(tmp_path, inventory):
    found = check(
        tmp_path, deployment("ok", "nvidia.com/gpu: 4", TOLERATE_GPU), inventory(main_cluster())
    )
    assert found == []


def test_untainted_t4_pool_takes_a_one_gpu_pod_without_toleration(tmp_path, inventory):
    found = check(tmp_path, deployment("t4", "nvidia.com/gpu: 1"), inventory(main_cluster()))
    assert found == []


def test_equal_toleration_with_another_value_does_not_tolerate(tmp_path, inventory):
    extra = """
    tolerations:
      - {key: nvidia.com/gpu, operator: Equal, value: "true", effect: NoSchedule}
    """
    found = check(tmp_path, deployment("eq", "nvidia.com/gpu: 8", extra), inventory(main_cluster()))
    assert messages(found, "GPU210") == [
        "no node can take this pod: the pod needs 8 nvidia.com/gpu; the scheduler would report "
        '"0/12 nodes are available: 1 node(s) were unschedulable, 5 Insufficient nvidia.com/gpu, '
        '6 node(s) had untolerated taint {nvidia.com/gpu: present}."'
    ]


def test_equal_toleration_with_the_taint_value_fits(tmp_path, inventory):
    extra = """
    tolerations:
      - {key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}
    """
    found = check(tmp_path, deployment("eq", "nvidia.com/gpu: 8", extra), inventory(main_cluster()))
    assert found == []


def test_extended_resource_toleration_is_not_assumed(tmp_path, inventory):
    # Without the admission plugin, a GPU request alone tolerates nothing.
    found = check(tmp_path, deployment("ert", "nvidia.com/gpu: 8"), inventory(main_cluster()))
    assert where(found) == [("GPU210", 15, 15)]


def test_extended_resource_toleration_from_the_config_file(tmp_path, inventory):
    # The admission plugin adds {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}.
    config = tmp_path / "gpulint.yaml"
    config.write_text("extended-resource-toleration: true\n")
    found = check(
        tmp_path,
        deployment("ert", "nvidia.com/gpu: 8"),
        inventory(main_cluster()),
        "--config",
        str(config),
    )
    assert found == []


# --- node affinity operators --------------------------------------------------------------------


def test_second_affinity_term_is_ored(tmp_path, inventory):
    extra = """
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-B200]}
            - matchExpressions:
                - {key: nvidia.com/gpu.family, operator: In, values: [hopper]}
                - {key: nvidia.com/mig.strategy, operator: DoesNotExist}
    """
    found = check(
        tmp_path,
        deployment("or", "nvidia.com/gpu: 8", extra, tolerate=True),
        inventory(main_cluster()),
    )
    assert found == []  # gpu-h100-2: the second term matches, the first does not


def test_no_term_matches(tmp_path, inventory):
    extra = """
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-B200]}
            - matchExpressions:
                - {key: nvidia.com/gpu.memory, operator: Gt, values: ["90000"]}
    """
    found = check(
        tmp_path,
        deployment("b200", "nvidia.com/gpu: 8", extra, tolerate=True),
        inventory(main_cluster()),
    )
    assert where(found) == [("GPU210", 21, 22)]  # the first term's requirement
    assert messages(found, "GPU210")[0].startswith(
        "no node can take this pod: the pod needs 8 nvidia.com/gpu; the scheduler would report "
        '"0/12 nodes are available: 1 node(s) were unschedulable, '
        "11 node(s) didn't match Pod's node affinity/selector.\" "
        "Only the label nvidia.com/gpu.product stands in the way on 5 node(s) that pass every "
        'other filter: the pod asks for nvidia.com/gpu.product="NVIDIA-B200", '
        'gpu-a100-1 has "NVIDIA-A100-SXM4-40GB", '
    )


def test_gt_and_lt_select_the_a100_pool(tmp_path, inventory):
    extra = """
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - {key: nvidia.com/gpu.memory, operator: Gt, values: ["40000"]}
                - {key: nvidia.com/gpu.memory, operator: Lt, values: ["50000"]}
    """
    found = check(
        tmp_path,
        deployment("a100", "nvidia.com/gpu: 8", extra, tolerate=True),
        inventory(main_cluster()),
    )
    assert found == []


def test_notin_lets_unlabelled_cpu_nodes_through_to_the_resource_filter(tmp_path, inventory):
    extra = """
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - {key: nvidia.com/gpu.product, operator: NotIn, values: [Tesla-T4]}
    """
    found = check(
        tmp_path, deployment("notin", "nvidia.com/gpu: 1", extra), inventory(main_cluster())
    )
    assert (
        '"0/12 nodes are available: 1 node(s) were unschedulable, '
        "2 node(s) didn't match Pod's node affinity/selector, 3 Insufficient nvidia.com/gpu, "
        '6 node(s) had untolerated taint {nvidia.com/gpu: present}."' in found[0]["message"]
    )


def test_exists_matches_the_labelled_t4s(tmp_path, inventory):
    extra = """
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - {key: nvidia.com/gpu.product, operator: Exists}
    """
    found = check(tmp_path, deployment("ex", "nvidia.com/gpu: 1", extra), inventory(main_cluster()))
    assert found == []


# --- cordoned node, empty-key toleration, nodeName ------------------------------------------------


def test_pinned_to_the_cordoned_node(tmp_path, inventory):
    extra = "nodeSelector: {kubernetes.io/hostname: gpu-h100-1}\n" + TOLERATE_GPU
    found = check(
        tmp_path, deployment("pin", "nvidia.com/gpu: 8", extra), inventory(main_cluster())
    )
    assert where(found) == [("GPU210", 15, 15)]
    assert found[0]["message"].endswith(
        '"0/12 nodes are available: 1 node(s) were unschedulable, '
        "11 node(s) didn't match Pod's node affinity/selector.\""
    )  # pinning by hostname is deliberate: no stale-label claim


def test_empty_key_exists_tolerates_the_cordon_too(tmp_path, inventory):
    extra = """
    nodeSelector: {kubernetes.io/hostname: gpu-h100-1}
    tolerations:
      - operator: Exists
    """
    found = check(
        tmp_path, deployment("all", "nvidia.com/gpu: 8", extra), inventory(main_cluster())
    )
    assert found == []


def test_node_name_bypasses_noschedule_taints(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("bound", "nvidia.com/gpu: 4", "nodeName: gpu-a100-1"),
        inventory(main_cluster()),
    )
    assert found == []


def test_node_name_on_a_node_too_small_quotes_the_kubelet(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("bound", "nvidia.com/gpu: 2", "nodeName: gpu-t4-1"),
        inventory(main_cluster()),
    )
    assert messages(found, "GPU210") == [
        'spec.nodeName binds the pod to node "gpu-t4-1", bypassing the scheduler; the pod needs '
        "2 nvidia.com/gpu and the kubelet there rejects it: \"Node didn't have enough resource: "
        'nvidia.com/gpu, requested: 2, used: 0, capacity: 1" (OutOfnvidia.com/gpu)'
    ]


def test_node_name_not_in_the_inventory(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("bound", "nvidia.com/gpu: 1", "nodeName: gpu-v100-9"),
        inventory(main_cluster()),
    )
    assert messages(found, "GPU210") == [
        'spec.nodeName binds the pod to node "gpu-v100-9", which is not among the 12 node(s) '
        "of the inventory; the pod never starts"
    ]


def test_noexecute_taint_also_filters(tmp_path, inventory):
    nodes = [node("gpu-t4-1", T4, [{"key": "maintenance", "effect": "NoExecute"}],
                  {"nvidia.com/gpu": "1"})]  # fmt: skip
    found = check(tmp_path, deployment("t4", "nvidia.com/gpu: 1"), inventory(nodes))
    assert (
        '"0/1 nodes are available: 1 node(s) had untolerated taint {maintenance: }."'
        in found[0]["message"]
    )


def test_prefer_no_schedule_taint_does_not_filter(tmp_path, inventory):
    soft = {"key": "nvidia.com/gpu", "value": "present", "effect": "PreferNoSchedule"}
    nodes = [node("gpu-t4-1", T4, [soft], {"nvidia.com/gpu": "1"})]
    assert check(tmp_path, deployment("t4"), inventory(nodes)) == []


DRA_CLASS = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: mig-1g-12gb.gpu.nvidia.com}
spec:
  selectors:
    - cel:
        expression: "device.driver == 'gpu.nvidia.com'"
  extendedResourceName: nvidia.com/mig-1g.12gb
---
"""


def test_extended_resource_served_by_dra_is_not_counted_against_allocatable(tmp_path, inventory):
    manifest = DRA_CLASS + deployment("dra", "nvidia.com/mig-1g.12gb: 1", tolerate=True)
    assert check(tmp_path, manifest, inventory(main_cluster())) == []


def test_dra_served_resource_still_goes_through_the_other_filters(tmp_path, inventory):
    extra = "nodeSelector: {nvidia.com/gpu.product: NVIDIA-B200}\n"
    manifest = DRA_CLASS + deployment("dra", "nvidia.com/mig-1g.12gb: 1", extra, tolerate=True)
    found = check(tmp_path, manifest, inventory(main_cluster()))
    assert messages(found, "GPU210")[0].startswith(
        "no node can take this pod: the pod gets its GPUs through DRA; the scheduler would report"
    )


def test_without_the_device_class_the_resource_is_insufficient(tmp_path, inventory):
    manifest = deployment("dra", "nvidia.com/mig-1g.12gb: 1", tolerate=True)
    found = check(tmp_path, manifest, inventory(main_cluster()))
    assert "11 Insufficient nvidia.com/mig-1g.12gb" in found[0]["message"]


# --- MIG mixed nodes ----------------------------------------------------------------------------


def test_mig_profile_the_node_advertises_fits(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("mig", "nvidia.com/mig-1g.10gb: 1", TOLERATE_GPU),
        inventory(main_cluster()),
    )
    assert found == []


def test_mig_profile_of_another_gpu_is_insufficient_everywhere(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("mig", "nvidia.com/mig-1g.5gb: 1", TOLERATE_GPU),
        inventory(main_cluster()),
    )
    assert where(found) == [("GPU210", 15, 15)]
    assert (
        '"0/12 nodes are available: 1 node(s) were unschedulable, '
        '11 Insufficient nvidia.com/mig-1g.5gb."' in found[0]["message"]
    )


def test_full_gpu_on_the_mig_node_is_insufficient(tmp_path, inventory):
    extra = "nodeSelector: {nvidia.com/mig.strategy: mixed}\n" + TOLERATE_GPU
    found = check(
        tmp_path, deployment("mig", "nvidia.com/gpu: 1", extra), inventory(main_cluster())
    )
    assert (
        # Sorted as strings, the way the scheduler sorts them: "I" before "n".
        '"0/12 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable, '
        "10 node(s) didn't match Pod's node affinity/selector.\"" in found[0]["message"]
    )


def test_mig_replicas_beyond_the_node_warn(tmp_path, inventory):
    found = check(
        tmp_path,
        deployment("mig", "nvidia.com/mig-3g.40gb: 1", TOLERATE_GPU, replicas=3),
        inventory(main_cluster()),
    )
    assert where(found) == [("GPU211", 5, 3)]
    assert messages(found, "GPU211") == [
        "Deployment ml/mig runs 3 pods of 1 nvidia.com/mig-3g.40gb = 3 nvidia.com/mig-3g.40gb, "
        "but the 1 node(s) that can take them (gpu-mig-1) have 1 nvidia.com/mig-3g.40gb "
        'allocatable: room for 1 pod(s) at once, 2 would stay Pending with "Insufficient '
        'nvidia.com/mig-3g.40gb"; this is capacity, not free space: GPUs already held by '
        "running pods are not counted (pass --pods to subtract them)"
    ]


# --- the stale memory label after replacing T4s with A100s --------------------------------------

STALE = (
    """
nodeSelector:
  nvidia.com/gpu.memory: "15360"
"""
    + TOLERATE_GPU
)


def test_selector_left_on_the_t4_memory_names_node_and_label(tmp_path, inventory):
    found = check(tmp_path, deployment("embed", extra=STALE), inventory(after_t4_swap()))
    # Reported at the stale selector entry, not at the GPU limit.
    assert where(found) == [("GPU210", 17, 9)]
    assert messages(found, "GPU210") == [
        "no node can take this pod: the pod needs 1 nvidia.com/gpu; the scheduler would report "
        "\"0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector.\" "
        "Only the label nvidia.com/gpu.memory stands in the way on 3 node(s) that pass every "
        'other filter: the pod asks for nvidia.com/gpu.memory="15360", gpu-h100-2 has "81559", '
        'gpu-pool-b-1 has "40536", gpu-pool-b-2 has "40536"; if the label went stale when the '
        "hardware changed, update the selector or relabel the node(s)."
    ]


def test_same_selector_before_the_swap_lands_on_the_t4s(tmp_path, inventory):
    assert check(tmp_path, deployment("embed", extra=STALE), inventory(main_cluster())) == []


def test_stale_label_on_the_node_itself(tmp_path, inventory):
    # Labels applied by hand at provisioning time survive a hardware swap when no GFD runs.
    stale = {**A100, "nvidia.com/gpu.memory": "15360"}
    nodes = [node("gpu-a100-9", stale, [GPU_TAINT], {"nvidia.com/gpu": "8"})]
    extra = 'nodeSelector: {nvidia.com/gpu.memory: "40536"}\n' + TOLERATE_GPU
    found = check(tmp_path, deployment("a100", extra=extra), inventory(nodes))
    assert where(found) == [("GPU210", 16, 22)]
    assert (
        'the pod asks for nvidia.com/gpu.memory="40536", gpu-a100-9 has "15360"'
        in found[0]["message"]
    )


def test_no_stale_label_claim_when_resources_also_fail(tmp_path, inventory):
    found = check(
        tmp_path, deployment("embed", "nvidia.com/gpu: 16", STALE), inventory(after_t4_swap())
    )
    assert where(found) == [("GPU210", 15, 15)]
    assert "stale" not in found[0]["message"] and "Only the label" not in found[0]["message"]


# --- --verbose ----------------------------------------------------------------------------------


def test_verbose_lists_each_nodes_first_failing_filter(tmp_path, inventory):
    found = check(
        tmp_path, deployment("embed", extra=STALE), inventory(after_t4_swap()), "--verbose"
    )
    lines = found[0]["message"].splitlines()[1:]
    assert lines == [
        "  cpu-1: NodeAffinity: nodeSelector nvidia.com/gpu.memory=15360: the node has no such "
        "label",
        "  cpu-2: NodeAffinity: nodeSelector nvidia.com/gpu.memory=15360: the node has no such "
        "label",
        "  gpu-h100-2: NodeAffinity: nodeSelector nvidia.com/gpu.memory=15360: the node has "
        '"81559"',
        "  gpu-pool-b-1: NodeAffinity: nodeSelector nvidia.com/gpu.memory=15360: the node has "
        '"40536"',
        "  gpu-pool-b-2: NodeAffinity: nodeSelector nvidia.com/gpu.memory=15360: the node has "
        '"40536"',
    ]


def test_verbose_names_the_filter_order(tmp_path, inventory):
    found = check(tmp_path, deployment("big", "nvidia.com/gpu: 4"), inventory(main_cluster()), "-v")
    lines = found[0]["message"].splitlines()[1:]
    assert "  gpu-h100-1: NodeUnschedulable: cordoned (spec.unschedulable: true)" in lines
    assert (
        "  gpu-a100-1: TaintToleration: taint nvidia.com/gpu=present:NoSchedule is not tolerated"
        in lines
    )
    assert (
        "  gpu-t4-1: NodeResourcesFit: nvidia.com/gpu: the pod needs 4, the node has 1 allocatable"
        in lines
    )
    assert len(lines) == 12


# --- GPU211 capacity ----------------------------------------------------------------------------


def test_replicas_beyond_the_t4_pool(tmp_path, inventory):
    extra = "nodeSelector: {nvidia.com/gpu.product: Tesla-T4}\n"
    found = check(tmp_path, deployment("t4", extra=extra, replicas=3), inventory(main_cluster()))
    assert where(found) == [("GPU211", 5, 3)]
    assert "room for 2 pod(s) at once, 1 would stay Pending" in found[0]["message"]


def test_replicas_within_the_t4_pool(tmp_path, inventory):
    extra = "nodeSelector: {nvidia.com/gpu.product: Tesla-T4}\n"
    found = check(tmp_path, deployment("t4", extra=extra, replicas=2), inventory(main_cluster()))
    assert found == []


def test_pods_pack_whole_onto_nodes(tmp_path, inventory):
    # 4 A100 nodes x 8 GPUs = 32, but pods of 3 GPUs fit two per node: 8 pods, not 10.
    extra = "nodeSelector: {nvidia.com/gpu.family: ampere}\n" + TOLERATE_GPU
    found = check(
        tmp_path,
        deployment("pack", "nvidia.com/gpu: 3", extra, replicas=9),
        inventory(main_cluster()),
    )
    assert messages(found, "GPU211") == [
        "Deployment ml/pack runs 9 pods of 3 nvidia.com/gpu = 27 nvidia.com/gpu, but the 4 "
        "node(s) that can take them (gpu-a100-1, gpu-a100-2, gpu-a100-3 and 1 more) have 32 "
        "nvidia.com/gpu allocatable: room for 8 pod(s) at once, 1 would stay Pending with "
        '"Insufficient nvidia.com/gpu"; this is capacity, not free space: GPUs already held by '
        "running pods are not counted (pass --pods to subtract them)"
    ]


def test_job_parallelism_counts(tmp_path, inventory):
    manifest = """
    apiVersion: batch/v1
    kind: Job
    metadata: {name: sweep}
    spec:
      parallelism: 3
      template:
        spec:
          restartPolicy: Never
          nodeSelector: {nvidia.com/gpu.family: hopper}
          tolerations: [{key: nvidia.com/gpu, operator: Exists}]
          containers:
            - name: main
              image: nvcr.io/nvidia/pytorch:24.05-py3
              resources: {limits: {nvidia.com/gpu: 4}}
    """
    found = check(tmp_path, manifest, inventory(main_cluster()))
    # gpu-h100-1 is cordoned, gpu-mig-1 has no full GPUs: only gpu-h100-2 (8) takes them.
    assert where(found) == [("GPU211", 5, 3)]
    assert "the 1 node(s) that can take them (gpu-h100-2)" in found[0]["message"]


def test_training_roles_add_up(tmp_path, inventory):
    manifest = """
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: llama}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              nodeSelector: {nvidia.com/gpu.family: ampere}
              tolerations: [{key: nvidia.com/gpu, operator: Exists}]
              containers:
                - name: pytorch
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources: {limits: {nvidia.com/gpu: 8}}
        Worker:
          replicas: 4
          template:
            spec:
              nodeSelector: {nvidia.com/gpu.family: ampere}
              tolerations: [{key: nvidia.com/gpu, operator: Exists}]
              containers:
                - name: pytorch
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources: {limits: {nvidia.com/gpu: 8}}
    """
    found = check(tmp_path, manifest, inventory(main_cluster()))
    assert where(found) == [("GPU211", 7, 7)]
    assert messages(found, "GPU211") == [
        "PyTorchJob llama needs 40 nvidia.com/gpu across its roles (Master 1 x 8, Worker 4 x 8), "
        "but the 4 node(s) that can take them (gpu-a100-1, gpu-a100-2, gpu-a100-3 and 1 more) "
        "have 32 nvidia.com/gpu allocatable; this is capacity, not free space: GPUs already held "
        "by running pods are not counted (pass --pods to subtract them)"
    ]


def test_a_role_no_node_takes_is_not_counted_as_demand(tmp_path, inventory):
    manifest = """
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: llama}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              tolerations: [{key: nvidia.com/gpu, operator: Exists}]
              containers:
                - name: pytorch
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources: {limits: {nvidia.com/gpu: 16}}
        Worker:
          replicas: 4
          template:
            spec:
              nodeSelector: {nvidia.com/gpu.family: ampere}
              tolerations: [{key: nvidia.com/gpu, operator: Exists}]
              containers:
                - name: pytorch
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources: {limits: {nvidia.com/gpu: 8}}
    """
    found = check(tmp_path, manifest, inventory(main_cluster()))
    # The Master fits nowhere (GPU210); the 4 Workers fill the 4 A100 nodes exactly.
    assert where(found) == [("GPU210", 14, 36)]


def test_daemonset_is_never_capacity_short(tmp_path, inventory):
    manifest = """
    apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: burn}
    spec:
      selector: {matchLabels: {app: burn}}
      template:
        metadata: {labels: {app: burn}}
        spec:
          nodeSelector: {nvidia.com/gpu.product: Tesla-T4}
          containers:
            - name: main
              image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
              resources: {limits: {nvidia.com/gpu: 1}}
    """
    assert check(tmp_path, manifest, inventory(main_cluster())) == []


# --- --pods: what running pods already hold -----------------------------------------------------


def running_pod(name: str, node_name: str, gpus: int, phase: str = "Running") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "team-a"},
        "spec": {
            "nodeName": node_name,
            "containers": [
                {"name": "main", "image": "x", "resources": {"limits": {"nvidia.com/gpu": gpus}}}
            ],
        },
        "status": {"phase": phase},
    }


def test_pods_dump_subtracts_held_gpus(tmp_path, inventory):
    pods = tmp_path / "pods.yaml"
    pods.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "List",
                "items": [
                    running_pod("a", "gpu-t4-1", 1),
                    running_pod("done", "gpu-t4-2", 1, phase="Succeeded"),
                ],
            }
        )
    )
    extra = "nodeSelector: {nvidia.com/gpu.product: Tesla-T4}\n"
    found = check(
        tmp_path,
        deployment("t4", extra=extra, replicas=2),
        inventory(main_cluster()),
        "--pods",
        str(pods),
    )
    assert messages(found, "GPU211") == [
        "Deployment ml/t4 runs 2 pods of 1 nvidia.com/gpu = 2 nvidia.com/gpu, but the 1 node(s) "
        "that can take them (gpu-t4-2) have 1 nvidia.com/gpu allocatable: room for 1 pod(s) at "
        'once, 1 would stay Pending with "Insufficient nvidia.com/gpu"; GPUs held by the running '
        "pods of --pods are subtracted"
    ]


def test_pods_dump_can_make_a_pod_unschedulable(tmp_path, inventory):
    pods = tmp_path / "pods.yaml"
    pods.write_text(json.dumps(running_pod("a", "gpu-t4-1", 1)))
    nodes = [node("gpu-t4-1", T4, (), {"nvidia.com/gpu": "1"})]
    found = check(tmp_path, deployment("t4"), inventory(nodes), "--pods", str(pods), "-v")
    assert '"0/1 nodes are available: 1 Insufficient nvidia.com/gpu."' in found[0]["message"]
    assert found[0]["message"].endswith(
        "gpu-t4-1: NodeResourcesFit: nvidia.com/gpu: the pod needs 1, the node has 1 allocatable, "
        "1 in use"
    )


# --- inputs: List or documents, folder, Nodes among the manifests, bad --cluster ----------------


def test_separate_documents_in_a_folder(tmp_path):
    folder = tmp_path / "nodes"
    folder.mkdir()
    for obj in main_cluster():
        (folder / f"{obj['metadata']['name']}.yaml").write_text(json.dumps(obj))
    found = check(tmp_path, deployment("big", "nvidia.com/gpu: 16", TOLERATE_GPU), str(folder))
    assert "0/12 nodes are available" in found[0]["message"]


def test_nodes_among_the_linted_files_count(tmp_path):
    manifest = "\n---\n".join(json.dumps(n) for n in after_t4_swap())
    path = tmp_path / "all.yaml"
    path.write_text(manifest + "\n---\n" + deployment("embed", extra=STALE))
    found = findings_json(str(path), "--select", "GPU210")["findings"]
    assert [f["code"] for f in found] == ["GPU210"]
    assert "0/5 nodes are available" in found[0]["message"]


def test_without_nodes_nothing_is_decided(tmp_path):
    path = tmp_path / "app.yaml"
    path.write_text(deployment("big", "nvidia.com/gpu: 16"))
    assert findings_json(str(path), "--select", "GPU210,GPU211")["findings"] == []


def test_node_rules_run_on_the_inventory(tmp_path, inventory):
    # The untainted T4 pool (GPU208) and a hand-labelled A100 whose memory label still
    # says T4 (GPU205) are reported in the inventory file itself.
    stale = {**A100, "nvidia.com/gpu.memory": "15360"}
    extra_node = node("gpu-a100-9", stale, [GPU_TAINT], {"nvidia.com/gpu": "8"})
    nodes = inventory(main_cluster() + [extra_node])
    path = tmp_path / "app.yaml"
    path.write_text(deployment("ok"))
    found = findings_json(str(path), "--cluster", nodes, "--select", "GPU205,GPU208")["findings"]
    assert sorted((f["code"], f["path"], f["resource"]["name"]) for f in found) == [
        ("GPU205", nodes, "gpu-a100-9"),
        ("GPU208", nodes, "gpu-t4-1"),
        ("GPU208", nodes, "gpu-t4-2"),
    ]


def test_inventory_files_are_linted_too(tmp_path, inventory):
    path = tmp_path / "app.yaml"
    path.write_text(deployment("ok", "nvidia.com/gpu: 1"))
    report = findings_json(str(path), "--cluster", inventory(main_cluster()))
    assert report["summary"]["files"] == 2


def test_cluster_file_without_nodes_is_an_input_error(tmp_path):
    path = tmp_path / "app.yaml"
    path.write_text(deployment("ok"))
    result = run_cli("check", str(path), "--cluster", str(path))
    assert result.exit_code == 2
    assert "no Node objects in this --cluster file" in result.output


def test_broken_cluster_file_is_reported_once(tmp_path):
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text("apiVersion: v1\nkind: List\nitems: [\n")
    path = tmp_path / "app.yaml"
    path.write_text(deployment("ok"))
    report = findings_json(str(path), "--cluster", str(nodes))
    assert [e["path"] for e in report["errors"]] == [str(nodes)]


def test_same_verdicts_with_worker_processes(tmp_path):
    # Facts cross process boundaries: Nodes and workloads in different files and workers.
    folder = tmp_path / "nodes"
    folder.mkdir()
    for obj in after_t4_swap():
        (folder / f"{obj['metadata']['name']}.yaml").write_text(json.dumps(obj))
    app = tmp_path / "app.yaml"
    app.write_text(deployment("embed", extra=STALE))
    args = (str(app), "--cluster", str(folder), "--select", "GPU210")
    one = findings_json(*args, "--jobs", "1")["findings"]
    many = findings_json(*args, "--jobs", "3")["findings"]
    assert where(one) == where(many) == [("GPU210", 17, 9)]
    assert one[0]["message"] == many[0]["message"]


KUBECTL_NODES = """
apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      node.alpha.kubernetes.io/ttl: "0"
    creationTimestamp: "2026-10-02T08:14:51Z"
    labels:
      kubernetes.io/hostname: gpu-h100-mig-0
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      nvidia.com/mig.strategy: mixed
      nvidia.com/mig-1g.10gb.count: "2"
      nvidia.com/mig-3g.40gb.count: "1"
    name: gpu-h100-mig-0
  spec:
    podCIDR: 10.244.3.0/24
    taints:
    - effect: NoSchedule
      key: nvidia.com/gpu
      value: present
  status:
    allocatable:
      cpu: 191500m
      memory: 2113425068Ki
      nvidia.com/gpu: "0"
      nvidia.com/mig-1g.10gb: "2"
      nvidia.com/mig-3g.40gb: "1"
      pods: "110"
    capacity:
      cpu: "192"
      nvidia.com/mig-1g.10gb: "2"
      nvidia.com/mig-3g.40gb: "1"
    conditions:
    - type: Ready
      status: "True"
- apiVersion: v1
  kind: Node
  metadata:
    labels:
      kubernetes.io/hostname: cpu-0
    name: cpu-0
  spec:
    unschedulable: true
    taints:
    - effect: NoSchedule
      key: node.kubernetes.io/unschedulable
      timeAdded: "2026-10-03T10:00:00Z"
  status:
    allocatable:
      cpu: 15890m
      pods: "110"
kind: List
metadata:
  resourceVersion: ""
"""


def test_kubectl_yaml_output_with_mig_and_a_cordoned_node(tmp_path):
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(KUBECTL_NODES.lstrip("\n"))
    found = check(
        tmp_path, deployment("mig", "nvidia.com/mig-3g.40gb: 2", tolerate=True), str(nodes), "-v"
    )
    assert messages(found, "GPU210") == [
        "no node can take this pod: the pod needs 2 nvidia.com/mig-3g.40gb; the scheduler would "
        'report "0/2 nodes are available: 1 Insufficient nvidia.com/mig-3g.40gb, 1 node(s) were '
        'unschedulable."\n'
        "  cpu-0: NodeUnschedulable: cordoned (spec.unschedulable: true)\n"
        "  gpu-h100-mig-0: NodeResourcesFit: nvidia.com/mig-3g.40gb: the pod needs 2, the node "
        "has 1 allocatable"
    ]


# --- GPU209 gpu-node-capacity-missing ----------------------------------------------------------

_GPU209_NODES = """\
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Node
    metadata:
      name: no-plugin
      labels:
        nvidia.com/gpu.present: "true"
        nvidia.com/gpu.count: "8"
    status:
      capacity: {cpu: "96"}
      allocatable: {cpu: "96"}
  - apiVersion: v1
    kind: Node
    metadata:
      name: unhealthy
      labels: {nvidia.com/gpu.count: "8"}
    status:
      allocatable: {nvidia.com/gpu: "6"}
  - apiVersion: v1
    kind: Node
    metadata:
      name: all-unhealthy
      labels: {nvidia.com/gpu.present: "true"}
    status:
      allocatable: {nvidia.com/gpu: "0"}
  - apiVersion: v1
    kind: Node
    metadata:
      name: healthy
      labels: {nvidia.com/gpu.count: "8"}
    status:
      allocatable: {nvidia.com/gpu: "8"}
  - apiVersion: v1
    kind: Node
    metadata:
      name: mig-mixed
      labels: {nvidia.com/gpu.count: "8", nvidia.com/mig.strategy: mixed}
    status:
      allocatable: {nvidia.com/gpu: "2", nvidia.com/mig-1g.10gb: "42"}
  - apiVersion: v1
    kind: Node
    metadata:
      name: time-sliced-renamed
      labels: {nvidia.com/gpu.count: "8", nvidia.com/gpu.replicas: "4"}
    status:
      allocatable: {nvidia.com/gpu.shared: "32"}
  - apiVersion: v1
    kind: Node
    metadata:
      name: hand-written
      labels: {nvidia.com/gpu.count: "8"}
"""


def test_gpu209_nodes_with_gpu_labels_but_missing_or_fewer_gpus(tmp_path):
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(_GPU209_NODES)
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    found = findings_json(str(pod), "--cluster", str(nodes), "--select", "GPU209")["findings"]
    assert where(found) == [("GPU209", 13, 7), ("GPU209", 20, 37), ("GPU209", 27, 37)]
    assert "device plugin is not running" in found[0]["message"]
    assert "advertises 6 of the 8 GPUs" in found[1]["message"]
    assert "advertises 0 nvidia.com/gpu although labelled" in found[2]["message"]
