"""config/merge.py: the config file's values under the flags given on the command line."""

from __future__ import annotations

from gpulint.config.file import Config
from gpulint.config.merge import apply_config
from gpulint.core.findings import Severity
from gpulint.core.settings import Exemption, Settings
from gpulint.rules.registry import default_registry

VALUES = {
    "select": ["GPU1"],
    "ignore": ["GPU105"],
    "fail-on": "error",
    "severity": {"gpu-limit-missing": "note"},
    "gpu-taint-keys": ["nvidia.com/gpu", "gpu"],
    "max-gpus-per-node": 4,
    "extended-resource-toleration": True,
    "require-reason": True,
}


def test_the_config_file_applies_where_no_flag_was_given() -> None:
    exemption = Exemption("accepted", frozenset({"GPU101"}))
    settings = Settings()
    config = Config("x/.gpulint.yaml", VALUES, exemptions=(exemption,))
    apply_config(settings, config, default_registry(), given=())
    assert (settings.select, settings.ignore, settings.fail_on) == (
        ("GPU1",),
        ("GPU105",),
        Severity.ERROR,
    )
    assert settings.severity == {"GPU101": Severity.NOTE}  # the name resolved to its code
    assert settings.gpu_taint_keys == ("nvidia.com/gpu", "gpu")
    assert settings.cluster_facts.max_gpus_per_node == 4  # a cluster fact (the profile)
    assert settings.extended_resource_toleration is True
    assert settings.require_reason is True
    assert settings.exemptions == (exemption,)


def test_flags_given_win_over_the_config_file() -> None:
    settings = Settings(select=("GPU2",), ignore=(), fail_on=Severity.NOTE)
    config = Config("x/.gpulint.yaml", VALUES)
    apply_config(settings, config, default_registry(), given={"select", "ignore", "fail_on"})
    assert (settings.select, settings.ignore, settings.fail_on) == (("GPU2",), (), Severity.NOTE)
    assert settings.cluster_facts.max_gpus_per_node == 4  # no flag for it: the file's value


def test_without_a_config_file_the_settings_stay_as_given() -> None:
    settings = Settings(select=("GPU2",))
    apply_config(settings, None, default_registry(), given=())
    assert settings == Settings(select=("GPU2",))
