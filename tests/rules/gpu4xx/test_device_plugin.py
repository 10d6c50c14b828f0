"""GPU401-GPU407: the device plugin and GPU Operator deployments, at exact positions."""

from __future__ import annotations

import pytest

from tests.helpers import findings_json, lint, where


def _daemonset(image: str, name: str = "nvidia-device-plugin", extra: str = "") -> str:
    """A plugin DaemonSet; the image is on line 12, column 16."""
    return f"""\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {name}
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: plugin
        {extra or "args: []"}
        image: {image}
"""


# GPU401 ---------------------------------------------------------------------------------


def test_gpu401_latest_and_untagged_plugin_and_gfd_images(tmp_path):
    text = "---\n".join(
        [
            _daemonset("nvcr.io/nvidia/k8s-device-plugin:latest", "a"),
            _daemonset("nvcr.io/nvidia/k8s-device-plugin", "b"),
            _daemonset("nvcr.io/nvidia/gpu-feature-discovery:latest", "c"),
            _daemonset("nvcr.io/nvidia/k8s-device-plugin@sha256:" + "a" * 64, "d"),
            _daemonset("nvcr.io/nvidia/k8s-device-plugin:v0.17.4", "e"),
        ]
    )
    found = lint(tmp_path, text, "--select", "GPU401")
    assert where(found) == [("GPU401", 12, 16), ("GPU401", 25, 16), ("GPU401", 38, 16)]
    assert "uses the tag 'latest'" in found[0]["message"]
    assert "has no tag" in found[1]["message"]
    assert found[2]["message"].startswith("GPU feature discovery image")
    # The plugin runs; nodes drift apart: misbehaviour, the warning tier.
    assert found[0]["severity"] == "warning"


def test_gpu401_leaves_placeholder_images_alone(tmp_path):
    text = "---\n".join(
        [
            _daemonset("<your-registry>/k8s-device-plugin", "a"),
            _daemonset("${REGISTRY}/k8s-device-plugin", "b"),
            _daemonset("__REGISTRY__/nvidia/k8s-device-plugin", "c"),
            _daemonset("registry.local/nvidia/k8s-device-plugin", "d"),
        ]
    )
    found = lint(tmp_path, text, "--select", "GPU401")
    assert where(found) == [("GPU401", 51, 16)]


def test_gpu401_values_and_operator(tmp_path, write):
    write("dp/values.yaml", "migStrategy: none\nimage:\n  tag: latest\n")
    write(
        "op/values.yaml",
        "driver: {enabled: false}\ntoolkit: {enabled: true}\n"
        "devicePlugin:\n  version: latest\ngfd:\n  version: v0.17.4\n",
    )
    write(
        "cp.yaml",
        """\
        apiVersion: nvidia.com/v1
        kind: ClusterPolicy
        metadata:
          name: gpu-cluster-policy
        spec:
          devicePlugin:
            image: nvcr.io/nvidia/k8s-device-plugin
          gfd:
            version: Latest
        """,
    )
    found = findings_json(str(tmp_path), "--select", "GPU401")["findings"]
    assert [(f["path"].split("/")[-2:], f["line"], f["column"]) for f in found] == [
        ([tmp_path.name, "cp.yaml"], 7, 12),
        ([tmp_path.name, "cp.yaml"], 9, 14),
        (["dp", "values.yaml"], 3, 8),
        (["op", "values.yaml"], 4, 12),
    ]
    assert "ClusterPolicy gpu-cluster-policy" in found[0]["message"]


# GPU402 ---------------------------------------------------------------------------------


def test_gpu402_values_config_and_env(tmp_path, write):
    write("values.yaml", "migStrategy: mixed\nimage:\n  tag: v0.17.4\n")
    write("config.yaml", "version: v1\nflags:\n  migStrategy: all\n")
    write(
        "ds.yaml",
        _daemonset(
            "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
            extra="env: [{name: MIG_STRATEGY, value: none}, {name: MIG_STRATEGY, value: '$(S)'}]",
        ),
    )
    found = findings_json(str(tmp_path), "--select", "GPU402")["findings"]
    assert where(found) == [("GPU402", 3, 16)]
    assert found[0]["path"].endswith("config.yaml")


# GPU403 ---------------------------------------------------------------------------------


def test_gpu403_chart_failures_and_ignored_keys(tmp_path):
    text = """\
    namespace: gpu
    migStrategy: none
    config:
      name: external
      map:
        a: "version: v1\\nflags: {migStrategy: none}"
        b: "version: v1\\nflags: {migStrategy: single}"
    gfd:
      enabled: true
      noTimestamp: true
    """
    found = lint(tmp_path, text, "--select", "GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 1, 1), ("GPU403", 5, 3), ("GPU403", 5, 3), ("GPU403", 10, 3)]
    messages = [f["message"] for f in found]
    assert "no longer supported" in messages[0]
    assert "Only one of 'config.name' or 'config.map'" in " ".join(messages[1:3])
    assert "A default config must be provided" in " ".join(messages[1:3])
    assert "top-level 'noTimestamp'" in messages[3]


def test_gpu403_an_unknown_key_set_to_null_changes_nothing(tmp_path):
    # An older chart's defaults (v0.14's legacyDaemonsetAPI: null, eks-gpu-sharing-demo).
    text = (
        "migStrategy: none\nfailOnInitError: true\ndeviceListStrategy: envvar\n"
        "legacyDaemonsetAPI: null\nlegacyDaemonsetAPY: true\n"
    )
    found = lint(tmp_path, text, "--select", "GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 5, 1)]


def test_gpu403_operator_validator_block(tmp_path):
    # civo-learn/civo-gpu-operator-tf: validator.enabled is read by no template (the
    # validator always runs); the keys clusterpolicy.yaml reads pass
    text = """\
    operator:
      defaultRuntime: containerd
    driver:
      enabled: false
    validator:
      enabled: false
      repository: nvcr.io/nvidia
      hostNetwork: true
      plugin:
        env:
          - {name: WITH_WORKLOAD, value: "false"}
        tolerations: []
      driver:
        env: []
    """
    found = lint(tmp_path, text, "--select", "GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 6, 3), ("GPU403", 12, 5)]
    assert found[0]["message"].startswith("unknown key 'enabled': the gpu-operator chart never")
    assert "'tolerations'" in found[1]["message"]


def test_gpu403_operator_plugin_config_data_that_is_no_string_fails_the_install(tmp_path):
    # selectel/gpu-sharing-k8s: a config written as a mapping under devicePlugin.config.data
    text = """\
    operator:
      defaultRuntime: containerd
    driver:
      enabled: true
    mig:
      strategy: single
    devicePlugin:
      config:
        create: true
        name: plugin-config
        default: any
        data:
          any:
            version: v1
          count: 3
          fine: |-
            version: v1
    """
    found = lint(tmp_path, text, "--select", "GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 14, 9), ("GPU403", 15, 14)]
    assert {f["severity"] for f in found} == {"error"}
    assert found[0]["message"].startswith(
        "devicePlugin.config.data.any is a mapping, not a string: the chart writes it into the "
        "ConfigMap's data, which the API server rejects (\"json: cannot unmarshal object into "
        'Go struct field ConfigMap.data of type string")'
    )
    assert "cannot unmarshal number" in found[1]["message"]


def test_gpu403_chart_defaults_are_clean(tmp_path):
    text = """\
    config:
      name: ""
      map: {}
      default: ""
      fallbackStrategies: ["named", "single"]
    compatWithCPUManager: null
    migStrategy: null
    failOnInitError: null
    deviceListStrategy: "envvar,volume-mounts"
    nameOverride: ""
    image:
      repository: nvcr.io/nvidia/k8s-device-plugin
      pullPolicy: IfNotPresent
      tag: ""
    resources: {}
    devicePlugin:
      enabled: true
    gfd:
      enabled: false
      noTimestamp: null
    nfd:
      worker:
        anything: goes
    mps:
      root: "/run/nvidia/mps"
      enableHostPID: true
    """
    assert lint(tmp_path, text, "--select", "GPU4", name="values.yaml") == []


# GPU404 ---------------------------------------------------------------------------------


def test_gpu404_standalone_config_problems(tmp_path):
    text = """\
    version: v2
    Flags:
      migStrategy: mixed
      failOnInitError: "yes please"
    resources:
      gpus: [{pattern: "*", name: gpu}]
    sharing:
      timeSlicing:
        resources:
        - name: gpu
          replicas: 4
          devices: [0, 1]
      mps:
        resources:
        - name: nvidia.com/gpu
          replicas: 2
          devices: some
    """
    found = lint(tmp_path, text, "--select", "GPU404", name="config.yaml")
    assert where(found) == [
        ("GPU404", 1, 10),
        ("GPU404", 3, 16),
        ("GPU404", 4, 20),
        ("GPU404", 5, 1),
        ("GPU404", 12, 16),
        ("GPU404", 13, 3),
        ("GPU404", 17, 16),
    ]
    messages = [f["message"] for f in found]
    assert "unknown version: v2" in messages[0]
    assert "using --mig-strategy=mixed is not supported with MPS" in messages[1]
    assert "unable to parse config file" in messages[2]  # Flags matched case-insensitively
    assert "Customizing the 'resources' field" in messages[3]
    assert "ignored" in messages[4]
    assert "mutually exclusive" in messages[5]
    assert "the only valid string input is 'all'" in messages[6]
    # What stops the plugin is an error; what it starts without, a warning.
    severities = [f["severity"] for f in found]
    assert severities == ["error", "error", "error", "warning", "warning", "error", "error"]


def test_gpu404_and_gpu403_leave_a_placeholder_to_whoever_fills_it_in(tmp_path):
    # A Flux postBuild ${VAR:=default} (or envsubst's $VAR) is replaced before the plugin or
    # Helm reads it: not a string where an integer or a boolean belongs.
    config = """\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: time-slicing-config
    data:
      any: |-
        version: v1
        flags:
          failOnInitError: "yes please"
        sharing:
          timeSlicing:
            resources:
              - name: nvidia.com/gpu
                replicas: ${REPLICAS:=4}
    """
    found = lint(tmp_path, config, "--select", "GPU404", name="config.yaml")
    assert where(found) == [("GPU404", 6, 3)]  # at the ConfigMap's key of the config
    assert "at flags.failOnInitError:" in found[0]["message"]  # the string that stays one
    plugin = "migStrategy: none\nfailOnInitError: ${FAIL_ON_INIT}\nnvidiaDriverRoot: 7\n"
    found = lint(tmp_path, plugin, "--select", "GPU403", name="values.yaml")
    assert where(found) == [("GPU403", 3, 19)]
    operator = "devicePlugin:\n  enabled: ${PLUGIN_ENABLED}\n  imagePullPolicy: Sometimes\n"
    found = lint(tmp_path, operator, "--select", "GPU403", "--values-for", "gpu-operator")
    assert where(found) == [("GPU403", 3, 20)]


def test_gpu404_empty_sharing_and_missing_name(tmp_path):
    text = """\
    version: v1
    sharing:
      timeSlicing:
        resources: []
      mps:
        resources:
        - replicas: 3
    """
    found = lint(tmp_path, text, "--select", "GPU404", name="config.yaml")
    assert where(found) == [("GPU404", 4, 5), ("GPU404", 5, 3), ("GPU404", 7, 7)]
    assert '"no resources specified"' in found[0]["message"]
    assert '"no resource name specified"' in found[2]["message"]


def test_gpu404_replicas_one_level_too_high_is_one_error(tmp_path):
    # Seen in a JupyterHub repository: replicas beside resources instead of inside an entry.
    # The plugin fails on the section ("no resources specified"); the unknown key is why, so it
    # is named in that error, not reported again as a key the plugin ignores.
    text = """\
    version: v1
    sharing:
      timeSlicing:
        replicas: 4
        renameByDefaut: true
    """
    found = lint(tmp_path, text, "--select", "GPU404", name="config.yaml")
    assert [(f["code"], f["line"], f["column"], f["severity"]) for f in found] == [
        ("GPU404", 3, 3, "error")
    ]
    assert found[0]["message"].endswith(
        "the plugin fails: \"no resources specified\" (it holds unknown keys 'replicas', "
        "'renameByDefaut' (did you mean 'renameByDefault'?))"
    )
    # An unknown key where the plugin does start is still reported on its own, as ignored.
    text = text.replace("replicas: 4", "resources: [{name: nvidia.com/gpu, replicas: 4}]")
    found = lint(tmp_path, text, "--select", "GPU404", name="config.yaml")
    assert [(f["line"], f["column"], f["severity"]) for f in found] == [(5, 5, "warning")]


def test_gpu404_valid_config_is_clean(tmp_path):
    text = """\
    version: v1
    flags:
      migStrategy: single
      plugin:
        deviceListStrategy: [envvar, cdi-cri]
    sharing:
      timeSlicing:
        renameByDefault: true
        failRequestsGreaterThanOne: true
        resources:
        - name: nvidia.com/gpu
          replicas: 4
          devices: all
    """
    assert lint(tmp_path, text, "--select", "GPU404", name="config.yaml") == []


# GPU405 ---------------------------------------------------------------------------------


def test_gpu405_hand_written_only(tmp_path):
    helm = 'labels: {"helm.sh/chart": nvidia-device-plugin-0.17.4}'
    static = _daemonset("nvcr.io/nvidia/k8s-device-plugin:v0.17.4", "static")
    charted = _daemonset("nvcr.io/nvidia/k8s-device-plugin:v0.17.4", "charted").replace(
        "  namespace: kube-system\n", f"  namespace: kube-system\n  {helm}\n"
    )
    owned = _daemonset("nvcr.io/nvidia/k8s-device-plugin:v0.17.4", "owned").replace(
        "  namespace: kube-system\n",
        "  namespace: kube-system\n  ownerReferences: [{kind: ClusterPolicy, name: p}]\n",
    )
    gfd = _daemonset(
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
        "gfd",
        extra='command: ["/usr/bin/gpu-feature-discovery"]',
    )
    text = "---\n".join([static, charted, owned, gfd])
    found = lint(tmp_path, text, "--select", "GPU405")
    assert where(found) == [("GPU405", 12, 16)]
    assert found[0]["severity"] == "note"


def test_gpu405_rendered_by_helm_source_comment(tmp_path):
    text = "# Source: nvidia-device-plugin/templates/daemonset-device-plugin.yml\n" + _daemonset(
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.4"
    )
    assert lint(tmp_path, text, "--select", "GPU405") == []


# GPU406 ---------------------------------------------------------------------------------


def test_gpu406_container_and_values(tmp_path, write):
    write(
        "ds.yaml",
        _daemonset(
            "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
            extra="resources: {requests: {cpu: 10m, memory: 20Mi}, limits: {memory: 40Mi}}",
        )
        + "---\n"
        + _daemonset(
            "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
            "bare",
            extra="resources: {requests: {cpu: 10m}}",
        ),
    )
    write(
        "values.yaml",
        "migStrategy: none\nresources:\n  limits:\n    memory: 1Gi\npriorityClassName: ''\n",
    )
    found = findings_json(str(tmp_path), "--select", "GPU406")["findings"]
    assert [(f["path"].split("/")[-1], f["line"], f["column"]) for f in found] == [
        ("ds.yaml", 24, 9),
        ("values.yaml", 2, 1),
    ]
    assert "sets no requests.memory, limits.memory;" in found[0]["message"]
    # The memory limit is the memory request too (Kubernetes copies it): CPU alone is missing.
    assert "sets no requests.cpu;" in found[1]["message"]


def test_gpu406_a_critical_pod_needs_only_a_memory_limit(tmp_path, write):
    # The kubelet never evicts a pod at a critical priority: requests do not decide its fate.
    critical = _daemonset(
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.4", extra="resources: {limits: {cpu: 1}}"
    ).replace("    spec:\n", "    spec:\n      priorityClassName: system-cluster-critical\n")
    by_number = _daemonset(
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.4", "n", extra="resources: {limits: {memory: 1Gi}}"
    ).replace("    spec:\n", "    spec:\n      priority: 2000001000\n")
    write("ds.yaml", critical + "---\n" + by_number)
    # The chart's values: its default class is system-node-critical.
    write("values.yaml", "migStrategy: none\nresources:\n  requests: {cpu: 10m}\n")
    found = findings_json(str(tmp_path), "--select", "GPU406")["findings"]
    assert [(f["path"].split("/")[-1], f["line"], f["column"]) for f in found] == [
        ("ds.yaml", 12, 9),  # the second sets its memory limit
        ("values.yaml", 2, 1),
    ]
    assert (
        "sets no limits.memory; at system-cluster-critical priority the kubelet never"
        in (found[0]["message"])
    )
    assert "sets no limits.memory; at system-node-critical priority" in found[1]["message"]


def test_gpu406_operator_priority_class(tmp_path, write):
    policy = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
  daemonsets: {priorityClassName: PRIORITY}
  devicePlugin:
    resources: {limits: {memory: 1Gi}}
"""
    write("critical.yaml", policy.replace("PRIORITY", "system-node-critical"))
    write("low.yaml", policy.replace("PRIORITY", "gpu-low"))
    # A class still to be filled in may be critical: what holds either way is the limit.
    unknown = policy.replace("PRIORITY", "'${PRIORITY_CLASS}'").replace("memory: 1Gi", "cpu: 1")
    write("unknown.yaml", unknown)
    found = findings_json(str(tmp_path), "--select", "GPU406")["findings"]
    assert [(f["path"].split("/")[-1], f["line"], f["column"]) for f in found] == [
        ("low.yaml", 8, 5),
        ("unknown.yaml", 8, 5),
    ]
    assert "sets no requests.cpu; under memory pressure" in found[0]["message"]
    assert "sets no limits.memory; its priority class is filled in later" in found[1]["message"]


def test_gpu406_a_limit_without_a_request_is_the_request(tmp_path, write):
    write(
        "ds.yaml",
        _daemonset(
            "nvcr.io/nvidia/k8s-device-plugin:v0.17.4",
            extra="resources: {limits: {cpu: 100m, memory: 40Mi}}",
        ),
    )
    # no priority class: the requests count (the chart's default class would exempt them)
    values = (
        "migStrategy: none\npriorityClassName: ''\nresources:\n  limits: {cpu: 1, memory: 1Gi}\n"
    )
    write("values.yaml", values)
    assert findings_json(str(tmp_path), "--select", "GPU406")["findings"] == []
    # the same files without the CPU limit: the CPU request is what is missing
    write("values.yaml", values.replace("cpu: 1, ", ""))
    found = findings_json(str(tmp_path), "--select", "GPU406")["findings"]
    assert [(f["path"].split("/")[-1], f["line"], f["column"]) for f in found] == [
        ("values.yaml", 3, 1)
    ]
    assert "sets no requests.cpu;" in found[0]["message"]


# GPU407 ---------------------------------------------------------------------------------


def test_gpu407_across_several_paths(tmp_path, write):
    a = write("a/ds.yaml", _daemonset("nvcr.io/nvidia/k8s-device-plugin:v0.17.0-ubi9"))
    b = write("b/values.yaml", "migStrategy: none\nimage:\n  tag: v0.17.0\n")
    c = write(
        "c/cp.yaml",
        """\
        apiVersion: nvidia.com/v1
        kind: ClusterPolicy
        metadata:
          name: gpu-cluster-policy
        spec:
          devicePlugin:
            repository: nvcr.io/nvidia
            image: k8s-device-plugin
            version: v0.14.5-ubi8
        """,
    )
    found = findings_json(str(a), str(b), str(c), "--select", "GPU407")["findings"]
    assert where(found) == [("GPU407", 9, 14)]
    assert found[0]["path"].endswith("cp.yaml")
    message = found[0]["message"]
    assert message.startswith(
        "ClusterPolicy gpu-cluster-policy deploys device plugin v0.14.5, while other linted "
        "files deploy v0.17.0; "
    )
    # the first file that deploys the other version, as a related location
    (other,) = found[0]["related"]
    assert other["path"].endswith("a/ds.yaml") and (other["line"], other["column"]) == (12, 16)
    assert other["message"] == "DaemonSet nvidia-device-plugin deploys device plugin v0.17.0"
    # one version everywhere: silent
    only = findings_json(str(a), str(b), "--select", "GPU407")["findings"]
    assert only == []


def test_gpu404_chart_mixed_strategy_with_an_mps_config(tmp_path):
    text = """\
    migStrategy: mixed
    config:
      map:
        default: |-
          version: v1
          sharing:
            mps:
              resources:
              - name: nvidia.com/gpu
                replicas: 2
    """
    found = lint(tmp_path, text, "--select", "GPU404", name="values.yaml")
    assert where(found) == [("GPU404", 4, 5)]
    assert "using --mig-strategy=mixed is not supported with MPS" in found[0]["message"]
    single = text.replace("migStrategy: mixed", "migStrategy: single")
    assert lint(tmp_path, single, "--select", "GPU404", name="values.yaml") == []


def test_gpu401_init_container_of_the_plugin_image(tmp_path):
    text = _daemonset("nvcr.io/nvidia/k8s-device-plugin:v0.17.4").replace(
        "      containers:\n",
        "      initContainers:\n      - name: config-manager-init\n"
        "        image: nvcr.io/nvidia/k8s-device-plugin\n      containers:\n",
    )
    found = lint(tmp_path, text, "--select", "GPU401")
    assert where(found) == [("GPU401", 11, 16)]
    assert found[0]["container"] == "config-manager-init"


# --- GPU409 device-plugin-socket-unmounted --------------------------------------------------

PLUGIN_DS = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin
spec:
  template:
    spec:
      containers:
        - name: plugin
          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4
{extra}"""


@pytest.mark.parametrize(
    ("extra", "found"),
    [
        ("", [("GPU409", 9, 11)]),  # TylrDn/k8s-gpu-baseline: no mount at all
        (  # the node's folder, at the folder or above it: registered
            "          volumeMounts: [{name: dp, mountPath: /var/lib/kubelet/device-plugins}]\n"
            "      volumes: [{name: dp, hostPath: {path: /var/lib/kubelet/device-plugins}}]\n",
            [],
        ),
        (
            "          volumeMounts: [{name: k, mountPath: /var/lib/kubelet/}]\n"
            "      volumes: [{name: k, hostPath: {path: /var/snap/microk8s/kubelet}}]\n",
            [],
        ),
        (  # an emptyDir there is not the node's folder
            "          volumeMounts: [{name: dp, mountPath: /var/lib/kubelet/device-plugins}]\n"
            "      volumes: [{name: dp, emptyDir: {}}]\n",
            [("GPU409", 9, 11)],
        ),
        (  # a folder beside it does not hold the kubelet's socket
            "          volumeMounts: [{name: dp, mountPath: /var/lib/kubelet-plugins}]\n"
            "      volumes: [{name: dp, hostPath: {path: /var/lib/kubelet/device-plugins}}]\n",
            [("GPU409", 9, 11)],
        ),
        ('          args: ["--kubelet-socket=/run/kubelet.sock"]\n', []),  # moved: not judged
        ('          command: ["gpu-feature-discovery"]\n', []),  # the image's GFD role
    ],
)
def test_gpu409_the_plugin_needs_the_node_s_device_plugin_folder(tmp_path, extra, found):
    text = PLUGIN_DS.format(extra=extra)
    assert where(lint(tmp_path, text, "--select", "GPU409")) == found


def test_gpu409_an_init_container_of_the_plugin_image_registers_nothing(tmp_path):
    # The chart's config-manager init container runs the plugin image and needs no socket.
    mounted = (
        "          volumeMounts: [{name: dp, mountPath: /var/lib/kubelet/device-plugins}]\n"
        "      volumes: [{name: dp, hostPath: {path: /var/lib/kubelet/device-plugins}}]\n"
        "      initContainers:\n"
        "        - name: config-manager-init\n"
        "          image: nvcr.io/nvidia/k8s-device-plugin:v0.17.4\n"
    )
    assert lint(tmp_path, PLUGIN_DS.format(extra=mounted), "--select", "GPU409") == []
