"""Helm --set names and values (model/values/set_path.py), as Argo CD parameters and Flux
targetPath items write them."""

from __future__ import annotations

import pytest

from gpulint.model.values.set_path import parse_name, typed


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("migStrategy", ("migStrategy",)),
        ("mig.strategy", ("mig", "strategy")),
        ("nodeSelector.nvidia\\.com/gpu\\.present", ("nodeSelector", "nvidia.com/gpu.present")),
        ("tolerations[0].key", ("tolerations", 0, "key")),
        ("matrix[1][2]", ("matrix", 1, 2)),
        ("", None),
        (".a", None),
        ("a.", None),
        ("a..b", None),
        ("[0]", None),
        ("a[x]", None),
        ("a[0]b", None),
        ("a[65537]", None),  # strvals' bound on list indexes
        ("a\\", None),
    ],
)
def test_names(name, path):
    assert parse_name(name) == path


@pytest.mark.parametrize(
    ("value", "result"),
    [
        ("true", True),
        ("FALSE", False),
        ("null", None),
        ("0", 0),
        ("12", 12),
        ("-3", -3),
        ("012", "012"),  # a leading zero keeps it a string
        ("1.5", "1.5"),  # --set parses no floats
        ("{a,1}", ["a", 1]),
        ("mixed", "mixed"),
    ],
)
def test_values(value, result):
    assert typed(value) == result


def test_force_string_keeps_the_text():
    assert typed("true", force_string=True) == "true"
