"""Property-based tests: gpulint never raises, and its output is deterministic.

Hypothesis generates byte strings, mutated manifests and whole manifests (pods,
Deployments, Jobs, PyTorchJobs with arbitrary GPU quantities and keys). For any
of them gpulint ends with exit code 0, 1 or 2, never an internal error, and the
same files give the same output in any order. The budget is fixed
(GPULINT_HYPOTHESIS_EXAMPLES, default 25 a test) and derandomized, so CI time
stays small and a failure reproduces.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import BUDGET, run_cli

BASE = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests: {nvidia.com/gpu: 2, cpu: "8"}
            limits: {nvidia.com/gpu: 2, cpu: "8"}
"""


def lint_files(contents: list[str | bytes]) -> tuple[int, dict]:
    """Write the contents as files and lint them all; return (exit code, JSON report)."""
    with tempfile.TemporaryDirectory() as work:
        paths = []
        for i, content in enumerate(contents):
            path = Path(work) / f"f{i}.yaml"
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
            paths.append(str(path))
        result = run_cli("check", "--format", "json", "--jobs", "1", *paths)
        return result.exit_code, _comparable(json.loads(result.output))


def _comparable(report: dict) -> dict:
    """The report with what depends on the temporary folder's name taken out."""
    for item in report["findings"] + report["errors"]:
        item["path"] = os.path.basename(item["path"])
    for item in report["findings"]:
        item.pop("fingerprint")  # it hashes the path as given
    return report


def assert_no_crash(code: int, report: dict) -> None:
    assert code in (0, 1, 2)
    internal = [e for e in report["errors"] if "internal error" in e["message"]]
    assert internal == []
    for error in report["errors"]:
        assert error["line"] >= 1 and error["column"] >= 1 and error["message"]


# --- Strategies ---------------------------------------------------------------------------------

quantities = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["1", "2", "0.5", "500m", "1e3", "1Ki", "", "two", "-1", "1.5", "8"]),
    st.text(max_size=12),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
gpu_names = st.sampled_from(
    [
        "nvidia.com/gpu",
        "nvidia.com/gpu.shared",
        "nvidia.com/mig-1g.10gb",
        "nvidia.com/mig-3g.40gb",
        "amd.com/gpu",
        "gpu.intel.com/i915",
        "cpu",
        "memory",
    ]
)
resources = st.fixed_dictionaries(
    {},
    optional={
        "requests": st.dictionaries(gpu_names, quantities, max_size=3),
        "limits": st.dictionaries(gpu_names, quantities, max_size=3),
    },
)
scalars = st.one_of(st.text(max_size=20), st.integers(), st.booleans(), st.none(), st.floats())
images = st.sampled_from(
    ["nvcr.io/nvidia/pytorch:24.05-py3", "busybox", "", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"]
)
containers = st.fixed_dictionaries(
    {"name": st.text(max_size=10), "image": images},
    optional={
        "resources": st.one_of(resources, scalars),
        "env": st.lists(
            st.fixed_dictionaries({"name": st.text(max_size=20), "value": scalars}), max_size=3
        ),
        "restartPolicy": st.sampled_from(["Always", "Never", 1]),
        "command": st.lists(st.text(max_size=10), max_size=3),
    },
)
pod_specs = st.fixed_dictionaries(
    {"containers": st.one_of(st.lists(containers, max_size=3), scalars)},
    optional={
        "initContainers": st.lists(containers, max_size=2),
        "nodeSelector": st.dictionaries(st.text(max_size=30), scalars, max_size=3),
        "tolerations": st.lists(st.dictionaries(st.text(max_size=10), scalars, max_size=3)),
        "affinity": st.dictionaries(st.text(max_size=10), scalars, max_size=2),
        "runtimeClassName": scalars,
    },
)


def _workload(kind: str, api: str, spec: dict, replicas: object) -> dict:
    template = {"metadata": {"labels": {"app": "x"}}, "spec": spec}
    if kind == "Pod":
        return {"apiVersion": api, "kind": kind, "metadata": {"name": "p"}, "spec": spec}
    if kind == "PyTorchJob":
        roles = {"Master": {"replicas": 1, "template": template}}
        roles["Worker"] = {"replicas": replicas, "template": template}
        return {
            "apiVersion": api,
            "kind": kind,
            "metadata": {"name": "p"},
            "spec": {"pytorchReplicaSpecs": roles},
        }
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": "w", "namespace": "ml"},
        "spec": {"replicas": replicas, "parallelism": replicas, "template": template},
    }


manifests = st.builds(
    _workload,
    st.sampled_from(
        [
            ("Pod", "v1"),
            ("Deployment", "apps/v1"),
            ("Job", "batch/v1"),
            ("StatefulSet", "apps/v1"),
            ("DaemonSet", "apps/v1"),
            ("PyTorchJob", "kubeflow.org/v1"),
        ]
    ).map(lambda pair: pair[0]),
    st.just("v1"),
    pod_specs,
    st.one_of(st.integers(min_value=-3, max_value=100), scalars),
)


def _fix_api(doc: dict) -> dict:
    api = {
        "Pod": "v1",
        "Deployment": "apps/v1",
        "Job": "batch/v1",
        "StatefulSet": "apps/v1",
        "DaemonSet": "apps/v1",
        "PyTorchJob": "kubeflow.org/v1",
    }
    doc["apiVersion"] = api[doc["kind"]]
    return doc


def as_yaml(docs: list[dict]) -> str:
    # JSON is YAML; one document per `---` keeps multi-document streams in play.
    return "".join("---\n" + json.dumps(doc) + "\n" for doc in docs)


documents = st.lists(manifests.map(_fix_api), min_size=1, max_size=3).map(as_yaml)


# --- Properties -------------------------------------------------------------------------------


@BUDGET
@given(st.binary(max_size=2048))
def test_any_bytes_never_crash(data):
    assert_no_crash(*lint_files([data]))


@pytest.mark.slow
@BUDGET
@given(st.text(max_size=400))
def test_any_text_never_crashes(text):
    assert_no_crash(*lint_files([text]))


@BUDGET
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(BASE)),
            st.sampled_from(
                ["\t", ":", "- ", "{", "}", "[", "&a ", "*a", "!!python/object ", "\n", "'", '"']
                + ["<<: ", "? ", "---\n", "{{ .Values.x }}", "\x00", "\r", " ", "#", "|"]
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_manifests_never_crash(edits):
    text = BASE
    for position, insert in sorted(edits, reverse=True):
        text = text[:position] + insert + text[position:]
    assert_no_crash(*lint_files([text]))


@pytest.mark.slow
@BUDGET
@given(st.lists(documents, min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_generated_manifests_are_deterministic_in_any_order(files, rng):
    code, report = lint_files(files)
    assert_no_crash(code, report)
    # Same input, same output.
    assert lint_files(files) == (code, report)
    # Any file order: each file keeps its name, so the report must not change.
    order = list(range(len(files)))
    rng.shuffle(order)
    with tempfile.TemporaryDirectory() as work:
        for i in order:  # written (and so created) in a different order
            Path(work, f"f{i}.yaml").write_text(files[i], encoding="utf-8")
        paths = [str(Path(work, f"f{i}.yaml")) for i in order]
        result = run_cli("check", "--format", "json", "--jobs", "1", *paths)
        shuffled = _comparable(json.loads(result.output))
    assert (result.exit_code, shuffled) == (code, report)


def test_worker_processes_give_the_single_process_output(monkeypatch):
    from gpulint.engine import workers as parallel

    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)  # small input, processes anyway
    monkeypatch.setattr("gpulint.cli.main.cpu_count", lambda: 4)  # --jobs is capped at the cores
    pools = []
    real_pool = parallel._pool

    def counting_pool(*args):
        pools.append(args[0])
        return real_pool(*args)

    monkeypatch.setattr(parallel, "_pool", counting_pool)
    variants = ["2", "1", "0.5", '"500m"', "8", "16"]
    with tempfile.TemporaryDirectory() as work:
        for i in range(24):
            text = BASE.replace(
                "limits: {nvidia.com/gpu: 2", f"limits: {{nvidia.com/gpu: {variants[i % 6]}"
            )
            Path(work, f"w{i:02d}.yaml").write_text(text.replace("name: train", f"name: t{i}"))
        Path(work, "broken.yaml").write_text("kind: [\n")  # a manifest that does not parse
        single = run_cli("check", "--format", "json", "--jobs", "1", work)
        spread = run_cli("check", "--format", "json", "--jobs", "3", work)
    assert pools == [3]  # the second run really used 3 worker processes
    assert single.exit_code == spread.exit_code == 2
    assert json.loads(spread.output) == json.loads(single.output)
    assert json.loads(single.output)["findings"]
