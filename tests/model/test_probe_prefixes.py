"""``exec``, ``env`` and ``nohup`` run the program that follows them: ``exec python
train.py`` is work, not a placeholder; alone, or before a probe, they stay what they were."""

from __future__ import annotations

import json

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


# A multi-line script runs one command a line (jeremiepas/gpu-mig-presentation's moshi pods:
# an echo, then the work); a comment ends at its line, not at the script's end.
@pytest.mark.parametrize(
    ("script", "work"),
    [
        ('echo "Starting (1g.6gb)"\npip install prometheus-client -q\npython3 serve.py', True),
        ("nvidia-smi # list the GPUs\npython train.py", True),
        ("set -e &&\n  torchrun train.py", True),
        ("echo ready\nnvidia-smi -L\nsleep infinity", False),
    ],
)
def test_each_line_of_a_script_is_a_command(tmp_path, script, work):
    command = json.dumps(["sh", "-c", script])
    found = lint_batch(tmp_path, _JOB.format(command=command), "--select", "GPU106")
    assert where(found) == ([("GPU106", 14, 13)] if work else [])
