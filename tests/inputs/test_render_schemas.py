"""helm resolves the ``$ref`` of a chart's ``values.schema.json`` while it validates values:
over the network for http(s), from the disk otherwise. gpulint refuses a chart whose
schemas (its own, its subcharts', packaged or not) reference anything beyond themselves,
before helm runs (inputs/render/schemas.py)."""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpulint.inputs.render import schemas
from tests.helpers import LoopbackServer, loopback_server, run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {{ .Chart.Name }}
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        requests:
          nvidia.com/gpu: {{ .Values.gpus }}
"""
SCHEMA = """{
  "type": "object",
  "properties": {
    "gpus": {"$ref": "#/definitions/count"},
    "extra": {"$ref": "REF"}
  },
  "definitions": {"count": {"type": "integer", "minimum": 1}}
}
"""


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server(b'{"type": "object"}') as seen:
        yield seen


def _chart(folder: Path, name: str, schema: str | None = None) -> Path:
    (folder / "templates").mkdir(parents=True)
    (folder / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 1.0.0\n")
    (folder / "values.yaml").write_text("gpus: 1\n")
    (folder / "templates" / "pod.yaml").write_text(POD)
    if schema is not None:
        (folder / "values.schema.json").write_text(schema)
    return folder


def _package(files: dict[str, bytes]) -> bytes:
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return packed.getvalue()


def _check(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", "GPU101", "--jobs", "1", *args)
    return result.exit_code, json.loads(result.stdout)


def _errors(data: dict) -> list[tuple]:
    return [(e["path"], e["line"], e["column"], e["message"]) for e in data["errors"]]


@pytest.mark.parametrize(
    "ref",
    ["{url}/schema.json", "https://127.0.0.1:{port}/s.json", "file:///etc/passwd", "other.json"],
)
def test_a_schema_reference_beyond_the_schema_is_refused_before_helm_runs(
    real_helm, server, tmp_path, monkeypatch, ref
):
    monkeypatch.chdir(tmp_path)
    ref = ref.format(url=server.url, port=server.port)
    _chart(tmp_path / "app", "app", SCHEMA.replace("REF", ref))
    code, data = _check("app")
    assert _errors(data) == [
        (
            "app/values.schema.json",
            5,
            23,
            f"values schema reference {ref!r} ($ref) not followed: app was not rendered (helm "
            "would fetch or read it to validate the values; gpulint never fetches: a reference "
            "within the schema, '#/...', is followed)",
        )
    ]
    assert code == 2 and server.connections == []


def test_references_within_the_schema_are_followed_and_validate(real_helm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    chart = _chart(tmp_path / "app", "app", SCHEMA.replace("REF", "#/definitions/count"))
    code, data = _check("app")
    assert (code, data["errors"]) == (1, [])  # rendered: GPU101 on the pod
    (chart / "values.yaml").write_text("gpus: 0\n")  # below the schema's minimum
    code, data = _check("app")
    ((path, _line, _column, message),) = _errors(data)
    assert path == "app/values.schema.json" and "values don't meet the specifications" in message


def test_subcharts_schemas_are_read_in_folders_packages_and_packages_in_packages(
    real_helm, server, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    leaving = SCHEMA.replace("REF", f"{server.url}/s.json").encode()
    app = _chart(tmp_path / "app", "app")
    _chart(app / "charts" / "sub", "sub", SCHEMA.replace("REF", f"{server.url}/sub.json"))
    code, data = _check("app")
    assert _errors(data)[0][:3] == ("app/charts/sub/values.schema.json", 5, 23)
    # A package holding a package holding the schema.
    inner = _package(
        {
            "deep/Chart.yaml": b"apiVersion: v2\nname: deep\nversion: 1.0.0\n",
            "deep/values.schema.json": leaving,
        }
    )
    outer = _package(
        {
            "mid/Chart.yaml": b"apiVersion: v2\nname: mid\nversion: 1.0.0\n",
            "mid/charts/deep-1.0.0.tgz": inner,
        }
    )
    (app / "charts" / "sub" / "values.schema.json").unlink()
    (app / "charts" / "mid-1.0.0.tgz").write_bytes(outer)
    code, data = _check("app")
    ((path, line, column, message),) = _errors(data)
    assert (path, line, column) == ("app/charts/mid-1.0.0.tgz", 1, 1)
    assert message.startswith(
        f"values schema reference '{server.url}/s.json' ($ref in mid/charts/deep-1.0.0.tgz:"
        "deep/values.schema.json) not followed: app was not rendered"
    )
    assert server.connections == []


def test_a_reference_the_text_hides_is_still_found(tmp_path):
    # "\u0024ref" is "$ref" once decoded, as helm decodes it.
    schema = tmp_path / "values.schema.json"
    schema.write_text('{"properties": {"a": {"\\u0024ref": "http://127.0.0.1:9/x"}}}')
    (found,), too_big = schemas.schema_references(str(tmp_path))
    assert (found.line, found.column, found.ref, too_big) == (1, 1, "http://127.0.0.1:9/x", None)


def test_a_packaged_subchart_past_the_budget_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(schemas, "ARCHIVE_BUDGET", 64 * 1024)
    (tmp_path / "charts").mkdir()
    bomb = _package({"big/Chart.yaml": b"name: big\n", "big/zeros": b"\0" * (1 << 20)})
    (tmp_path / "charts" / "big-1.0.0.tgz").write_bytes(bomb)
    found, too_big = schemas.schema_references(str(tmp_path))
    assert found == [] and too_big is not None and too_big.endswith("charts/big-1.0.0.tgz")
