"""GPU semantics: quantities, GPU resource names, effective pod requests, the workload table."""

from __future__ import annotations

import textwrap
from fractions import Fraction

import pytest

from gpulint.core.sources import Source
from gpulint.model.gpu import infra
from gpulint.model.resource import release, resources_of
from gpulint.model.serving.parallelism import command_line
from gpulint.model.values import gpu_resources as gpu
from gpulint.model.values.quantity import QuantityError, parse_quantity
from gpulint.model.workloads import probe
from gpulint.yaml.parse import parse
from tests.helpers import findings_json, where


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (1, Fraction(1)),
        ("2", Fraction(2)),
        ("500m", Fraction(1, 2)),
        (1.5, Fraction(3, 2)),
        ("1.5", Fraction(3, 2)),
        ("1e3", Fraction(1000)),
        ("1E-2", Fraction(1, 100)),
        (1000.0, Fraction(1000)),
        ("1Ki", Fraction(1024)),
        ("64Gi", Fraction(64 * 2**30)),
        ("1k", Fraction(1000)),
        ("+4", Fraction(4)),
        ("-1", Fraction(-1)),
        (".5", Fraction(1, 2)),
    ],
)
def test_quantities_parse_to_exact_values(raw, value):
    assert parse_quantity(raw) == value


@pytest.mark.parametrize(
    "raw", [None, "", "two", "1.2.3", "1 Gi", True, [1], float("nan"), "1e999"]
)
def test_garbage_is_not_a_quantity(raw):
    with pytest.raises(QuantityError):
        parse_quantity(raw)


@pytest.mark.parametrize(
    ("name", "is_gpu"),
    [
        ("nvidia.com/gpu", True),
        ("nvidia.com/gpu.shared", True),
        ("nvidia.com/mig-1g.10gb", True),
        ("nvidia.com/mig-1g.10gb.me", True),
        ("amd.com/gpu", True),
        ("gpu.intel.com/i915", True),
        ("gpu.intel.com/xe", True),
        ("nvidia.com/gpumem", False),
        ("cpu", False),
        ("example.com/gpu", False),
    ],
)
def test_gpu_resource_names(name, is_gpu):
    assert gpu.is_gpu_resource(name) is is_gpu


def _pod(spec: str):
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + textwrap.indent(
        textwrap.dedent(spec), "  "
    )
    documents, errors = parse(Source("p.yaml", text))
    assert errors == []
    (resource,) = resources_of(documents[0])
    (pod,) = resource.pod_specs
    return pod


def test_effective_request_sums_containers_and_sidecars_and_takes_the_init_peak():
    pod = _pod(
        """
        initContainers:
          - name: warmup            # classic init: 3 GPUs while it runs
            resources: {limits: {nvidia.com/gpu: 3}}
          - name: sidecar           # restartable: held for the pod's life
            restartPolicy: Always
            resources: {limits: {nvidia.com/gpu: 1}}
          - name: late-init         # 2 GPUs plus the earlier sidecar's 1
            resources: {limits: {nvidia.com/gpu: 2}}
        containers:
          - name: a
            resources: {limits: {nvidia.com/gpu: 1}}
          - name: b
            resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
        """
    )
    # steady state: 1 + 1 + sidecar 1 = 3; init peaks: 3, 2 + 1 = 3  -> 3
    assert pod.effective_gpus == {"nvidia.com/gpu": 3}
    regular = [c.data for c in pod.containers if not c.is_init]
    assert gpu.effective_request(regular, [c.data for c in pod.init_containers()]) == {
        "nvidia.com/gpu": 3
    }
    sidecars = [c.name for c in pod.containers if c.is_sidecar]
    assert sidecars == ["sidecar"]


def test_init_container_can_dominate_the_effective_request():
    pod = _pod(
        """
        initContainers:
          - name: big
            resources: {limits: {nvidia.com/gpu: 4}}
        containers:
          - name: a
            resources: {limits: {nvidia.com/gpu: 1}}
        """
    )
    assert pod.effective_gpus == {"nvidia.com/gpu": 4}


def test_invalid_quantities_count_as_nothing():
    pod = _pod(
        """
        containers:
          - name: a
            resources: {limits: {nvidia.com/gpu: 0.5, nvidia.com/mig-1g.10gb: 2}}
        """
    )
    assert pod.effective_gpus == {"nvidia.com/mig-1g.10gb": 2}


def test_containers_are_iterated_with_their_paths():
    pod = _pod(
        """
        initContainers: [{name: i}]
        containers: [{name: c}]
        ephemeralContainers: [{name: e}]
        """
    )
    assert [(c.section, c.name, c.path) for c in pod.containers] == [
        ("initContainer", "i", ("spec", "initContainers", 0)),
        ("container", "c", ("spec", "containers", 0)),
        ("ephemeralContainer", "e", ("spec", "ephemeralContainers", 0)),
    ]


@pytest.mark.parametrize(
    ("doc", "paths", "replicas"),
    [
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 3\n"
            "  template: {spec: {containers: [{name: c}]}}\n",
            [("spec", "template", "spec")],
            [3],
        ),
        (
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: d}\nspec:\n  jobTemplate:\n"
            "    spec: {parallelism: 2, template: {spec: {containers: [{name: c}]}}}\n",
            [("spec", "jobTemplate", "spec", "template", "spec")],
            [2],
        ),
        (
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n"
            "  template: {spec: {containers: [{name: c}]}}\n",
            [("spec", "template", "spec")],
            [None],
        ),
        (
            "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: d}\n"
            "template: {spec: {containers: [{name: c}]}}\n",
            [("template", "spec")],
            [None],
        ),
    ],
)
def test_workload_table(doc, paths, replicas):
    documents, _ = parse(Source("w.yaml", doc))
    (resource,) = resources_of(documents[0])
    assert [p.path for p in resource.pod_specs] == paths
    assert [p.replicas for p in resource.pod_specs] == replicas


def test_kinds_the_table_does_not_list_have_no_pod_specs_of_their_own():
    documents, _ = parse(Source("w.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"))
    (resource,) = resources_of(documents[0])
    assert resource.pod_specs == []


_CALLS: list[str] = []


def _count_containers(resource, label: str) -> int:
    _CALLS.append(label)
    return len(resource.containers)


def test_shared_facts_are_computed_once_per_resource_and_released_with_it():
    from gpulint.model.resource import release, shared

    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
    text += "spec: {containers: [{name: a}, {name: b}]}\n"
    documents, _ = parse(Source("p.yaml", text))
    (resource,) = resources_of(documents[0])
    assert next(resources_of(documents[0])) is resource  # the document's views are shared
    _CALLS.clear()
    assert [shared(resource, _count_containers, "first") for _ in range(3)] == [2, 2, 2]
    assert _CALLS == ["first"]
    assert [c.name for c in resource.containers] == ["a", "b"]  # a property, like a pod spec's
    release(documents[0])
    assert resource.memo == {} and documents[0].memo == {}
    assert "pod_specs" not in resource.__dict__


GPU_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  containers:
    - name: main
      image: nvcr.io/nvidia/pytorch:24.05-py3
      command: [nvidia-smi]
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_pod_facts_rules_share_are_judged_once_a_pod_and_released_with_it(tmp_path, monkeypatch):
    judged: list[str] = []
    for module, name in ((infra, "_infra_pod"), (probe, "_probe_pod")):
        original = getattr(module, name)

        def counted(*args, _original=original, _name=name):
            judged.append(_name)
            return _original(*args)

        monkeypatch.setattr(module, name, counted)
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    found = findings_json(str(tmp_path / "pod.yaml"))
    assert where(found["findings"]) == [] and found["errors"] == []
    assert sorted(judged) == ["_infra_pod", "_probe_pod"]  # several rules ask each
    documents, _ = parse(Source("pod.yaml", GPU_POD))
    (resource,) = resources_of(documents[0])
    (pod,) = resource.pod_specs
    assert probe.is_probe_pod(pod, resource) and pod.memo
    (container,) = pod.containers
    assert command_line(container) is command_line(container)  # parsed once a container
    release(documents[0])
    assert pod.memo == {} and container.memo == {}  # its entries point back at their owner
