"""GPU110: an aliyun.com/gpu-mem figure in MiB where gpushare counts GiB (issue 24)."""

from __future__ import annotations

import pytest

from tests.helpers import lint, lint_with, where

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: share
spec:
  containers:
    - name: app
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        {section}:
          aliyun.com/gpu-mem: {value}
"""


def test_a_mib_figure_where_gib_are_counted(tmp_path):
    found = lint(tmp_path, POD.format(section="limits", value=16276), "--select", "GPU110")
    assert where(found) == [("GPU110", 11, 31)]
    assert found[0]["severity"] == "warning"
    assert "read as MiB it is 15 GiB" in found[0]["message"]
    requested = POD.format(section="requests", value='"8192"')
    assert where(lint(tmp_path, requested, "--select", "GPU110")) == [("GPU110", 11, 31)]


@pytest.mark.parametrize("value", [16, 1023, "${GPU_MEM}", "0.5"])
def test_what_may_be_gib_or_is_no_count_is_left_alone(tmp_path, value):
    assert lint(tmp_path, POD.format(section="limits", value=value), "--select", "GPU110") == []


def test_the_option_memory_unit_says_the_plugin_counts_mib(tmp_path):
    config = "rules:\n  GPU110:\n    memory-unit: MiB\n"
    text = POD.format(section="limits", value=16276)
    assert lint_with(tmp_path, config, text, "--select", "GPU110") == []
