"""containerd config.toml: the TOML reader and its positions, GPU311, GPU313, GPU314."""

from __future__ import annotations

import json
import textwrap

import pytest

from gpulint import catalog
from gpulint.inputs.discover import discover
from gpulint.model.runtime import containerd
from gpulint.yaml.toml_keys import scan
from gpulint.yaml.toml_tree import load
from tests.helpers import lint, run_cli, where

V2 = 'plugins."io.containerd.grpc.v1.cri".containerd'
V3 = 'plugins."io.containerd.cri.v1.runtime".containerd'


def toml(tmp_path, text: str, *args: str, name: str = "config.toml") -> list[dict]:
    return lint(tmp_path, text, *args, name=name)


def test_model_constants_are_the_catalogs_cited_facts():
    facts = catalog.raw()["container_toolkit"]
    by_version = {int(k): v for k, v in facts["containerd_cri_plugin_by_version"].items()}
    assert by_version == containerd.PLUGIN_BY_VERSION
    assert facts["containerd_runtime_type"] == containerd.RUNC_V2
    assert set(facts["containerd_removed_in_2_0"]) == containerd.REMOVED_IN_2_0
    assert set(facts["not_runtimes"]) == containerd.NOT_RUNTIMES
    assert set(facts["operator_runtime_classes"]) == containerd.OPERATOR_RUNTIME_CLASSES
    assert all(b.startswith(containerd.NVIDIA_RUNTIME_BINARY) for b in facts["runtime_binaries"])


# --- the TOML layer ------------------------------------------------------------------------------


def test_scanner_places_headers_keys_dotted_and_inline_keys():
    text = textwrap.dedent(
        """\
        version = 2
        [plugins."io.containerd.grpc.v1.cri".containerd]
          default_runtime_name = "nvidia"
          runtimes.runc.runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          options = { BinaryName = "/usr/bin/nvidia-container-runtime", SystemdCgroup = true }
          note = '''
        fake = "not a key"
        '''
        [[x.items]]
          a = [1,
               2]
          b = 3
        """
    )
    places = scan(text)
    cri = ("plugins", "io.containerd.grpc.v1.cri", "containerd")
    assert places[("plugins",)].line == 1
    assert (places[cri].line, places[cri].column) == (1, 37)
    key = places[cri + ("default_runtime_name",)]
    assert (key.line, key.column, key.value_column, key.value_end) == (2, 2, 25, 33)
    assert places[cri + ("runtimes", "runc", "runtime_type")].column == 16
    inline = places[cri + ("runtimes", "nvidia", "options", "BinaryName")]
    assert (inline.line, inline.column, inline.value_column) == (5, 14, 27)
    assert places[cri + ("runtimes", "nvidia", "options", "SystemdCgroup")].value_column == 80
    assert ("fake",) not in places and cri + ("runtimes", "nvidia", "fake") not in places
    assert places[("x", "items", 0, "b")].line == 12
    assert load(text)["x"]["items"][0]["b"] == 3


def test_invalid_toml_is_a_located_input_error_and_other_files_are_linted(tmp_path):
    (tmp_path / "bad.toml").write_text('version = 2\n[plugins."io.containerd.grpc.v1.cri"\n')
    (tmp_path / "good.toml").write_text(f'version = 2\n[{V2}]\n  default_runtime_name = "nv"\n')
    result = run_cli("check", "--format", "json", str(tmp_path))
    report = json.loads(result.output)
    assert [(e["line"], e["column"]) for e in report["errors"]] == [(2, 37)]
    assert "invalid TOML" in report["errors"][0]["message"]
    assert where(report["findings"]) == [("GPU311", 3, 26)]


def test_folders_yield_only_the_toml_files_that_are_containerd_configs(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "config.toml").write_text(f"version = 2\n[{V2}]\n")
    targets, errors = discover([str(tmp_path)])
    assert [t.path.rsplit("/", 1)[1] for t in targets] == ["config.toml"] and errors == []


# --- GPU311 containerd-nvidia-runtime-missing -----------------------------------------------------


def test_default_runtime_without_its_section_is_reported_at_the_value(tmp_path):
    text = f"""\
    version = 2
    [{V2}]
      default_runtime_name = "nvidia"
    [{V2}.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
    """
    found = toml(tmp_path, text, "--select", "GPU311")
    assert where(found) == [("GPU311", 3, 26)]
    assert "has no 'nvidia'" in found[0]["message"]


def test_nvidia_runtime_under_the_other_versions_section(tmp_path):
    text = f"""\
    version = 3
    [{V3}]
      default_runtime_name = "nvidia"
    [{V2}.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v2"
    [{V2}.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
    """
    found = toml(tmp_path, text, "--select", "GPU311")
    assert where(found) == [("GPU311", 4, 58)]  # one finding: the misplaced runtime
    message = found[0]["message"]
    assert 'under plugins."io.containerd.grpc.v1.cri"' in message
    assert "default_runtime_name names it" in message


def test_version_1_and_built_in_runc_default_are_silent(tmp_path):
    text = """\
    [plugins.cri.containerd]
      default_runtime_name = "nvidia"
    [plugins.cri.containerd.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v2"
    """
    assert toml(tmp_path, text, "--select", "GPU311") == []
    text = f'version = 2\n[{V2}]\n  default_runtime_name = "runc"\n'
    assert toml(tmp_path, text, "--select", "GPU311") == []


def test_a_fragment_of_plugin_tables_is_not_judged_as_version_1(tmp_path):
    text = f"""\
    [{V2}.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v2"
    [{V2}.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
    """
    assert toml(tmp_path, text, "--select", "GPU311") == []
    whole = 'root = "/var/lib/containerd"\n' + text
    found = toml(tmp_path, whole, "--select", "GPU311")
    assert where(found) == [("GPU311", 2, 62)]
    assert "(version 1)" in found[0]["message"]


def test_what_a_fragment_or_an_importing_config_leaves_out_is_not_judged(tmp_path):
    # The default may name a runtime of the config the fragment is spliced into, or of a
    # file the config imports (an import replaces whole plugin sections).
    body = f"""\
    [{V2}]
      default_runtime_name = "nvidia"
    [{V2}.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
    """
    body = textwrap.dedent(body)
    assert toml(tmp_path, body, "--select", "GPU311") == []
    importing = 'version = 2\nimports = ["/etc/containerd/conf.d/*.toml"]\n' + body
    assert toml(tmp_path, importing, "--select", "GPU311") == []
    assert where(toml(tmp_path, "version = 2\n" + body, "--select", "GPU311")) == [
        ("GPU311", 3, 26)
    ]


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ('[plugins.cri.containerd]\n  snapshotter = "overlayfs"\n', 1),
        (f'[{V2}]\n  default_runtime_name = "runc"\n', 2),
        (f'[{V3}]\n  default_runtime_name = "runc"\n', 3),
        (f"[{V2}]\n  a = 1\n[{V3}]\n  a = 1\n", None),  # which is read: not established
        ('[plugins."io.containerd.internal.v1.opt"]\n  path = "/opt"\n', None),
    ],
)
def test_a_fragment_is_read_for_the_version_of_its_one_cri_plugin_name(text, version):
    config = containerd.view(load(text))
    assert (config.version if config else None) == version
    assert config is None or (config.implied and not config.whole)
    whole = containerd.view(load("version = 2\n" + text))
    assert whole is not None and whole.whole and not whole.implied


def test_a_fragment_is_named_for_its_inferred_version(tmp_path):
    text = f"""\
    [{V3}.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v1"
      options = {{ BinaryName = "/usr/bin/nvidia-container-runtime" }}
    """
    found = toml(tmp_path, text, "--select", "GPU314")
    assert where(found) == [("GPU314", 2, 18)]
    assert "(no version line; version 3 by its plugin names)" in found[0]["message"]


# --- GPU313 containerd-runtime-binary-invalid -----------------------------------------------------


def test_hook_as_binary_and_nvidia_runtime_without_binary(tmp_path):
    text = f"""\
    version = 2
    [{V2}.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v2"
      options = {{ BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime-hook" }}
    [{V2}.runtimes.nvidia-legacy]
      runtime_type = "io.containerd.runc.v2"
    [{V2}.runtimes.nvidia-legacy.options]
      BinaryName = "runc"
    [{V2}.runtimes.nvidia-cdi]
      runtime_type = "io.containerd.runc.v2"
    """
    found = toml(tmp_path, text, "--select", "GPU313")
    assert where(found) == [("GPU313", 4, 28), ("GPU313", 8, 16), ("GPU313", 9, 58)]
    assert "not a runtime" in found[0]["message"]
    assert (
        "plain runc" in found[1]["message"] and "sets no options.BinaryName" in found[2]["message"]
    )


def test_custom_wrappers_and_other_shims_are_not_judged(tmp_path):
    text = f"""\
    version = 2
    [{V2}.runtimes.nvidia]
      runtime_type = "io.containerd.runc.v2"
      options = {{ BinaryName = "/opt/bin/my-gpu-runtime" }}
    [{V2}.runtimes.nvidia-kata]
      runtime_type = "io.containerd.kata.v2"
    """
    assert toml(tmp_path, text, "--select", "GPU313") == []


# --- GPU314 containerd-runtime-type-invalid -------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "kind", "fires"),
    [
        (2, "io.containerd.runc.v2", False),
        (2, "io.containerd.runc.v1", False),  # still shipped by containerd 1.x
        (3, "io.containerd.runc.v1", True),  # removed in containerd 2.0
        (2, "io.containerd.runtime.v1.linux", True),
        (2, "io.containerd.kata.v2", True),
    ],
)
def test_runtime_type_of_the_nvidia_runtime(tmp_path, version, kind, fires):
    section = V2 if version == 2 else V3
    text = f"""\
    version = {version}
    [{section}.runtimes.nvidia]
      runtime_type = "{kind}"
      options = {{ BinaryName = "/usr/bin/nvidia-container-runtime" }}
    """
    found = toml(tmp_path, text, "--select", "GPU314")
    assert where(found) == ([("GPU314", 3, 18)] if fires else [])


# --- embedded configs ---------------------------------------------------------------------------


def test_cloud_init_write_files_config_is_read_at_inner_positions(tmp_path):
    text = f"""\
    #cloud-config
    write_files:
      - path: /etc/containerd/config.toml
        content: |
          version = 2
          [{V2}]
            default_runtime_name = "nvidia"
          [{V2}.runtimes.nvidia]
            runtime_type = "io.containerd.runtime.v1.linux"
            options = {{ BinaryName = "/usr/bin/nvidia-container-toolkit" }}
    """
    found = lint(tmp_path, text, "--select", "GPU311,GPU313,GPU314", name="user-data.yaml")
    # the hook as BinaryName is the root cause; GPU314 judges only nvidia-container-runtime
    assert where(found) == [("GPU313", 10, 34)]
    assert "in write_files[0].content" in found[0]["message"]


def test_configmap_config_names_the_configmap(tmp_path):
    text = f"""\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: containerd
    data:
      config.toml: |
        version = 2
        [{V2}]
          default_runtime_name = "nvidia"
    """
    found = lint(tmp_path, text, "--select", "GPU311")
    assert where(found) == [("GPU311", 9, 30)]
    assert found[0]["resource"]["name"] == "containerd"


@pytest.mark.parametrize("fmt", ["sarif", "github", "text"])
def test_toml_findings_in_every_format(tmp_path, fmt):
    path = tmp_path / "config.toml"
    path.write_text(f'version = 2\n[{V2}]\n  default_runtime_name = "nvidia"\n')
    result = run_cli("check", "--format", fmt, str(path))
    assert result.exit_code == 1
    if fmt == "sarif":
        run = json.loads(result.output)["runs"][0]
        region = run["results"][0]["locations"][0]["physicalLocation"]["region"]
        assert (run["results"][0]["ruleId"], region["startLine"], region["startColumn"]) == (
            "GPU311",
            3,
            26,
        )
    elif fmt == "github":
        assert "line=3,col=26" in result.output and "GPU311" in result.output
    else:
        assert f"{path}:3:26: error [GPU311 containerd-nvidia-runtime-missing]" in result.output
