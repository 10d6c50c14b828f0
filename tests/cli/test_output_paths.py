"""No output overwrites an input (issue 23, item 9): ``--output a.yaml a.yaml`` replaced the
manifest being linted with the report. Every ``--output`` and ``--write-baseline`` file is
compared with every file the run reads, through symbolic and hard links, before anything is
linted or written: exit 2, a message naming the output and the input, every file as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpulint.cli.main as cli_main
from tests.helpers import run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: vllm/vllm-openai:v0.6.3
      resources:
        limits:
          nvidia.com/gpu: 1
"""
NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
status:
  allocatable:
    nvidia.com/gpu: "8"
"""
PODS = """\
apiVersion: v1
kind: List
items: []
"""
SUFFIX = ": gpulint never writes over what it reads"
_REAL_RUN = cli_main.run


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory: a.yaml, k8s/b.yaml, no config file; linting is forbidden."""
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text(POD)
    Path("k8s").mkdir()
    Path("k8s/b.yaml").write_text(POD)

    def no_lint(*args, **kwargs):
        raise AssertionError("linted although an output is an input")

    monkeypatch.setattr(cli_main, "run", no_lint)
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _refused(root: Path, message: str, *args: str) -> None:
    before = _snapshot(root)
    result = run_cli("check", *args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.endswith(f"Error: {message}\n"), result.stderr
    assert _snapshot(root) == before  # nothing written, no temporary file left


@pytest.mark.parametrize(
    ("shown", "args"),
    [
        ("a.yaml", ("--format", "json", "--output", "a.yaml", "a.yaml")),
        ("./a.yaml", ("a.yaml", "--format", "text", "-o", "./a.yaml")),
        ("a.yaml", ("--format", "text", "--format", "sarif", "-o", "-", "-o", "a.yaml", "a.yaml")),
    ],
)
def test_an_output_named_as_an_input(tree, shown, args):
    _refused(tree, f"--output {shown} is an input (named on the command line){SUFFIX}", *args)


def test_write_baseline_named_as_an_input(tree):
    _refused(
        tree,
        f"--write-baseline a.yaml is an input (named on the command line){SUFFIX}",
        "--write-baseline",
        "a.yaml",
        "a.yaml",
    )


@pytest.mark.parametrize("link", ["symlink", "hardlink", "symlink-chain"])
@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
def test_an_output_linked_to_an_input(tree, link, option):
    if link == "symlink":
        Path("report.json").symlink_to("a.yaml")
    elif link == "hardlink":
        os.link("a.yaml", "report.json")
    else:
        Path("step").symlink_to("k8s")
        Path("report.json").symlink_to("step/../a.yaml")
    fmt = ("--format", "json") if option == "--output" else ()
    _refused(
        tree,
        f"{option} report.json is the same file as the input a.yaml "
        f"(named on the command line){SUFFIX}",
        *fmt,
        option,
        "report.json",
        "a.yaml",
    )


def test_an_input_linked_to_the_output(tree):
    Path("input.yaml").symlink_to("k8s/b.yaml")
    _refused(
        tree,
        f"--output k8s/b.yaml is the same file as the input input.yaml "
        f"(named on the command line){SUFFIX}",
        *("--format", "json", "-o", "k8s/b.yaml", "input.yaml"),
    )


def test_a_file_the_folder_walk_found(tree):
    _refused(
        tree,
        f"--output k8s/b.yaml is an input (found in a folder named on the command line)"
        f"{SUFFIX}; --exclude it, or write the report elsewhere",
        *("--format", "json", "-o", "k8s/b.yaml", "."),
    )


def test_a_previous_report_in_the_walked_folder_is_found_and_exclude_lets_it_be(tree, monkeypatch):
    Path("report.json").write_text("{}\n")  # the report of the run before
    _refused(
        tree,
        f"--output report.json is an input (found in a folder named on the command line)"
        f"{SUFFIX}; --exclude it, or write the report elsewhere",
        *("--format", "json", "-o", "report.json", "."),
    )
    monkeypatch.setattr(cli_main, "run", _REAL_RUN)
    args = ("--format", "json", "-o", "report.json", "--exclude", "report.json", ".")
    result = run_cli("check", *args)
    assert result.exit_code == 1
    assert '"findings"' in Path("report.json").read_text()
    assert Path("a.yaml").read_text() == POD


@pytest.mark.parametrize("found", ["upward", "--config"])
def test_the_config_file(tree, found):
    Path(".gpulint.yaml").write_text("select: [GPU1]\n")
    config = ("--config", ".gpulint.yaml") if found == "--config" else ()
    _refused(
        tree,
        f"--output .gpulint.yaml is an input (the config file){SUFFIX}",
        *config,
        *("--format", "json", "-o", ".gpulint.yaml", "a.yaml"),
    )


def test_the_baseline_read(tree):
    Path("base.json").write_text('{"version": 1, "tool": "gpulint", "findings": []}\n')
    _refused(
        tree,
        f"--output base.json is an input (the --baseline file){SUFFIX}",
        *("--baseline", "base.json", "--format", "json", "-o", "base.json", "a.yaml"),
    )


def test_rewriting_the_baseline_it_replaces_is_allowed(tree, monkeypatch):
    # --write-baseline never reads --baseline: refreshing a baseline in place is the workflow.
    monkeypatch.setattr(cli_main, "run", _REAL_RUN)
    Path("base.json").write_text('{"version": 1, "tool": "gpulint", "findings": []}\n')
    result = run_cli("check", "--baseline", "base.json", "--write-baseline", "base.json", "a.yaml")
    assert result.exit_code == 0, result.output
    assert '"code": "GPU' in Path("base.json").read_text()


def test_a_values_file(tree):
    Path("values.yaml").write_text("replicas: 1\n")
    _refused(
        tree,
        f"--output values.yaml is an input (a --values file){SUFFIX}",
        *("--values", "values.yaml", "--format", "json", "-o", "values.yaml", "a.yaml"),
    )


@pytest.mark.parametrize(
    ("named_in", "text"),
    [
        (
            "helmfile.yaml",
            "releases:\n  - name: nvdp\n    chart: nvdp/nvidia-device-plugin\n"
            "    values:\n      - gpu/values.yaml\n",
        ),
        (
            "kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nhelmCharts:\n"
            "  - name: nvidia-device-plugin\n    valuesFile: gpu/values.yaml\n",
        ),
    ],
)
def test_a_values_file_a_release_names(tree, named_in, text):
    # The lint pass reads the values files a helmfile or a kustomization's helmCharts names.
    Path("gpu").mkdir()
    Path("gpu/values.yaml").write_text("migStrategy: none\n")
    Path(named_in).write_text(text)
    _refused(
        tree,
        f"--output gpu/values.yaml is an input (a values file {named_in} names){SUFFIX}",
        *("--format", "json", "-o", "gpu/values.yaml", named_in),
    )


@pytest.mark.parametrize("as_folder", [False, True])
def test_a_cluster_file(tree, as_folder):
    Path("cluster").mkdir()
    Path("cluster/nodes.yaml").write_text(NODES)
    named = "cluster" if as_folder else "cluster/nodes.yaml"
    _refused(
        tree,
        f"--output cluster/nodes.yaml is an input (a --cluster file){SUFFIX}",
        *("--cluster", named, "--format", "json", "-o", "cluster/nodes.yaml", "a.yaml"),
    )


def test_a_pods_file(tree):
    Path("pods.yaml").write_text(PODS)
    _refused(
        tree,
        f"--output pods.yaml is an input (--pods){SUFFIX}",
        *("--pods", "pods.yaml", "--format", "json", "-o", "pods.yaml", "a.yaml"),
    )


def _chart(root: Path) -> None:
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (root / "values.yaml").write_text("replicas: 1\n")
    (root / "templates" / "pod.yaml").write_text(POD)
    (root / "templates" / "NOTES.txt").write_text("notes\n")


@pytest.mark.parametrize("inside", ["values.yaml", "templates/pod.yaml", "templates/NOTES.txt"])
def test_any_file_of_a_helm_chart(tree, inside):
    _chart(tree / "chart")
    _refused(
        tree,
        f"--output chart/{inside} is an input (a Helm chart gpulint renders){SUFFIX}",
        *("--format", "json", "-o", f"chart/{inside}", "."),
    )


def test_a_file_of_the_chart_dir(tree):
    _chart(tree / "chart")
    _refused(
        tree,
        f"--output chart/templates/NOTES.txt is an input (the --chart-dir chart){SUFFIX}",
        *("--chart-dir", "chart", "--format", "json", "-o", "chart/templates/NOTES.txt"),
        "a.yaml",
    )


def test_a_file_a_kustomization_names_outside_the_tree(tree):
    Path("base").mkdir()
    Path("base/pod.yaml").write_text(POD)
    Path("base/kustomization.yaml").write_text("resources:\n  - pod.yaml\n")
    Path("overlay").mkdir()
    Path("overlay/kustomization.yaml").write_text("resources:\n  - ../base\n")
    _refused(
        tree,
        f"--output base/pod.yaml is an input (in resources of base){SUFFIX}",
        *("--format", "json", "-o", "base/pod.yaml", "overlay"),
    )
    _refused(
        tree,
        f"--output base/kustomization.yaml is an input (a kustomization){SUFFIX}",
        *("--format", "json", "-o", "base/kustomization.yaml", "overlay"),
    )


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
@pytest.mark.parametrize("name", ["k8s", "k8s/", "new/", "."])
def test_an_output_that_is_a_directory(tree, option, name):
    fmt = ("--format", "json") if option == "--output" else ()
    if option == "--output" and name != "new/":
        message = (
            f"Invalid value for '-o' / '--output': File '{name}' is a directory."  # the option type
        )
    else:
        message = f"{option} {name} is a directory; give a file"
    _refused(tree, message, *fmt, option, name, "a.yaml")
    assert not Path("new").exists()


def test_an_empty_output_name(tree):
    _refused(tree, "--write-baseline '': an empty file name", "--write-baseline", "", "a.yaml")


@pytest.mark.parametrize(
    ("second", "link"),
    [("r.json", None), ("./r.json", None), ("s.json", "symlink"), ("s.json", "hardlink")],
)
@pytest.mark.parametrize("exists", [False, True])
def test_two_outputs_that_are_the_same_file(tree, second, link, exists):
    if exists or link:
        Path("r.json").write_text("old\n")
    if link == "symlink":
        Path("s.json").symlink_to("r.json")
    elif link == "hardlink":
        os.link("r.json", "s.json")
    _refused(
        tree,
        f"--output r.json and --output {second} are the same file; give each output its own file",
        *("--format", "json", "-o", "r.json", "--format", "sarif", "-o", second, "a.yaml"),
    )


def test_an_output_and_the_baseline_written_are_one_file(tree):
    _refused(
        tree,
        "--output r.json and --write-baseline r.json are the same file; "
        "give each output its own file",
        *("--format", "json", "-o", "r.json", "--write-baseline", "r.json", "a.yaml"),
    )


def test_outputs_that_are_no_input_are_written(tree, monkeypatch):
    monkeypatch.setattr(cli_main, "run", _REAL_RUN)
    Path("out").mkdir()
    Path("out/b.yaml").write_text("old\n")  # same name as an input, another file
    result = run_cli(
        *("check", "--format", "json", "-o", "out/b.yaml", "--format", "sarif", "-o"),
        *("/dev/null", "--format", "text", "-o", "/dev/null", "k8s"),
    )
    assert result.exit_code == 1, result.output
    assert '"findings"' in Path("out/b.yaml").read_text()
    assert Path("k8s/b.yaml").read_text() == POD
    # a new file inside the walked folder: not an input of this run
    result = run_cli("check", "--format", "json", "-o", "k8s/report.json", "k8s")
    assert result.exit_code == 1, result.output
    assert Path("k8s/report.json").is_file()


# --- links a scanned tree may plant where the report goes -------------------------------------


@pytest.mark.parametrize("target", ["victim.txt", "missing.txt", "/dev/null"])
def test_an_output_that_is_a_link_to_anything_but_a_descriptor_is_refused(tree, target):
    Path("victim.txt").write_text("keep me\n")
    Path("gpulint.sarif").symlink_to(target)
    real = os.path.realpath("gpulint.sarif")
    _refused(
        tree,
        f"--output gpulint.sarif is a symbolic link (to {real}): gpulint writes no report "
        "through a link a scanned tree could have planted, only through /dev/stdout and other "
        "open descriptors; name the file itself",
        *("--format", "sarif", "-o", "gpulint.sarif", "a.yaml"),
    )
    assert Path("victim.txt").read_text() == "keep me\n"
    assert not Path("missing.txt").exists()


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1"])
def test_dev_stdout_redirected_to_a_file_is_appended_to(tmp_path, name):
    (tmp_path / "a.yaml").write_text(POD)
    out = tmp_path / "out.txt"
    out.write_text("before\n")
    with open(out, "a") as stdout:
        proc = subprocess.run(
            [sys.executable, "-m", "gpulint", "check", "--no-config", "--format", "text"]
            + ["--format", "json", "-o", "-", "-o", name, str(tmp_path / "a.yaml")],
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert proc.returncode == 1, proc.stderr
    text = out.read_text()
    assert text.startswith("before\n")  # appended, as the shell's `>>` asked
    assert "warning [GPU106" in text  # the text report, written before the JSON
    assert text.rstrip().endswith("}")  # then the JSON report, whole


def test_an_output_through_a_folder_link_planted_in_the_linted_tree_is_refused(tree, tmp_path):
    """`reports -> elsewhere` inside the tree, where the CI job writes reports/x.sarif."""
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    Path("reports").symlink_to(elsewhere)
    real = os.path.realpath("reports")
    _refused(
        tree,
        f"--output reports/x.sarif goes through {os.path.abspath('reports')}, a symbolic link "
        f"(to {real}) inside a folder being linted: the tree could have planted it; name a "
        "path without it",
        *("--format", "sarif", "-o", "reports/x.sarif", "."),
    )
    assert list(elsewhere.iterdir()) == []


def test_a_folder_link_outside_the_linted_folders_is_followed(tree, tmp_path, monkeypatch):
    """Links the user has outside what is linted (macOS's /tmp) are theirs."""
    monkeypatch.setattr(cli_main, "run", _REAL_RUN)
    real_reports = tmp_path / "real-reports"
    real_reports.mkdir()
    Path("out").symlink_to(real_reports)
    result = run_cli("check", "--format", "json", "-o", "out/r.json", "k8s")
    assert result.exit_code == 1, result.output
    assert (real_reports / "r.json").read_text().startswith("{")
