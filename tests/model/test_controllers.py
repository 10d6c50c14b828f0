"""What ML operators add to the pods they create (gpulint/model/workloads/controllers.py), read
as a table (the rules that consult it are tested in their series: GPU705 in gpu7xx/, GPU202
in gpu2xx/)."""

from __future__ import annotations


def test_controller_table_names_who_adds_what():
    from types import SimpleNamespace

    from gpulint.model.workloads.controllers import Adds, controller_adding

    def resource(api_version: str, kind: str, labels: dict | None = None):
        # the table reads only these three of a Resource
        return SimpleNamespace(api_version=api_version, kind=kind, labels=labels or {})

    assert controller_adding(resource("apps.nvidia.com/v1alpha1", "NIMService"), Adds.SHM).name == (
        "the NIM operator"
    )
    assert controller_adding(resource("ray.io/v1", "RayJob"), Adds.SHM).name == "KubeRay"
    assert controller_adding(resource("nvidia.com/v1", "ClusterPolicy"), Adds.SHM) is None
    queued = resource("batch/v1", "Job", {"kueue.x-k8s.io/queue-name": "gpu"})
    assert controller_adding(queued, Adds.TOLERATIONS).name == "Kueue"
    assert controller_adding(queued, Adds.SHM) is None
    assert controller_adding(resource("batch/v1", "Job"), Adds.TOLERATIONS) is None
