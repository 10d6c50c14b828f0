"""GPU601 and GPU602: shared GPUs (time-slicing, MPS), across files (GPU504: gpu5xx/)."""

from __future__ import annotations

from tests.helpers import findings_json, gpu_workload, lint, related, where

# GPU504 ---------------------------------------------------------------------------------


# GPU601 ---------------------------------------------------------------------------------


PORTS = "ports: [{containerPort: 8000}]"  # a server: it answers on a port


def test_gpu601_shared_resource_and_selector(tmp_path):
    shared = gpu_workload(
        "Deployment", "            nvidia.com/gpu.shared: 1\n", name="a", extra=PORTS
    )
    selected = gpu_workload(
        "StatefulSet",
        "            nvidia.com/gpu: 1\n",
        after="      nodeSelector:\n        nvidia.com/gpu.sharing-strategy: time-slicing\n",
        name="b",
        extra=PORTS,
    )
    batch = gpu_workload("Job", "            nvidia.com/gpu.shared: 1\n", name="c")
    found = lint(tmp_path, "---\n".join([shared, selected, batch]), "--select", "GPU601")
    assert where(found) == [("GPU601", 14, 13), ("GPU601", 31, 9)]
    assert "nvidia.com/gpu.sharing-strategy=time-slicing" in found[1]["message"]


def test_gpu601_a_probe_a_deployment_keeps_running_serves_nobody(tmp_path):
    # A time-slicing check (gpu-slicing-on-aws-eks): replicas loop vectorAdd on a shared GPU.
    loop = 'command: ["bash", "-c", "while true; do /cuda-samples/vectorAdd; done"]'
    probe = gpu_workload("Deployment", "            nvidia.com/gpu.shared: 1\n", extra=loop)
    assert lint(tmp_path, probe, "--select", "GPU601") == []
    server = probe.replace("/cuda-samples/vectorAdd", "python -m vllm.entrypoints.api_server")
    assert where(lint(tmp_path, server, "--select", "GPU601")) == [("GPU601", 14, 13)]
    # A Deployment that runs a training script answers nobody (eks-gpu-sharing-demo's
    # cifar10-train); a port or a readiness probe says it serves.
    train = probe.replace("while true; do /cuda-samples/vectorAdd; done", "python train.py")
    assert lint(tmp_path, train, "--select", "GPU601") == []
    ported = gpu_workload("Deployment", "            nvidia.com/gpu.shared: 1\n", extra=PORTS)
    assert where(lint(tmp_path, ported, "--select", "GPU601")) == [("GPU601", 14, 13)]


def test_gpu601_a_service_that_selects_the_pods_says_they_serve(tmp_path):
    # UntouchedWagons/K3S-NVidia's Jellyfin: a Deployment with no ports of its own, and a
    # Service in front of it.
    app = gpu_workload("Deployment", "            nvidia.com/gpu.shared: 1\n").replace(
        "  template:\n", "  template:\n    metadata:\n      labels: {app: jellyfin, tier: media}\n"
    )
    service = (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: jellyfin\n"
        "spec:\n  selector: {selector}\n  ports: [{{port: 8096}}]\n"
    )
    assert lint(tmp_path, app, "--select", "GPU601") == []
    selected = app + "---\n" + service.format(selector="{app: jellyfin}")
    assert where(lint(tmp_path, selected, "--select", "GPU601")) == [("GPU601", 16, 13)]
    for other in ("{app: plex}", "{app: jellyfin, tier: web}", "{}"):
        text = app + "---\n" + service.format(selector=other)
        assert lint(tmp_path, text, "--select", "GPU601") == [], other
    # A headless Service names peers (a training StatefulSet's rendezvous): no requests.
    headless = selected.replace(
        "  ports: [{port: 8096}]", "  clusterIP: None\n  ports: [{port: 8096}]"
    )
    assert "clusterIP: None" in headless
    assert lint(tmp_path, headless, "--select", "GPU601") == []
    elsewhere = selected.replace("  name: jellyfin\n", "  name: jellyfin\n  namespace: other\n")
    elsewhere = elsewhere.replace("  name: w\n", "  name: w\n  namespace: media\n")
    assert lint(tmp_path, elsewhere, "--select", "GPU601") == []


def test_gpu601_resource_replicated_by_a_config_in_another_path(tmp_path, write):
    config = write(
        "cluster/time-slicing.yaml",
        """\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: time-slicing-config
        data:
          any: |-
            version: v1
            sharing:
              timeSlicing:
                resources:
                - name: nvidia.com/gpu
                  replicas: 4
        """,
    )
    pod = write(
        "apps/pod.yaml",
        """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: api
        spec:
          containers:
          - name: server
            image: registry.example.com/api:1.0
            readinessProbe: {httpGet: {path: /health, port: 8000}}
            resources:
              limits:
                nvidia.com/gpu: 1
        """,
    )
    found = findings_json(str(config), str(pod), "--select", "GPU601")["findings"]
    assert where(found) == [("GPU601", 12, 9)]
    message = found[0]["message"]
    assert "ConfigMap time-slicing-config" in message and "time-slicing x4" in message
    assert "time-slicing.yaml" not in message
    assert related(found[0]) == [
        (
            "time-slicing.yaml",
            6,
            3,
            "config 'any' in ConfigMap time-slicing-config shares nvidia.com/gpu by time-slicing",
        )
    ]
    # alone, the pod is not known to share anything
    assert findings_json(str(pod), "--select", "GPU601")["findings"] == []


def test_gpu601_renamed_resources_and_infrastructure(tmp_path, write):
    write(
        "config.yaml",
        "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n"
        "    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n",
    )
    write("web.yaml", gpu_workload("Deployment", "            nvidia.com/gpu: 1\n"))
    plugin = gpu_workload(
        "Deployment", "            nvidia.com/gpu.shared: 1\n", name="exporter"
    ).replace("registry.example.com/app:1.0", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5")
    write("exporter.yaml", plugin)
    # renamed: plain nvidia.com/gpu is not shared, and infrastructure is exempt
    assert findings_json(str(tmp_path), "--select", "GPU601")["findings"] == []


# GPU602 ---------------------------------------------------------------------------------


def test_gpu602_more_than_one_shared_replica(tmp_path, write):
    write("two.yaml", gpu_workload("Job", "            nvidia.com/gpu.shared: 2\n"))
    write("one.yaml", gpu_workload("Job", "            nvidia.com/gpu.shared: 1\n", name="one"))
    found = findings_json(str(tmp_path), "--select", "GPU602")["findings"]
    assert where(found) == [("GPU602", 14, 13)]
    assert found[0]["path"].endswith("two.yaml")
    assert "maximum request size for shared resources is 1" in found[0]["message"]


def test_gpu602_mps_config_rejects_by_default(tmp_path, write):
    write(
        "values.yaml",
        "config:\n  map:\n    default: |-\n      version: v1\n      sharing:\n"
        "        mps:\n          resources:\n          - name: nvidia.com/gpu\n"
        "            replicas: 4\n",
    )
    write("job.yaml", gpu_workload("Job", "            nvidia.com/gpu: 2\n"))
    found = findings_json(str(tmp_path), "--select", "GPU602")["findings"]
    assert where(found) == [("GPU602", 14, 13)]
    assert "the kubelet rejects it" in found[0]["message"]
    assert "config 'default' in config.map" in found[0]["message"]
    assert related(found[0]) == [
        ("values.yaml", 3, 5, "config 'default' in config.map shares nvidia.com/gpu by mps")
    ]


def test_gpu601_and_gpu602_on_a_shared_product(tmp_path):
    text = gpu_workload(
        "Deployment",
        "            nvidia.com/gpu: 2\n",
        after="      nodeSelector:\n        nvidia.com/gpu.product: Tesla-T4-SHARED\n",
        extra=PORTS,
    )
    found = lint(tmp_path, text, "--select", "GPU601,GPU602")
    assert where(found) == [("GPU602", 14, 13), ("GPU601", 16, 9)]
    assert "nvidia.com/gpu.product=Tesla-T4-SHARED" in found[1]["message"]
    assert "on nodes selected by nvidia.com/gpu.product=Tesla-T4-SHARED" in found[0]["message"]
