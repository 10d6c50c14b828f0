"""``gpulint.cli.report_command.run``: formats, ``--output``, exit codes and input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulint.cli.report_command import run
from tests.helpers import DATA

NODES = str(DATA / "allocation" / "nodes.yaml")
PODS = str(DATA / "allocation" / "pods.yaml")


def test_text_to_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert run((NODES,), PODS, (), "text", None) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "GPU nodes (5)"
    assert any(line.split()[:6] == ["h100-1", "NVIDIA-H100-80GB-HBM3", "8", "0", "8", "no"]
               for line in lines)  # fmt: skip
    assert "nvidia.com/mig-1g.5gb 2/4 held" in out
    assert "nvidia.com/gpu.shared 3/8 held; time-slicing, 4 per GPU" in out
    assert any(line.split()[:6] == ["ml", "train-b-0", "2", "1", "no", "fragmentation"]
               for line in lines)  # fmt: skip
    assert "cpu-1" not in out


def test_dash_is_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert run((NODES,), PODS, (), "json", "-") == 0
    assert json.loads(capsys.readouterr().out)["products"][1]["largest_free"] == 1


def test_output_file_is_written_and_replaced(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("old")
    assert run((NODES,), PODS, (), "html", str(out)) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("which", ["nodes", "pods", "manifest"])
def test_an_output_over_an_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str
) -> None:
    copies = {}
    for name, source in (("nodes", NODES), ("pods", PODS)):
        copies[name] = tmp_path / f"{name}.yaml"
        copies[name].write_text(Path(source).read_text())
    copies["manifest"] = tmp_path / "manifest.yaml"
    copies["manifest"].write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    before = copies[which].read_text()
    code = run(
        (str(copies["nodes"]),),
        str(copies["pods"]),
        (str(copies["manifest"]),),
        "json",
        str(copies[which]),
    )
    assert code == 2
    assert copies[which].read_text() == before
    assert "gpulint never writes over what it reads" in capsys.readouterr().err


def test_usage_and_input_errors_exit_2_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    assert run((), PODS, (), "json", str(out)) == 2
    assert "--cluster NODES" in capsys.readouterr().err
    assert run((NODES,), PODS, (), "yaml", str(out)) == 2
    assert "unknown format 'yaml'" in capsys.readouterr().err
    assert run((PODS,), PODS, (), "json", str(out)) == 2  # pods are no nodes
    assert "no Node objects in this --cluster file" in capsys.readouterr().err
    assert run((NODES,), NODES, (), "json", str(out)) == 2  # nodes are no pods
    assert "no Pod objects in this --pods file" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: [\n")
    assert run((NODES,), str(broken), (), "json", str(out)) == 2
    assert "broken.yaml:" in capsys.readouterr().err
    assert run((NODES,), str(tmp_path / "missing.yaml"), (), "json", str(out)) == 2
    assert not out.exists()


def test_control_characters_of_the_input_are_escaped(
    tmp_path: Path, write, capsys: pytest.CaptureFixture[str]
) -> None:
    pods = write(
        "pods.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: "evil\\e[2Jpod", namespace: ml}
        spec:
          containers:
            - {name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 1}}}
        status: {phase: Pending}
        """,
    )
    assert run((NODES,), str(pods), (), "text", None) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "evil\\x1b[2Jpod" in out
