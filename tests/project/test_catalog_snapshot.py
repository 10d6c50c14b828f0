"""gpulint/catalog/catalog.json holds exactly catalog.yaml's data (the runs read the JSON)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from gpulint import catalog

ROOT = Path(__file__).resolve().parents[2]


def _script():  # scripts/ is not a package
    spec = importlib.util.spec_from_file_location(
        "catalog_json", ROOT / "scripts" / "catalog_json.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_snapshot_holds_the_yaml_data() -> None:
    with open(catalog.SNAPSHOT, encoding="utf-8") as handle:
        snapshot = json.load(handle)
    assert snapshot == catalog.from_source(), (
        "gpulint/catalog/catalog.json is stale: run python scripts/catalog_json.py"
    )


def test_the_snapshot_is_the_script_output_byte_for_byte() -> None:
    expected = _script().snapshot_text(catalog.from_source())
    assert Path(catalog.SNAPSHOT).read_text(encoding="utf-8") == expected, (
        "run python scripts/catalog_json.py"
    )


def test_the_runs_read_the_snapshot_and_its_data_is_the_yaml_data() -> None:
    assert catalog.raw() == catalog.from_source()
    assert catalog.gpus()  # the views built on it


def test_data_json_cannot_carry_is_refused() -> None:
    with pytest.raises(ValueError, match="JSON cannot carry"):
        _script().snapshot_text({"ids": {0x20B0: "A100"}})  # an integer key
