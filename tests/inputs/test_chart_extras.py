"""Kubernetes objects a chart folder keeps outside templates/: helm does not render them, and
the run says so by name (a launcher's PyTorchJob template beside Chart.yaml, NVIDIA's
NeMo-Framework-Launcher)."""

from __future__ import annotations

import os

from gpulint.inputs.render.chart_extras import unrendered_objects
from tests.helpers import run_cli

JOB = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}\n"


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_only_objects_helm_does_not_render_are_named(tmp_path):
    _write(
        tmp_path,
        {
            "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
            "values.yaml": "kind: notanobject\n",
            "values-prod.yaml": "kind: notanobject\n",
            "kustomization.yaml": "kind: Kustomization\n",
            "templates/job.yaml": JOB,
            "charts/sub/templates/job.yaml": JOB,
            "crds/crd.yaml": "kind: CustomResourceDefinition\n",
            "ci/test-values.yaml": "kind: x\n",
            "training.yaml": JOB,
            "examples/job.yml": JOB,
            "examples/values.yaml": "gpus: 1\n",
            "docs/notes.yaml": "title: kind: of\n",  # no top-level kind line
            ".hidden/job.yaml": JOB,
        },
    )
    assert unrendered_objects(str(tmp_path)) == ["examples/job.yml", "training.yaml"]


def test_files_the_templates_read_are_rendered_with_them(tmp_path):
    _write(
        tmp_path,
        {
            "templates/cm.yaml": '{{ (.Files.Glob "files/*").AsConfig }}\n',
            "files/job.yaml": JOB,
            "job-spec.yaml": JOB,
            "other.yaml": JOB,
        },
    )
    assert unrendered_objects(str(tmp_path)) == ["job-spec.yaml", "other.yaml"]
    (tmp_path / "templates" / "job.yaml").write_text('{{ .Files.Get "job-spec.yaml" }}\n')
    assert unrendered_objects(str(tmp_path)) == ["other.yaml"]


def test_links_and_pipes_are_not_read(tmp_path):
    outside = tmp_path / "outside"
    _write(outside, {"job.yaml": JOB})
    chart = tmp_path / "chart"
    _write(chart, {"Chart.yaml": "name: c\n"})
    os.symlink(outside / "job.yaml", chart / "linked.yaml")
    os.symlink(outside, chart / "linked-folder")
    os.mkfifo(chart / "pipe.yaml")  # reading it would wait for a writer forever
    assert unrendered_objects(str(chart)) == []


def test_the_run_names_them(chart, real_helm):
    (chart / "training.yaml").write_text(JOB)
    result = run_cli("check", "mychart")
    assert (
        "mychart: training.yaml holds Kubernetes objects outside templates/, which helm does "
        "not render: not linted" in result.output
    )
