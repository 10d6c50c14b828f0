"""Recognising NVIDIA inputs by content: device plugin and GPU Operator chart values, the
plugin's config file (standalone, in a ConfigMap, in the chart's config.map), ClusterPolicy,
plugin DaemonSets; the --values-for override; schema problems at the offending key."""

from __future__ import annotations

from gpulint.model.nvidia import images, recognise
from tests.helpers import findings_json, lint, run_cli, where


def test_place_by_content():
    assert recognise.place({"migStrategy": "single"}) == [
        recognise.Placed(recognise.DEVICE_PLUGIN_CHART, ())
    ]
    assert recognise.place({"image": {"repository": "nvcr.io/nvidia/k8s-device-plugin"}})[
        0
    ].kind == (recognise.DEVICE_PLUGIN_CHART)
    operator_values = {"mig": {"strategy": "mixed"}, "driver": {"enabled": False}}
    assert recognise.place(operator_values)[0].kind == recognise.OPERATOR_CHART
    config = {"version": "v1", "sharing": {"timeSlicing": {}}}
    assert recognise.place(config)[0].kind == recognise.PLUGIN_CONFIG
    umbrella = {"nvidia-device-plugin": {"image": {"tag": "v0.17.4"}}, "other": {}}
    assert recognise.place(umbrella) == [
        recognise.Placed(recognise.DEVICE_PLUGIN_CHART, ("nvidia-device-plugin",))
    ]
    # Values of unrelated charts, and Kubernetes objects, are not placed.
    assert recognise.place({"image": {"repository": "rocm/k8s-device-plugin"}}) == []
    assert recognise.place({"replicaCount": 1, "version": "v0.16.2"}) == []
    assert recognise.place({"apiVersion": "v1", "kind": "ConfigMap", "flags": {}}) == []


def test_image_kinds():
    assert images.image_kind("nvcr.io/nvidia/k8s-device-plugin:v0.17.4") == images.DEVICE_PLUGIN
    assert images.image_kind("nvidia/k8s-device-plugin:1.0.0-beta4") == images.DEVICE_PLUGIN
    assert images.image_kind("nvcr.io/nvidia/gpu-feature-discovery:v0.8.2") == images.GFD
    assert images.image_kind("rocm/k8s-device-plugin:latest") is None
    assert images.image_kind("docker.io/rocm/k8s-device-plugin") is None
    assert images.core_version("v0.16.2-ubi8") == "v0.16.2"
    assert images.core_version("sha256:abc") is None


VERSION_ONLY = "version: v0.16.2\n"


def test_values_for_places_an_unrecognisable_values_file(tmp_path):
    assert lint(tmp_path, VERSION_ONLY, "--select", "GPU403", name="values.yaml") == []
    found = lint(
        tmp_path,
        VERSION_ONLY,
        "--select",
        "GPU403",
        "--values-for",
        "nvidia-device-plugin",
        name="values.yaml",
    )
    assert where(found) == [("GPU403", 1, 1)]
    message = found[0]["message"]
    assert "silently ignored by Helm" in message
    assert "image.tag: v0.16.2" in message and "--version 0.16.2" in message


def test_values_for_gpu_operator(tmp_path):
    text = "devicePlugin:\n  enabled: true\nmig:\n  strategy: hybrid\n"
    assert lint(tmp_path, text, "--select", "GPU402", name="values.yaml") == []
    found = lint(
        tmp_path, text, "--select", "GPU402", "--values-for", "gpu-operator", name="values.yaml"
    )
    assert where(found) == [("GPU402", 4, 13)]


def test_values_for_rejects_unknown_chart(tmp_path):

    result = run_cli("check", "--values-for", "nginx", str(tmp_path))
    assert result.exit_code == 2


def test_schema_problems_at_the_offending_key(tmp_path):
    text = """\
    migStrategy: single
    deviceIDStrategy: uid
    image:
      repositry: nvcr.io/nvidia/k8s-device-plugin
      tag: v0.17.4
    config:
      fallbackStrategies: [named, first]
    failOnInitError: "false"
    tolerations: {}
    """
    found = lint(tmp_path, text, "--select", "GPU403", name="values.yaml")
    assert where(found) == [
        ("GPU403", 2, 19),
        ("GPU403", 4, 3),
        ("GPU403", 7, 31),
        ("GPU403", 8, 18),
        ("GPU403", 9, 14),
    ]
    messages = [f["message"] for f in found]
    assert "did you mean 'uuid'" in messages[0]
    assert messages[1].startswith("unknown key 'repositry': the chart never reads it")
    assert messages[1].endswith("did you mean 'repository'?")
    assert "'first' is not one of named, single, empty" in messages[2]
    assert 'typeIs "bool"' in messages[3] and "FAIL_ON_INIT_ERROR" in messages[3]
    assert "tolerations" in messages[4]


def test_umbrella_values_are_checked_under_the_subchart_key(tmp_path):
    text = """\
    nvidia-device-plugin:
      version: v0.17.4
      image:
        tag: latest
    """
    found = lint(tmp_path, text, "--select", "GPU401,GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 2, 3), ("GPU401", 4, 10)]


def test_config_file_in_configmap_and_chart_map(tmp_path):
    configmap = """\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: plugin-configs
    data:
      notes.txt: "version: 2, flags everywhere"
      ts: |-
        version: v1
        sharing:
          timeSlicing:
            resources:
            - name: nvidia.com/gpu
              replica: 4
    """
    found = lint(tmp_path, configmap, "--select", "GPU404")
    # the entry key holds the finding; the inner path is in the message. One mistake, one
    # finding: the misspelt key is why the plugin fails, so it is named in that error.
    assert where(found) == [("GPU404", 7, 3)]
    assert found[0]["message"].endswith(
        "\"no replicas specified\" (it holds unknown key 'replica' (did you mean 'replicas'?))"
    )
    assert found[0]["resource"]["kind"] == "ConfigMap"


def test_cluster_policy_and_daemonset_sites(tmp_path):
    text = """\
    apiVersion: nvidia.com/v1
    kind: ClusterPolicy
    metadata:
      name: gpu-cluster-policy
    spec:
      mig:
        strategy: Single
    ---
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: gfd
    spec:
      template:
        spec:
          containers:
          - name: gfd
            image: nvcr.io/nvidia/gpu-feature-discovery:v0.8.2
            args: ["--mig-strategy", "mixd"]
          - name: plugin
            image: registry.local/mirror/nvidia/k8s-device-plugin:v0.17.4
            command: ["sh", "-c", "nvidia-device-plugin --mig-strategy=singel"]
    """
    found = lint(tmp_path, text, "--select", "GPU402")
    assert where(found) == [("GPU402", 7, 15), ("GPU402", 19, 34), ("GPU402", 22, 31)]
    assert "did you mean 'single'" in found[0]["message"]
    assert '"unknown MIG strategy: mixd"' in found[1]["message"]


def test_rocm_plugin_is_not_nvidia(tmp_path):
    text = """\
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: amdgpu-device-plugin-daemonset
    spec:
      template:
        spec:
          containers:
          - name: amdgpu-dp-cntr
            image: rocm/k8s-device-plugin
    """
    assert lint(tmp_path, text, "--select", "GPU4") == []


def test_values_file_in_a_folder_with_workloads(tmp_path, write):
    write("deploy/values.yaml", "migStrategy: single\nimage:\n  tag: v0.17.4\n")
    write(
        "deploy/pod.yaml",
        """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
        spec:
          containers:
          - name: c
            image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
            resources:
              limits:
                nvidia.com/mig-3g.40gb: 1
        """,
    )
    found = findings_json(str(tmp_path / "deploy"), "--select", "GPU504")["findings"]
    assert where(found) == [("GPU504", 11, 9)]
    assert found[0]["path"].endswith("pod.yaml")
    assert "uses MIG strategy single;" in found[0]["message"]
    (other,) = found[0]["related"]
    assert other["path"].endswith("values.yaml") and (other["line"], other["column"]) == (1, 14)
    assert other["message"] == "nvidia-device-plugin values: MIG strategy single"


def test_other_nvidia_charts_values_are_not_the_device_plugins(tmp_path):
    # The DRA driver chart shares nvidiaDriverRoot and a few generic keys, nothing else.
    text = """\
    nvidiaDriverRoot: /
    nameOverride: ""
    resources: {limits: {memory: 1Gi}}
    featureGates: {}
    controller: {}
    kubeletPlugin: {}
    webhook: {}
    """
    assert lint(tmp_path, text, "--select", "GPU4", name="values.yaml") == []


def test_operator_asset_placeholders_are_not_strategies(tmp_path):
    text = """\
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: nvidia-operator-validator
    spec:
      template:
        spec:
          containers:
          - name: plugin-validation
            image: "FILLED BY THE OPERATOR"
            env:
            - name: MIG_STRATEGY
              value: "FILLED BY OPERATOR"
    """
    assert lint(tmp_path, text, "--select", "GPU402") == []


def test_gpu_operator_values_device_plugin_blocks(tmp_path):
    text = """\
    driver:
      enabled: false
      anything: goes
    toolkit: {enabled: true}
    mig:
      strategy: mixed
    devicePlugin:
      enabled: true
      repository: nvcr.io/nvidia
      image: k8s-device-plugin
      verison: v0.17.4
      config:
        create: "true"
        name: plugin-configs
        default: any
        data:
          any: |-
            version: v1
            sharing:
              timeSlicing:
                resources:
                - name: nvidia.com/gpu
                  replicas: 1
      mps:
        root: /run/nvidia/mps
    gfd:
      enabled: true
      version: v0.17.4
    devicePluginConfig: {}
    """
    found = lint(tmp_path, text, "--select", "GPU403,GPU404", name="values.yaml")
    assert where(found) == [("GPU403", 11, 3), ("GPU403", 13, 13), ("GPU403", 29, 1)]
    assert found[0]["message"].endswith("did you mean 'version'?")
    assert "the gpu-operator chart never reads it" in found[0]["message"]
    # with create: true (a boolean), the chart builds the ConfigMap and GPU404 reads data
    fixed = text.replace('create: "true"', "create: true")
    found = lint(tmp_path, fixed, "--select", "GPU404", name="values.yaml")
    assert where(found) == [("GPU404", 17, 7)]
    assert "config 'any' in devicePlugin.config.data" in found[0]["message"]


def test_mig_strategy_of_the_wrong_type_is_a_type_problem(tmp_path, write):
    # The chart drops a non-string (typeIs "string"); a config file fails to parse.
    found = lint(tmp_path, "migStrategy: 1\n", "--select", "GPU402,GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 1, 14)]
    assert "MIG_STRATEGY is silently dropped" in found[0]["message"]
    config = "version: v1\nflags:\n  migStrategy: [mixed]\n"
    found = lint(tmp_path, config, "--select", "GPU402,GPU404", name="config.yaml")
    assert where(found) == [("GPU404", 3, 16)]
    assert "unable to parse config file" in found[0]["message"]
