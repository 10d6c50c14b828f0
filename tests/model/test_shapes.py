"""model/values/shapes.py: the fast conformance walk agrees with the problems it would build."""

from __future__ import annotations

import pytest

from gpulint.model.values import shapes

CONTAINER = {
    "name": "trainer",
    "image": "nvcr.io/nvidia/pytorch:24.05-py3",
    "command": ["python", "train.py"],
    "env": [{"name": "A", "value": "1"}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"containers": [CONTAINER], "nodeSelector": {"a": "b"}}, []),
        ({"containers": [CONTAINER], "nodeSelector": None}, []),  # null decodes to empty
        (
            {"containers": [{**CONTAINER, "command": "python train.py"}]},
            [("containers", 0, "command")],
        ),
        (
            {"containers": [{**CONTAINER, "env": [{"name": "A", "value": ["x"]}]}]},
            [("containers", 0, "env", 0, "value")],
        ),
        ({"containers": [CONTAINER], "nodeSelector": {"a": {"b": "c"}}}, [("nodeSelector", "a")]),
        ({"containers": [CONTAINER], "tolerations": {"key": "x"}}, [("tolerations",)]),
        ({"containers": [CONTAINER], "volumes": ["dshm"]}, [("volumes", 0)]),
        (
            {"initContainers": [CONTAINER, {**CONTAINER, "args": 3}]},
            [("initContainers", 1, "args")],
        ),
        ({"containers": "${CONTAINERS}"}, []),  # a placeholder is not a value
    ],
)
def test_conforms_exactly_when_problems_finds_nothing(spec, expected):
    found = [p.path for p in shapes.problems(spec, shapes.POD_SPEC)]
    assert found == expected
    assert shapes.conforms(spec, shapes.POD_SPEC) is (expected == [])
