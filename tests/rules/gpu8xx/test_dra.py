"""GPU801-805: Dynamic Resource Allocation, through the CLI (one file and across files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CORPUS as SHARED_CORPUS
from tests.helpers import findings_json, lint, where

TEMPLATE = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  namespace: ml
  name: single-gpu
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: {device_class}
"""

POD = """
apiVersion: v1
kind: Pod
metadata:
  namespace: ml
  name: train
spec:
  resourceClaims:
    - name: gpu
      {reference}
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        claims:
          - name: {used}{request}
{limits}"""


def template(device_class: str = "gpu.nvidia.com") -> str:
    return TEMPLATE.format(device_class=device_class)


def pod(
    reference: str = "resourceClaimTemplateName: single-gpu",
    used: str = "gpu",
    request: str = "",
    limits: str = "",
) -> str:
    request = f"\n            request: {request}" if request else ""
    return POD.format(reference=reference, used=used, request=request, limits=limits)


def run(*paths: Path, select: str) -> list[dict]:
    return findings_json(*map(str, paths), "--select", select)["findings"]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text.lstrip("\n"))
    return path


# --- GPU801 dra-claim-unresolved -------------------------------------------------------------


def test_container_claim_not_declared_by_the_pod(tmp_path):
    found = lint(tmp_path, pod(used="gpus"), "--select", "GPU801")
    assert where(found) == [("GPU801", 15, 19)]
    message = found[0]["message"]
    assert 'Not found: "gpus": must be one of the names in pod.spec.resourceClaims: gpu' in message
    assert "did you mean 'gpu'?" in message


def test_missing_template_across_files(tmp_path):
    claims = write(tmp_path, "claims.yaml", template())
    workload = write(tmp_path, "pod.yaml", pod("resourceClaimTemplateName: one-gpu"))
    found = run(claims, workload, select="GPU801")
    assert where(found) == [("GPU801", 9, 34)]
    assert found[0]["path"].endswith("pod.yaml")
    message = found[0]["message"]
    assert 'resourceclaimtemplate.resource.k8s.io "one-gpu" not found' in message
    assert "did you mean 'single-gpu'?" in message
    # The same pod with its template in the run is clean, whichever file holds it.
    good = write(tmp_path, "good.yaml", pod())
    assert run(claims, good, select="GPU801") == []


def test_template_in_the_folder_resolves(tmp_path):
    write(tmp_path, "a-claims.yaml", template())
    write(tmp_path, "b-pod.yaml", pod())
    assert run(tmp_path, select="GPU801") == []


def test_no_dra_objects_for_the_namespace_means_no_verdict(tmp_path):
    other = write(tmp_path, "claims.yaml", template().replace("namespace: ml", "namespace: dev"))
    workload = write(tmp_path, "pod.yaml", pod("resourceClaimTemplateName: one-gpu"))
    assert run(workload, select="GPU801") == []
    assert run(other, workload, select="GPU801") == []


def test_claim_name_used_for_a_template_gets_a_hint(tmp_path):
    text = template() + "---" + pod("resourceClaimName: single-gpu")
    found = lint(tmp_path, text, "--select", "GPU801")
    assert where(found) == [("GPU801", 22, 26)]
    assert "reference it with resourceClaimTemplateName" in found[0]["message"]


def test_compute_domain_defines_its_channel_template(tmp_path):
    domain = """
apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
metadata:
  namespace: ml
  name: domain
spec:
  numNodes: 1
  channel:
    resourceClaimTemplate:
      name: imex-channel
---
"""
    text = domain + template() + "---" + pod("resourceClaimTemplateName: imex-channel")
    assert lint(tmp_path, text, "--select", "GPU801") == []


def test_request_name_must_exist_in_the_template(tmp_path):
    text = template() + "---" + pod(request="gpu0")
    found = lint(tmp_path, text, "--select", "GPU801")
    assert where(found) == [("GPU801", 29, 22)]
    assert "has only gpu" in found[0]["message"]
    assert lint(tmp_path, template() + "---" + pod(request="gpu"), "--select", "GPU801") == []


def test_legacy_source_reference_is_resolved_too(tmp_path):
    legacy = "source:\n        resourceClaimTemplateName: one-gpu"
    found = lint(tmp_path, template() + "---" + pod(legacy), "--select", "GPU801")
    assert where(found) == [("GPU801", 23, 36)]


# --- GPU802 dra-claim-unused -----------------------------------------------------------------


def test_declared_claim_without_a_container(tmp_path):
    text = """
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  resourceClaims:
    - name: gpu
      resourceClaimTemplateName: single-gpu
    - name: extra
      resourceClaimTemplateName: single-gpu
  initContainers:
    - name: warmup
      image: busybox
      resources:
        claims:
          - name: extra
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
"""
    found = lint(tmp_path, text, "--select", "GPU802")
    assert where(found) == [("GPU802", 7, 7)]
    assert "claim 'gpu' (ResourceClaimTemplate 'single-gpu')" in found[0]["message"]


def test_used_claims_are_silent(tmp_path):
    assert lint(tmp_path, pod(), "--select", "GPU802") == []


# --- GPU803 dra-mixed-with-device-plugin -----------------------------------------------------

GPU_LIMIT = "        limits:\n          nvidia.com/gpu: 1\n"


def test_gpu_claim_and_device_plugin_gpu_across_files(tmp_path):
    claims = write(tmp_path, "claims.yaml", template())
    workload = write(tmp_path, "pod.yaml", pod(limits=GPU_LIMIT))
    found = run(claims, workload, select="GPU803")
    assert where(found) == [("GPU803", 17, 11)]
    message = found[0]["message"]
    assert "device class gpu.nvidia.com" in message and "nvidia.com/gpu: 1" in message
    # Without the template in the run, the claim's devices are unknown: no verdict.
    assert run(workload, select="GPU803") == []


def test_non_gpu_claims_do_not_count(tmp_path):
    domain = """
apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
metadata:
  namespace: ml
  name: domain
spec:
  channel:
    resourceClaimTemplate:
      name: imex-channel
---
"""
    text = domain + pod("resourceClaimTemplateName: imex-channel", limits=GPU_LIMIT)
    assert lint(tmp_path, text, "--select", "GPU803") == []
    text = template("nic.example.com") + "---" + pod(limits=GPU_LIMIT)
    assert lint(tmp_path, text, "--select", "GPU803") == []


DEVICE_CLASS = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: {name}
spec:
  selectors:
    - cel:
        expression: "device.driver == 'gpu.nvidia.com'"
{extra}---
"""


def test_own_device_class_selecting_nvidia_gpus_counts(tmp_path):
    text = (
        DEVICE_CLASS.format(name="big-gpu.example.com", extra="")
        + template("big-gpu.example.com")
        + "---"
        + pod(limits=GPU_LIMIT)
    )
    found = lint(tmp_path, text, "--select", "GPU803")
    assert [f["code"] for f in found] == ["GPU803"]


def test_extended_resource_served_by_dra_is_not_mixing(tmp_path):
    extra = "  extendedResourceName: nvidia.com/gpu\n"
    text = (
        DEVICE_CLASS.format(name="gpu-er.example.com", extra=extra)
        + template()
        + "---"
        + pod(limits=GPU_LIMIT)
    )
    assert lint(tmp_path, text, "--select", "GPU803") == []


# --- GPU804 dra-api-removed ------------------------------------------------------------------


def test_classic_dra_objects_and_nvidia_parameters(tmp_path):
    text = """
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata:
  name: gpu.nvidia.com
driverName: gpu.resource.nvidia.com
---
apiVersion: gpu.resource.nvidia.com/v1alpha1
kind: GpuClaimParameters
metadata:
  name: shared
spec:
  sharing:
    strategy: TimeSlicing
---
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
      - name: gpu
        deviceClassName: gpu.nvidia.com
---
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata:
  name: maintenance
spec:
  taint:
    key: maintenance
    effect: NoSchedule
"""
    found = lint(tmp_path, text, "--select", "GPU804")
    assert where(found) == [("GPU804", 1, 13), ("GPU804", 7, 13), ("GPU804", 15, 13)]
    assert "DeviceClass" in found[0]["message"]
    assert (
        'no matches for kind "ResourceClass" in version "resource.k8s.io/v1alpha2"'
        in (found[0]["message"])
    )
    assert "kind: GpuConfig" in found[1]["message"]
    assert "is no longer served as resource.k8s.io/v1alpha3" in found[2]["message"]


def test_pod_claim_source_mapping(tmp_path):
    legacy = "source:\n        resourceClaimTemplateName: single-gpu"
    found = lint(tmp_path, pod(legacy), "--select", "GPU804")
    assert where(found) == [("GPU804", 9, 7)]
    assert "write resourceClaimTemplateName: single-gpu directly" in found[0]["message"]
    assert lint(tmp_path, template() + "---" + pod(), "--select", "GPU804") == []


# --- GPU805 dra-claim-invalid ----------------------------------------------------------------


def claim(requests: str, api: str = "v1") -> str:
    return f"""
apiVersion: resource.k8s.io/{api}
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
{requests}"""


def test_v1beta1_request_shape_in_a_v1_object_is_one_finding(tmp_path):
    requests = """      - name: gpu
        deviceClassName: gpu.nvidia.com
        count: 2
"""
    found = lint(tmp_path, claim(requests), "--select", "GPU805")
    assert where(found) == [("GPU805", 9, 9)]
    assert "deviceClassName, count sit directly on request 'gpu'" in found[0]["message"]
    # The same request is right in v1beta1.
    assert lint(tmp_path, claim(requests, "v1beta1"), "--select", "GPU805") == []


def test_v1_shape_in_a_v1beta1_object(tmp_path):
    requests = """      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
"""
    found = lint(tmp_path, claim(requests, "v1beta1"), "--select", "GPU805")
    assert where(found) == [("GPU805", 9, 9)]
    assert "exactly: is a resource.k8s.io/v1 field" in found[0]["message"]
    assert lint(tmp_path, claim(requests, "v1beta2"), "--select", "GPU805") == []


def test_misindented_cel_is_one_finding_at_cel(tmp_path):
    requests = """      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
            - cel:
              expression: "device.driver == 'gpu.nvidia.com'"
"""
    found = lint(tmp_path, claim(requests), "--select", "GPU805")
    assert where(found) == [("GPU805", 12, 15)]
    assert "indent expression under cel:" in found[0]["message"]


def test_cel_given_as_a_string(tmp_path):
    requests = """      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors:
            - cel: "device.driver == 'gpu.nvidia.com'"
"""
    found = lint(tmp_path, claim(requests), "--select", "GPU805")
    assert where(found) == [("GPU805", 12, 15)]
    assert "cel must be a mapping with an expression" in found[0]["message"]


def test_missing_device_class_typo_and_wrong_type(tmp_path):
    requests = """      - name: gpu
        exactly:
          alocationMode: All
      - name: two
        exactly:
          deviceClassName: gpu.nvidia.com
          count: "2"
"""
    found = lint(tmp_path, claim(requests), "--select", "GPU805")
    assert where(found) == [("GPU805", 9, 9), ("GPU805", 10, 11), ("GPU805", 14, 18)]
    messages = [f["message"] for f in found]
    assert "spec.devices.requests[0].exactly.deviceClassName: Required value" in messages[0]
    assert "did you mean 'allocationMode'?" in messages[1]
    assert "count must be an integer, not '2'" in messages[2]


def test_a_placeholder_count_is_filled_in_before_apply(tmp_path):
    requests = """      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          count: ${GPU_COUNT}
      - name: two
        exactly:
          deviceClassName: gpu.nvidia.com
          count: "2"
"""
    found = lint(tmp_path, claim(requests), "--select", "GPU805")
    assert where(found) == [("GPU805", 15, 18)]  # the string that stays one


def test_template_and_device_class_are_checked(tmp_path):
    text = template().replace("deviceClassName", "deviceClass") + (
        """---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selector:
    - cel:
        expression: "device.driver == 'gpu.nvidia.com'"
"""
    )
    found = lint(tmp_path, text, "--select", "GPU805")
    assert where(found) == [("GPU805", 12, 13), ("GPU805", 19, 3)]
    assert "did you mean 'deviceClassName'?" in found[0]["message"]
    assert "did you mean 'selectors'?" in found[1]["message"]


def test_first_available_and_removed_versions(tmp_path):
    requests = """      - name: gpu
        firstAvailable:
          - name: big
            deviceClassName: gpu.nvidia.com
            selectors:
              - cel:
                  expression: "device.attributes['gpu.nvidia.com'].type == 'gpu'"
          - name: any
            deviceClassName: gpu.nvidia.com
"""
    assert lint(tmp_path, claim(requests), "--select", "GPU805") == []
    # Versions no cluster serves are GPU804's; GPU805 does not validate them.
    legacy = claim("      - name: gpu\n        whatever: 1\n", "v1alpha2")
    assert lint(tmp_path, legacy, "--select", "GPU805") == []


# --- The NVIDIA DRA driver's own demo specs --------------------------------------------------

CORPUS = SHARED_CORPUS / "NVIDIA__k8s-dra-driver-gpu" / "demo" / "specs"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_nvidia_dra_demo_specs():
    result = findings_json(str(CORPUS), "--select", "GPU8")
    found = result["findings"]
    # The current demos (v1, v1beta1, ComputeDomain channels, MPIJobs) are correct DRA.
    assert [f for f in found if f["code"] != "GPU804"] == []
    # The early demos use classic DRA and the driver's old parameter objects.
    flagged = {Path(f["path"]).relative_to(CORPUS).as_posix() for f in found}
    assert flagged == {
        "mig+mps/sharing-demo-claims-1.yaml",
        "mig+mps/sharing-demo-claims.yaml",
        "mig+mps/sharing-demo-parameters-1.yaml",
        "mig+mps/sharing-demo-parameters.yaml",
        "selectors/claims.yaml",
        "selectors/parameters.yaml",
        "selectors/pods.yaml",
    }
    assert not [e for e in result["errors"] if "internal error" in e["message"]]


def test_exactly_and_first_available_together(tmp_path):
    requests = """      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
        firstAvailable:
          - name: any
            deviceClassName: gpu.nvidia.com
"""
    found = lint(tmp_path, claim(requests), "--select", "GPU805")
    assert where(found) == [("GPU805", 8, 9)]
    assert "sets both exactly and firstAvailable" in found[0]["message"]


def test_placeholder_template_names_are_not_judged(tmp_path):
    text = template() + "---" + pod("resourceClaimTemplateName: gpu-${SUFFIX}")
    assert lint(tmp_path, text, "--select", "GPU801") == []


def test_schema_problems_carry_keyword_and_params():
    # GPU805 builds its messages from these, never from jsonschema's English.
    from gpulint.validate import schema as schema_check

    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"count": "two"}}]}},
    }
    problems = schema_check.check(claim, "dra-resourceclaim.schema.json")
    found = {(p.keyword, p.path, tuple(sorted(p.params.items()))) for p in problems}
    request = ("spec", "devices", "requests", 0, "exactly")
    assert ("required", request, (("property", "deviceClassName"),)) in found
    assert ("type", request + ("count",), (("types", ("integer",)),)) in found
