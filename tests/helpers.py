"""Shared test helpers: lint text through the real engine, run the real CLI, shared inputs.

Test modules import from here (and from the support modules ``tests.kube_valid`` and
``tests.helm_binary``), never from ``conftest.py`` or from one another
(``tests/project/test_test_layout.py`` checks it). Pytest fixtures live in ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hypothesis import HealthCheck, settings

from gpulint.cli.main import cli
from gpulint.rules.registry import default_registry

# The project checkout and the data files of the tests.
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"

# The real-world corpus beside the project (../shared/corpus); its tests skip where it is absent.
_BESIDE = ROOT.parent / "shared" / "corpus"
CORPUS = Path(os.environ.get("GPULINT_CORPUS", _BESIDE))


@dataclass(frozen=True)
class Result:
    """What one in-process ``gpulint`` run wrote, and its exit code."""

    exit_code: int
    stdout: str
    stderr: str
    output: str  # both streams, in the order they were written (as a terminal shows them)


class _Copying(io.BytesIO):
    """A stream's bytes, also copied into the shared ``output`` (click's CliRunner did so)."""

    def __init__(self, output: io.BytesIO) -> None:
        super().__init__()
        self.output = output

    def write(self, data: bytes) -> int:
        self.output.write(data)
        return super().write(data)


def run_cli(*args: str, input: str | None = None, env: dict | None = None) -> Result:
    """Invoke ``gpulint`` in-process: ``input`` is standard input, ``env`` patches
    ``os.environ`` for the call only (a None value removes the variable). Exceptions other
    than SystemExit propagate."""
    output = io.BytesIO()
    out, err = _Copying(output), _Copying(output)
    saved = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = {key: os.environ.get(key) for key in env or {}}
    # Kept in locals until read: a wrapper that is collected closes its buffer.
    streams = (
        io.TextIOWrapper(io.BytesIO((input or "").encode()), encoding="utf-8"),
        # write_through: each write reaches ``output`` at once, so the streams interleave
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True),
    )
    sys.stdin, sys.stdout, sys.stderr = streams
    code: int = 0
    try:
        _set_environment(env or {})
        try:
            cli(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        _set_environment(saved_env)

    def text(stream: io.BytesIO) -> str:
        return stream.getvalue().decode("utf-8", "replace").replace("\r\n", "\n")

    return Result(code, text(out), text(err), text(output))


def _set_environment(values: dict) -> None:
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def findings_json(*args: str, input: str | None = None) -> dict:
    result = run_cli("check", "--format", "json", *args, input=input)
    return json.loads(result.stdout)  # stderr carries --verbose notes


def lint(tmp_path: Path, text: str, *args: str, name: str = "manifest.yaml") -> list[dict]:
    """Findings (JSON dicts) for one manifest written to ``tmp_path``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return findings_json(str(path), *args)["findings"]


# A cluster profile with tainted GPU nodes of two models, for tests of the rules that
# report only what the profile establishes (GPU201, GPU202, GPU203, GPU207).
KNOWN_CLUSTER = (
    "cluster:\n  gpu-taints: [nvidia.com/gpu]\n  gpu-models: [NVIDIA-A100-SXM4-80GB, NVIDIA-L4]\n"
)


def lint_with(
    tmp_path: Path, config_text: str, text: str, *args: str, name: str = "manifest.yaml"
) -> list[dict]:
    """:func:`lint` with ``config_text`` as the config file (``--config``)."""
    config = tmp_path / "test.gpulint.yaml"
    config.write_text(config_text)
    return lint(tmp_path, text, *args, "--config", str(config), name=name)


def lint_known(tmp_path: Path, text: str, *args: str, name: str = "manifest.yaml") -> list[dict]:
    """:func:`lint` with :data:`KNOWN_CLUSTER` as the config file."""
    return lint_with(tmp_path, KNOWN_CLUSTER, text, *args, name=name)


# GPU106 with its option `batch: true`: batch runs (Jobs, training jobs, bare Pods) are
# reported too, for tests that read through GPU106 whether a pod is a probe or a benchmark.
BATCH_TOO = "rules:\n  GPU106:\n    batch: true\n"
# GPU106 with its option `burstable: true`: Burstable GPU pods are reported as notes.
BURSTABLE_TOO = "rules:\n  GPU106:\n    burstable: true\n"


def lint_batch(tmp_path: Path, text: str, *args: str, name: str = "manifest.yaml") -> list[dict]:
    """:func:`lint` with :data:`BATCH_TOO` as the config file."""
    return lint_with(tmp_path, BATCH_TOO, text, *args, name=name)


def where(findings: list[dict], code: str | None = None) -> list[tuple[str, int, int]]:
    """(code, line, column) of findings, optionally of one code."""
    return [(f["code"], f["line"], f["column"]) for f in findings if code in (None, f["code"])]


def sarif_schema() -> dict:
    # The official OASIS SARIF 2.1.0 schema (errata 01), as published at its "id":
    # https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json
    return json.loads((DATA / "sarif-2.1.0.json").read_text())


# --- the built-in rules and their documented examples ---------------------------------------

RULES = list(default_registry())


def example_name(rule) -> str:
    # A rule may read a file name (e.g. values.yaml); the docs say so in a front comment.
    failing, _ = rule.examples()
    first = failing.splitlines()[0] if failing else ""
    if first.startswith("# file: "):
        return first[len("# file: ") :].strip()
    return "example.yaml"


# --- manifests several subjects share ----------------------------------------------------------

GPU_POD = """
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
{scheduling}
  containers:
    - name: cuda
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        limits:
          {resource}: 1
"""


def gpu_pod(scheduling: str = "", resource: str = "nvidia.com/gpu") -> str:
    """A one-GPU Pod with ``scheduling`` (nodeSelector, affinity, ...) under its spec."""
    return GPU_POD.format(scheduling=scheduling or "  restartPolicy: Never", resource=resource)


CPU_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  nodeSelector:
    {key}: {value}
  containers:
    - name: app
      image: busybox:1.36
"""

# The Helm chart's template of the `chart` fixture (conftest.py): GPU101 on the request.
HELM_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-train
spec:
  template:
    spec:
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: trainer
          image: "nvcr.io/nvidia/pytorch:{{ .Values.tag }}"
          resources:
            requests:
              nvidia.com/gpu: {{ .Values.gpus }}
"""

# Hypothesis settings of the property tests: a fixed, derandomized budget.
BUDGET = settings(
    max_examples=int(os.environ.get("GPULINT_HYPOTHESIS_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def related(finding: dict) -> list[tuple[str, int, int, str]]:
    """(file name, line, column, message) of each related location of a JSON finding."""
    return [
        (r["path"].rsplit("/", 1)[-1], r["line"], r["column"], r["message"])
        for r in finding["related"]
    ]


def write_files(tmp_path: Path, **files: str) -> list[str]:
    """Write ``name=text`` pairs to ``tmp_path/name.yaml`` (dedented); returns the paths."""
    paths = []
    for name, text in files.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(textwrap.dedent(text))
        paths.append(str(path))
    return paths


def put_files(root: Path, files: dict[str, str]) -> None:
    """Write each ``relative/path: text`` under ``root`` (folders made, text dedented)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def placed(report: dict) -> list[tuple[str, str, int, int]]:
    """(code, path, line, column) of each finding of a JSON report."""
    return [(f["code"], f["path"], f["line"], f["column"]) for f in report["findings"]]


def held_back(report: dict) -> dict[str, list[str]]:
    """The codes a JSON report held back, each with the cluster facts it needs."""
    return {h["code"]: h["needs"] for h in report.get("heldBack", [])}


# --- the cluster profile: a GPU pod, GPU Nodes and a Karpenter NodePool ------------------------

TRAINER_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
{scheduling}
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
          cpu: "4"
          memory: 16Gi
"""


def trainer_pod(scheduling: str = "  restartPolicy: Never") -> str:
    """A Guaranteed one-GPU Pod (the limit at 12:11) with ``scheduling`` under its spec."""
    return TRAINER_POD.format(scheduling=scheduling)


def gpu_node(name: str, product: str, taint: bool = True, gpus: int = 8) -> str:
    """A GPU Node of ``product`` with ``gpus`` allocatable, tainted nvidia.com/gpu or not."""
    taints = "  taints:\n    - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n"
    return (
        f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n"
        f"    nvidia.com/gpu.product: {product}\nspec:\n{taints if taint else '  {}'}\n"
        f"status:\n  allocatable:\n    nvidia.com/gpu: '{gpus}'\n"
    )


# A NodePool establishes the GPU taint (and that the models are several: g5 and g6).
GPU_NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6]}
      taints:
        - {key: nvidia.com/gpu, effect: NoSchedule}
"""


# --- NVIDIA device plugin sharing and MIG strategies --------------------------------------------


def gpu_workload(
    kind: str, resources: str, extra: str = "", name: str = "w", after: str = ""
) -> str:
    """A workload whose first GPU resource line is line 14, column 13; ``after`` follows at
    the pod spec's level (a node selector)."""
    api = "batch/v1" if kind == "Job" else "apps/v1"
    return f"""\
apiVersion: {api}
kind: {kind}
metadata:
  name: {name}
spec:
  template:
    spec:
      containers:
      - name: c
        image: registry.example.com/app:1.0
        {extra or "args: []"}
        resources:
          limits:
{resources}{after}"""


# --- suppressions (the filter stage and GPU001-003) --------------------------------------------

# GPU101 at 12:11 (the request without a limit); `check` (conftest.py) lints it as pod.yaml.
REQUEST_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
  annotations: {}
spec:
  containers:
    - name: trainer
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1
"""


def annotated(annotations: str) -> str:
    """:data:`REQUEST_POD` with these annotation lines."""
    return REQUEST_POD.replace("  annotations: {}\n", f"  annotations:\n{annotations}")


def suppression_state(report: dict) -> list[tuple]:
    """(code, line, column, suppressed) of every finding."""
    return [(f["code"], f["line"], f["column"], f["suppressed"]) for f in report["findings"]]


# A Pod with a GPU request whose limits are LIMIT: replace it with what a test needs.
MALFORMED_LIMITS = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests: {nvidia.com/gpu: 1}
        limits: LIMIT
"""


@dataclass
class LoopbackServer:
    """What a local HTTP server on 127.0.0.1 received: every connection, HTTP or not."""

    port: int
    connections: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.contextmanager
def loopback_server(body: bytes = b"{}") -> Iterator[LoopbackServer]:
    """A server a render would reach despite the proxies (loopback ignores them); it
    answers ``body`` to anything, so a fetch would succeed, and records it."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        do_HEAD = do_POST = do_GET  # noqa: N815

        def log_message(self, *args) -> None:
            pass

    class Recording(ThreadingHTTPServer):
        def verify_request(self, request, client_address) -> bool:
            seen.connections.append(str(client_address))
            return True

    httpd = Recording(("127.0.0.1", 0), Handler)
    seen = LoopbackServer(httpd.server_address[1])
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        httpd.shutdown()
        httpd.server_close()
