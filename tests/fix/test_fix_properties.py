"""Property: random valid GPU manifests with injected findings, fixed, still parse, keep
every line no fix touched, validate as Kubernetes objects, and re-lint without the fixed
findings; a second --fix changes nothing.

Manifests are written as text (not dumped), with random comments, sequence indentation,
quoting, CRLF line breaks and several documents. Budget as in engine/test_properties.py.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_cli
from tests.kube_valid import problems

BUDGET = settings(
    max_examples=int(os.environ.get("GPULINT_HYPOTHESIS_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def container(draw, index: int, dash: str, indent: str) -> list[str]:
    """Lines of one container; ``indent`` is its keys' indentation."""
    name = f"c{index}"
    image = draw(st.sampled_from(["nvcr.io/nvidia/pytorch:24.05-py3", "vllm/vllm-openai:latest"]))
    quote = draw(st.sampled_from(["", "'", '"']))
    lines = [f"{dash}name: {name}", f"{indent}image: {quote}{image}{quote}"]
    if draw(st.booleans()):
        lines.append(f"{indent}imagePullPolicy: Always")  # GPU301 (fixable when pinned)
    if draw(st.booleans()):
        ref = draw(st.sampled_from(["${BASE}", "$BASE", "$(BASE)"]))  # GPU706 for the first two
        lines += [
            f"{indent}env:",
            f"{indent}- name: BASE",
            f"{indent}  value: /opt/nvidia",
            f"{indent}- name: LIB",
            f"{indent}  value: {ref}/lib64",
        ]
    gpus = draw(st.integers(min_value=1, max_value=4))
    shape = draw(st.sampled_from(["both", "request-only", "limit-only", "differ", "repeat"]))
    lines.append(f"{indent}resources:")
    if shape != "limit-only":
        lines += [f"{indent}  requests:", f"{indent}    nvidia.com/gpu: {gpus}"]  # GPU101 alone
    if shape in ("both", "limit-only", "differ", "repeat"):
        limit = gpus + 1 if shape == "differ" else gpus  # GPU102
        lines += [f"{indent}  limits:", f"{indent}    nvidia.com/gpu: {limit}"]
        if shape == "repeat":
            lines.append(f"{indent}    nvidia.com/gpu: {limit}")  # GPU010, equal values
    return lines


@st.composite
def manifest(draw, number: int) -> str:
    offset = draw(st.sampled_from([0, 2]))
    kind = draw(st.sampled_from(["Pod", "Deployment", "Job"]))
    pad = " " * offset
    if kind == "Pod":
        head = ["apiVersion: v1", "kind: Pod", "metadata:", f"  name: p{number}", "spec:"]
        base = 2
    else:
        group = "apps/v1" if kind == "Deployment" else "batch/v1"
        head = [f"apiVersion: {group}", f"kind: {kind}", "metadata:", f"  name: w{number}", "spec:"]
        if kind == "Deployment":
            head += ["  selector:", "    matchLabels: {app: w}"]
        head += ["  template:", "    metadata:", "      labels: {app: w}", "    spec:"]
        base = 6
        if kind == "Job":
            head.append("      restartPolicy: Never")
    body = [" " * base + "containers:"]
    for i in range(draw(st.integers(min_value=1, max_value=2))):
        dash = " " * base + pad + "- "
        indent = " " * (base + offset + 2)
        body += draw(container(i, dash, indent))
    lines = head + body
    commented = [
        line + (draw(st.sampled_from(["", "", "  # note", " #\ttab"])) if ":" in line else "")
        for line in lines
    ]
    return "\n".join(commented) + "\n"


@st.composite
def stream(draw) -> bytes:
    docs = [draw(manifest(i)) for i in range(draw(st.integers(min_value=1, max_value=2)))]
    text = "---\n".join(docs)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return text.replace("\n", newline).encode()


def _findings(path: Path) -> dict:
    return json.loads(run_cli("check", str(path), "--format", "json").output)


@BUDGET
@given(stream())
def test_fixed_manifests_parse_keep_their_lines_and_lose_the_fixed_findings(data):
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "m.yaml"
        path.write_bytes(data)
        before = _findings(path)
        assert before["errors"] == []
        fixable = [f for f in before["findings"] if f["fix"] and f["fix"]["applicable"]]
        old = data.decode().splitlines(keepends=True)
        # The lines a fix may rewrite or delete (by content: of two equal lines, the diff
        # below may name either).
        touched = {old[f["line"] - 1] for f in fixable}
        result = run_cli("check", str(path), "--fix", "--unsafe-fixes")
        assert "rolled back" not in result.output
        fixed = path.read_bytes()
        after = _findings(path)
        assert after["errors"] == []
        left = [f for f in after["findings"] if f["fix"] and f["fix"]["applicable"]]
        assert left == []
        count = int(result.output.split("gpulint: fixed ")[1].split()[0])
        assert count >= len(fixable)  # later passes may fix what overlapped at first
        assert len(after["findings"]) <= len(before["findings"]) - count
        new = fixed.decode().splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(None, old, new, False)
        for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
            if tag in ("replace", "delete"):
                assert set(old[i1:i2]) <= touched, old[i1:i2]
        invalid, _skipped = problems(fixed.decode())
        assert invalid == []
        run_cli("check", str(path), "--fix", "--unsafe-fixes")
        assert path.read_bytes() == fixed
