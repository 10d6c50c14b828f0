"""MPI workers that only run sshd do what their launcher's mpirun runs: a bandwidth probe
there makes them probes (GPU106 and GPU201 leave them alone), a training script does not."""

from __future__ import annotations

from tests.helpers import lint_batch, where

_MPIJOB = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: bandwidth
spec:
  slotsPerWorker: 2
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - name: launcher
              image: ghcr.io/nvidia/k8s-samples:nvbandwidth-v0.7-8d103163
              command: [mpirun]
              args: [--bind-to, core, -np, "4", {program}, -t, device_to_device_memcpy_read_ce]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: worker
              image: ghcr.io/nvidia/k8s-samples:nvbandwidth-v0.7-8d103163
              command: [/usr/sbin/sshd]
              args: [-De]
              resources:
                limits:
                  nvidia.com/gpu: 2
"""


def test_workers_of_a_probe_launcher_are_probes(tmp_path):
    assert lint_batch(tmp_path, _MPIJOB.format(program="nvbandwidth"), "--select", "GPU106") == []


def test_workers_of_a_training_launcher_are_work(tmp_path):
    found = lint_batch(tmp_path, _MPIJOB.format(program="python3"), "--select", "GPU106")
    assert where(found) == [("GPU106", 27, 17)]
    assert found[0]["severity"] == "warning"


def test_workers_running_more_than_sshd_are_judged_by_their_own_command(tmp_path):
    text = _MPIJOB.format(program="nvbandwidth").replace(
        "command: [/usr/sbin/sshd]\n              args: [-De]",
        'command: [bash, -c, "/usr/sbin/sshd; python3 train.py"]',
    )
    found = lint_batch(tmp_path, text, "--select", "GPU106")
    assert where(found) == [("GPU106", 26, 17)]
