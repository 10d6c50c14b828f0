"""A GPU check script (an interpreter running ``gpu-test.py``, ``check_cuda.py``...) is a
probe for the pod-level rules (GPU106, GPU201), as its own command and under an MPI
launcher; work scripts and names with only one of the two words are not."""

from __future__ import annotations

import pytest

from gpulint.model.workloads.probe import is_check_script
from tests.helpers import lint_batch, lint_with, where


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("python", ["/tmp/gpu-test.py"]),
        ("python3", ["check_cuda.py"]),
        ("python3.11", ["-u", "test_gpu.py", "--verbose"]),
        ("python", ["scripts/nccl_check.py"]),
        ("python3", ["smoke.devices.py"]),
    ],
)
def test_check_scripts(name, args):
    assert is_check_script(name, args)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("python", ["train.py"]),
        ("python", ["test.py"]),
        ("python", ["run_trial.py"]),
        ("python", ["gpu_train.py"]),
        ("python", ["-c", "import torch; print(torch.cuda.is_available())"]),
        ("python", ["-m", "gpu_test"]),
        ("python", ["$SCRIPT_gpu_test.py"]),
        ("python", ["gpu-test.sh"]),
        ("python", []),
        ("node", ["gpu-test.py"]),
        ("pythonista", ["gpu-test.py"]),
    ],
)
def test_not_check_scripts(name, args):
    assert not is_check_script(name, args)


_POD = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: check
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: check
          image: ghcr.io/example/cuda-check:1.0
          command: [{command}]
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def test_a_check_script_as_the_command_is_a_probe(tmp_path):
    text = _POD.format(command="python3, /opt/check_cuda.py")
    assert lint_batch(tmp_path, text, "--select", "GPU106") == []


def test_a_check_script_in_a_shell_script_is_a_probe(tmp_path):
    text = _POD.format(command='sh, -c, "python gpu-test.py && sleep 10"')
    assert lint_batch(tmp_path, text, "--select", "GPU106") == []


def test_a_work_script_is_not_a_probe(tmp_path):
    found = lint_batch(tmp_path, _POD.format(command="python3, gpu_train.py"), "--select", "GPU106")
    assert where(found) == [("GPU106", 14, 13)]
    assert found[0]["severity"] == "warning"


def test_a_check_script_next_to_work_is_not_a_probe(tmp_path):
    text = _POD.format(command='sh, -c, "python gpu-test.py; python train.py"')
    assert where(lint_batch(tmp_path, text, "--select", "GPU106")) == [("GPU106", 14, 13)]


def test_a_check_script_pod_is_a_probe_for_gpu302_too(tmp_path):
    # What a check checks does not depend on the image's version; a training script's does.
    config = "rules:\n  GPU302:\n    batch: true\n"
    check = _POD.format(command="python3, check_cuda.py").replace(":1.0", ":latest")
    assert lint_with(tmp_path, config, check, "--select", "GPU302") == []
    work = check.replace("check_cuda.py", "train.py")
    assert where(lint_with(tmp_path, config, work, "--select", "GPU302")) == [("GPU302", 11, 11)]


_VOLCANO = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: mpi-check
spec:
  minAvailable: 3
  schedulerName: volcano
  plugins:
    ssh: []
    svc: []
  tasks:
    - replicas: 1
      name: launcher
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: launcher
              image: ghcr.io/example/mpi-check:1.0
              command:
                - /bin/bash
                - -c
                - |
                  mkdir -p /var/run/sshd; /usr/sbin/sshd;
                  mpiexec --allow-run-as-root --hostfile /etc/hosts.mpi -np 2 python {script};
                  sleep 3600;
    - replicas: 2
      name: worker
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: worker
              image: ghcr.io/example/mpi-check:1.0
              command: [/bin/bash, -c, "mkdir -p /var/run/sshd; /usr/sbin/sshd -D"]
              resources:
                limits:
                  nvidia.com/gpu: 1
"""


def test_workers_of_a_launcher_running_a_check_script_are_probes(tmp_path):
    text = _VOLCANO.format(script="/tmp/gpu-test.py")
    assert lint_batch(tmp_path, text, "--select", "GPU106") == []


def test_workers_of_a_launcher_running_a_work_script_are_work(tmp_path):
    found = lint_batch(tmp_path, _VOLCANO.format(script="/tmp/train.py"), "--select", "GPU106")
    assert where(found) == [("GPU106", 37, 17)]
    assert found[0]["severity"] == "warning"
