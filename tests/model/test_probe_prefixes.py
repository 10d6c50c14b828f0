"""``exec``, ``env`` and ``nohup`` run the program that follows them: ``exec python
train.py`` is work, not a placeholder; alone, or before a probe, they stay what they were."""

from __future__ import annotations

import pytest

from tests.helpers import lint_batch, where

_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: ghcr.io/example/trainer:1.0
          command: {command}
          resources:
            limits:
              nvidia.com/gpu: 1
"""


@pytest.mark.parametrize(
    "command",
    [
        '[sh, -c, "exec python train.py"]',
        "[env, python, train.py]",
        "[env, -i, OMP_NUM_THREADS=4, torchrun, train.py]",
        '[bash, -c, "set -e; nohup python train.py"]',
    ],
)
def test_work_behind_a_prefix_is_work(tmp_path, command):
    found = lint_batch(tmp_path, _JOB.format(command=command), "--select", "GPU106")
    assert where(found) == [("GPU106", 14, 13)]


@pytest.mark.parametrize(
    "command",
    [
        '[sh, -c, "exec sleep infinity"]',
        "[env, NVIDIA_VISIBLE_DEVICES=all, nvidia-smi]",
        '[sh, -c, "env; nvidia-smi -L"]',
    ],
)
def test_probes_behind_a_prefix_are_probes(tmp_path, command):
    assert lint_batch(tmp_path, _JOB.format(command=command), "--select", "GPU106") == []
