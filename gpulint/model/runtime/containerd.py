"""containerd's ``config.toml``: which runtimes the CRI plugin offers, which is the default.

From NVIDIA/nvidia-container-toolkit ``pkg/config/engine/containerd`` (what
``nvidia-ctk runtime configure --runtime=containerd`` reads and writes): the config
``version`` (absent: 1) picks the CRI plugin whose section holds the runtimes --
``cri`` (1), ``io.containerd.grpc.v1.cri`` (2, containerd 1.x) or
``io.containerd.cri.v1.runtime`` (3, containerd 2.x); runtimes live at
``plugins.<cri>.containerd.runtimes.<name>`` with ``runtime_type`` (the toolkit
writes ``io.containerd.runc.v2``) and ``options.BinaryName`` (the NVIDIA runtime's
path); the default at ``plugins.<cri>.containerd.default_runtime_name``.

A config is a TOML file of its own or TOML text inside a YAML document (a ConfigMap,
cloud-init ``write_files``): ``configs_in`` finds the latter by content.

A file that holds nothing but ``plugins`` tables and no ``version`` is a fragment: a
drop-in a config ``imports``, or a snippet an image builder splices into its own
``version = 2`` config.toml. Its version is not established by the run; it is read as
the version its one CRI plugin name is written for (``cri``: 1,
``io.containerd.grpc.v1.cri``: 2, ``io.containerd.cri.v1.runtime``: 3), not as
containerd's default for a whole config (1), which would ignore every table; a fragment
naming several is not read. A fragment, like a config that ``imports`` others, is not
the whole config: what it leaves out (a default runtime, a runtime a RuntimeClass
names) may be set where the run cannot see, so rules judge only what it says.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from gpulint.core.record import record
from gpulint.model.resource import Resource
from gpulint.model.values.shapes import dotted
from gpulint.yaml.embedded import strings_holding
from gpulint.yaml.parse import Document
from gpulint.yaml.toml_tree import load

MARK = "io.containerd."
# The catalog's container_toolkit block records these facts with their sources
# (tests/rules/gpu3xx/test_containerd.py keeps the two equal; constants keep start-up cheap).
PLUGIN_BY_VERSION = {1: "cri", 2: "io.containerd.grpc.v1.cri", 3: "io.containerd.cri.v1.runtime"}
RUNC_V2 = "io.containerd.runc.v2"
# The NVIDIA Container Runtime's binaries (nvidia-container-runtime, .cdi, .legacy);
# the hook and the CLI are not runtimes.
NVIDIA_RUNTIME_BINARY = "nvidia-container-runtime"
NOT_RUNTIMES = frozenset(
    {
        "nvidia-container-runtime-hook",
        "nvidia-container-toolkit",
        "nvidia-ctk",
        "nvidia-container-cli",
    }
)
REMOVED_IN_2_0 = frozenset({"io.containerd.runtime.v1.linux", "io.containerd.runc.v1"})
OPERATOR_RUNTIME_CLASSES = frozenset({"nvidia", "nvidia-cdi", "nvidia-legacy"})
_MAX_DEPTH = 12


@record(frozen=True)
class Runtime:
    """One runtime of a containerd config: its name, place, type and binary."""

    name: str
    path: tuple  # to runtimes.<name>, relative to the config
    runtime_type: str | None
    binary: str | None
    # container_annotations: CRI annotations (device plugins' CDI annotations among them)
    # that containerd copies into the OCI spec, where the NVIDIA runtime can read them.
    annotations: tuple[str, ...] = ()

    @property
    def binary_name(self) -> str | None:
        return posixpath.basename(self.binary) if self.binary else None

    @property
    def is_nvidia(self) -> bool:
        """Runs the NVIDIA Container Runtime (by its binary), or is meant to (by its name)."""
        binary = self.binary_name or ""
        return binary.startswith("nvidia-container-runtime") or self.name.startswith("nvidia")


@record(frozen=True)
class ContainerdConfig:
    """What a containerd config.toml says about runtimes, for the version it declares."""

    version: int
    plugin: str  # the CRI plugin section this version reads
    runtimes: dict[str, Runtime]
    misplaced: dict[str, Runtime]  # runtimes under another version's plugin section
    default: str | None
    enable_cdi: bool | None
    implied: bool = False  # no version line: a fragment, read for its plugin names' version
    imports: tuple[str, ...] = ()  # other files containerd merges into this one

    @property
    def whole(self) -> bool:
        """Everything containerd reads is here: not a fragment, and it imports nothing."""
        return not self.implied and not self.imports

    @property
    def containerd_path(self) -> tuple:
        return ("plugins", self.plugin, "containerd")

    @property
    def cdi_path(self) -> tuple:
        """Where ``enable_cdi`` sits (the CRI plugin's own section)."""
        return ("plugins", self.plugin, "enable_cdi")


@record(frozen=True)
class FoundContainerd:
    """A containerd config found in the inputs: where it is and what it says."""

    path: tuple  # the config (a TOML document) or the string that holds it
    label: str
    config: ContainerdConfig


def is_containerd(data: Any) -> bool:
    plugins = data.get("plugins") if isinstance(data, dict) else None
    return isinstance(plugins, dict) and any(
        isinstance(k, str) and (k.startswith(MARK) or k == "cri") for k in plugins
    )


def view(data: Any) -> ContainerdConfig | None:
    if not is_containerd(data):
        return None
    implied = "version" not in data and set(data) == {"plugins"}
    version = _fragment_version(data["plugins"]) if implied else data.get("version", 1)
    if type(version) is not int or version not in PLUGIN_BY_VERSION:
        return None  # containerd refuses it; not this view's business
    plugin = PLUGIN_BY_VERSION[version]
    plugins = data["plugins"]
    found = plugins.get(plugin)
    section: dict = found if isinstance(found, dict) else {}
    runtimes = _runtimes(plugins, plugin)
    misplaced: dict[str, Runtime] = {}
    for other in PLUGIN_BY_VERSION.values():
        if other != plugin:
            for name, runtime in _runtimes(plugins, other).items():
                misplaced.setdefault(name, runtime)
    inner = section.get("containerd")
    containerd: dict = inner if isinstance(inner, dict) else {}
    default = containerd.get("default_runtime_name")
    cdi = section.get("enable_cdi")
    imports = data.get("imports")
    return ContainerdConfig(
        version,
        plugin,
        runtimes,
        misplaced,
        default if isinstance(default, str) else None,
        cdi if isinstance(cdi, bool) else None,
        implied,
        tuple(str(i) for i in imports) if isinstance(imports, list) else (),
    )


def _fragment_version(plugins: dict) -> int | None:
    """The version a fragment's one CRI plugin name is written for; None for none or several
    (which of them containerd reads is not established)."""
    written_for = [v for v, name in PLUGIN_BY_VERSION.items() if name in plugins]
    return written_for[0] if len(written_for) == 1 else None


def _runtimes(plugins: dict, plugin: str) -> dict[str, Runtime]:
    section = plugins.get(plugin)
    containerd = section.get("containerd") if isinstance(section, dict) else None
    table = containerd.get("runtimes") if isinstance(containerd, dict) else None
    found: dict[str, Runtime] = {}
    for name, spec in table.items() if isinstance(table, dict) else ():
        if not isinstance(spec, dict):
            continue
        options = spec.get("options")
        binary = options.get("BinaryName") if isinstance(options, dict) else None
        kind = spec.get("runtime_type")
        path = ("plugins", plugin, "containerd", "runtimes", name)
        passed = spec.get("container_annotations")
        found[str(name)] = Runtime(
            str(name),
            path,
            kind if isinstance(kind, str) else None,
            binary if isinstance(binary, str) else None,
            tuple(a for a in passed if isinstance(a, str)) if isinstance(passed, list) else (),
        )
    return found


def configs_in(data: Any, label: str) -> Iterator[FoundContainerd]:
    """A TOML document that is a config, or configs in the strings of a YAML document."""
    config = view(data)
    if config is not None:
        yield FoundContainerd((), f"containerd config ({_version_label(config)})", config)
        return
    for path, text in strings_holding(data, lambda text: MARK in text and "[" in text, _MAX_DEPTH):
        loaded = load(text)
        config = view(loaded) if isinstance(loaded, dict) else None
        if config is not None:
            inside = f"{label} {dotted(path)}" if label else dotted(path)
            yield FoundContainerd(
                path, f"containerd config ({_version_label(config)}) in {inside}", config
            )


def _version_label(config: ContainerdConfig) -> str:
    if config.implied:
        return f"no version line; version {config.version} by its plugin names"
    return f"version {config.version}"


def document_configs(doc: Document) -> Iterator[FoundContainerd]:
    """Configs of a document that is not a Kubernetes object (a TOML file, cloud-init)."""
    data = doc.data
    if not _mentions(doc.source.text) or (
        isinstance(data, dict) and "apiVersion" in data and "kind" in data
    ):
        return iter(())  # resources: resource_configs, which names them
    return configs_in(data, "")


def resource_configs(resource: Resource) -> Iterator[FoundContainerd]:
    if not _mentions(resource.doc.source.text):
        return iter(())
    return configs_in(resource.obj, f"{resource.kind} {resource.name}")


@lru_cache(maxsize=2)  # the source being linted: no old text is kept alive
def _mentions(text: str) -> bool:
    """Whether a source can hold a config at all: six rules ask of each document, and a
    str caches its hash, so each source's text is searched once."""
    return MARK in text


def quoted(plugin: str) -> str:
    """``io.containerd.grpc.v1.cri`` as the TOML header writes it."""
    return f'plugins."{plugin}"' if "." in plugin else f"plugins.{plugin}"
