"""GPU501-503: MIG profiles and MIG requests, through the CLI."""

from __future__ import annotations

from tests.helpers import lint, where


def pod(resources: str, spec: str = "", kind: str = "Pod") -> str:
    """A pod with one container; ``resources`` and ``spec`` are YAML at their indent."""
    return f"""
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
{spec}  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
{resources}"""


LIMIT = "        limits:\n          {}: {}\n"


# --- GPU501 mig-profile-unknown --------------------------------------------------------------


def test_unknown_profile_reported_at_the_limit_with_suggestions(tmp_path):
    found = lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-4g.5gb", 1)), "--select", "GPU501")
    assert where(found) == [("GPU501", 11, 11)]
    message = found[0]["message"]
    assert "'4g.5gb'" in message
    assert "nvidia.com/mig-4g.20gb" in message and "nvidia.com/mig-1g.5gb" in message
    assert "Insufficient nvidia.com/mig-4g.5gb" in message


def test_unknown_profile_in_requests_and_limits_is_reported_once_at_the_limit(tmp_path):
    resources = (
        "        requests:\n          nvidia.com/mig-2g.11gb: 1\n"
        "        limits:\n          nvidia.com/mig-2g.11gb: 1\n"
    )
    found = lint(tmp_path, pod(resources), "--select", "GPU501")
    assert where(found) == [("GPU501", 13, 11)]


def test_case_slip_suggests_the_lower_case_profile(tmp_path):
    found = lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5GB", 1)), "--select", "GPU501")
    assert where(found) == [("GPU501", 11, 11)]
    assert "did you mean 'nvidia.com/mig-1g.5gb'" in found[0]["message"]


def test_compute_instance_profile_is_explained(tmp_path):
    found = lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1c.3g.20gb", 1)), "--select", "GPU501")
    assert "nvidia.com/mig-3g.20gb" in found[0]["message"]
    assert "compute-instance profiles" in found[0]["message"]


def test_known_profiles_are_silent(tmp_path):
    resources = (
        "        limits:\n"
        "          nvidia.com/mig-1g.6gb: 1\n"  # A30 only, still a real profile
        "          nvidia.com/mig-1g.10gb.me: 1\n"  # +me written as .me
        "          nvidia.com/mig-3g.40gb.shared: 1\n"  # time-sliced replica
    )
    assert lint(tmp_path, pod(resources), "--select", "GPU501") == []


# --- GPU502 mig-profile-unsupported ----------------------------------------------------------

A100_80 = "  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB\n"


def test_profile_of_another_gpu_on_the_selected_product(tmp_path):
    found = lint(
        tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5gb", 1), A100_80), "--select", "GPU502"
    )
    assert where(found) == [("GPU502", 13, 11)]
    message = found[0]["message"]
    assert "NVIDIA-A100-SXM4-80GB offers 1g.10gb" in message
    assert "did you mean nvidia.com/mig-1g.10gb?" in message


def test_product_without_mig(tmp_path):
    spec = "  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-L4\n"
    found = lint(
        tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.10gb", 1), spec), "--select", "GPU502"
    )
    assert where(found) == [("GPU502", 13, 11)]
    assert "NVIDIA-L4 does not support MIG" in found[0]["message"]


def test_label_without_nvidia_prefix_is_the_same_gpu(tmp_path):
    spec = "  nodeSelector:\n    nvidia.com/gpu.product: A100-SXM4-40GB\n"
    found = lint(
        tmp_path, pod(LIMIT.format("nvidia.com/mig-2g.20gb", 1), spec), "--select", "GPU502"
    )
    assert where(found) == [("GPU502", 13, 11)]
    assert (
        lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-2g.10gb", 1), spec), "--select", "GPU502")
        == []
    )


AFFINITY = """  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
{terms}"""
TERM = """          - matchExpressions:
              - key: nvidia.com/gpu.product
                operator: {op}
                values: [{values}]
"""


def test_any_selected_product_offering_the_profile_keeps_it_silent(tmp_path):
    terms = TERM.format(op="In", values="NVIDIA-A100-SXM4-40GB, NVIDIA-A100-SXM4-80GB")
    spec = AFFINITY.format(terms=terms)
    assert (
        lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5gb", 1), spec), "--select", "GPU502")
        == []
    )


def test_every_affinity_term_is_considered(tmp_path):
    terms = TERM.format(op="In", values="NVIDIA-L4") + TERM.format(op="In", values="NVIDIA-L40S")
    spec = AFFINITY.format(terms=terms)
    found = lint(
        tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5gb", 1), spec), "--select", "GPU502"
    )
    assert [f["code"] for f in found] == ["GPU502"]
    assert "NVIDIA-L4 does not support MIG" in found[0]["message"]
    assert "NVIDIA-L40S does not support MIG" in found[0]["message"]
    # A term without a product requirement lets the pod run anywhere.
    open_term = (
        "          - matchExpressions:\n              - {key: zone, operator: In, values: [a]}\n"
    )
    spec = AFFINITY.format(terms=TERM.format(op="In", values="NVIDIA-L4") + open_term)
    assert (
        lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5gb", 1), spec), "--select", "GPU502")
        == []
    )


def test_unknown_or_excluded_products_are_silent(tmp_path):
    unknown = "  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-Future-GPU\n"
    assert (
        lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5gb", 1), unknown), "--select", "GPU502")
        == []
    )
    not_in = AFFINITY.format(terms=TERM.format(op="NotIn", values="NVIDIA-L4"))
    assert (
        lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.5gb", 1), not_in), "--select", "GPU502")
        == []
    )


# --- GPU503 mig-request-mixed ----------------------------------------------------------------


def test_two_devices_of_one_profile(tmp_path):
    found = lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.10gb", 2)), "--select", "GPU503")
    assert where(found) == [("GPU503", 11, 11)]
    assert "2 MIG devices" in found[0]["message"]


def test_full_gpu_together_with_a_mig_device(tmp_path):
    resources = (
        "        limits:\n          nvidia.com/gpu: 1\n          nvidia.com/mig-1g.10gb: 1\n"
    )
    found = lint(tmp_path, pod(resources), "--select", "GPU503")
    assert where(found) == [("GPU503", 12, 11)]
    assert "nvidia.com/gpu: 1 together with nvidia.com/mig-1g.10gb: 1" in found[0]["message"]


def test_two_profiles_in_one_container(tmp_path):
    resources = (
        "        limits:\n"
        "          nvidia.com/mig-1g.10gb: 1\n"
        "          nvidia.com/mig-2g.20gb: 1\n"
    )
    found = lint(tmp_path, pod(resources), "--select", "GPU503")
    assert where(found) == [("GPU503", 11, 11)]


def test_one_device_or_shared_replicas_alone_are_silent(tmp_path):
    assert (
        lint(tmp_path, pod(LIMIT.format("nvidia.com/mig-1g.10gb", 1)), "--select", "GPU503") == []
    )
    shared = pod(LIMIT.format("nvidia.com/mig-1g.10gb.shared", 2))
    assert lint(tmp_path, shared, "--select", "GPU503") == []


DRA_CLASS = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: mig.example.com
spec:
  selectors:
    - cel:
        expression: "device.attributes['gpu.nvidia.com'].profile == '{profile}'"
  extendedResourceName: nvidia.com/mig-{resource}
"""


def test_dra_selector_and_extended_resource_name_profiles(tmp_path):
    text = DRA_CLASS.format(profile="3g.20gbb", resource="3g.2ogb")
    found = lint(tmp_path, text, "--select", "GPU501")
    assert where(found) == [("GPU501", 8, 21), ("GPU501", 9, 25)]
    assert "did you mean '3g.20gb'" in found[0]["message"]
    assert "extendedResourceName nvidia.com/mig-3g.2ogb" in found[1]["message"]
    # The driver's attribute spells +me; the resource name spells .me.
    good = DRA_CLASS.format(profile="1g.10gb+me", resource="1g.10gb.me")
    assert lint(tmp_path, good, "--select", "GPU501") == []


def test_selectors_of_other_drivers_are_not_read(tmp_path):
    text = DRA_CLASS.format(profile="gold", resource="1g.10gb").replace(
        "gpu.nvidia.com", "nic.example.com"
    )
    assert lint(tmp_path, text, "--select", "GPU501") == []


MIG_TEMPLATE = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: mig-devices
spec:
  spec:
    devices:
      requests:
        - name: small
          exactly:
            deviceClassName: mig.nvidia.com
            count: {count}
        - name: big
          exactly:
            deviceClassName: mig.nvidia.com
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  resourceClaims:
    - name: mig
      resourceClaimTemplateName: mig-devices
  containers:
    - name: c
      image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
      resources:
        claims:
          - name: mig{request}
"""


def test_dra_claim_with_several_mig_devices(tmp_path):
    found = lint(tmp_path, MIG_TEMPLATE.format(count=1, request=""), "--select", "GPU503")
    assert where(found) == [("GPU503", 30, 13)]
    assert "gets 2 MIG devices" in found[0]["message"]
    assert "claim 'mig' request 'big'" in found[0]["message"]


def test_dra_container_naming_one_request(tmp_path):
    one = MIG_TEMPLATE.format(count=1, request="\n            request: small")
    assert lint(tmp_path, one, "--select", "GPU503") == []
    # ...unless that request itself asks for two devices.
    two = MIG_TEMPLATE.format(count=2, request="\n            request: small")
    found = lint(tmp_path, two, "--select", "GPU503")
    assert where(found) == [("GPU503", 30, 13)]


def test_gpu501_placeholder_profile_is_not_judged(tmp_path):
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      image: x/y:1
      resources:
        limits: {"nvidia.com/mig-${PROFILE}": 1, nvidia.com/mig-1g.11gb: 1}
"""
    found = lint(tmp_path, text, "--select", "GPU501")
    assert [f["message"].split(":")[0] for f in found] == ["nvidia.com/mig-1g.11gb"]
