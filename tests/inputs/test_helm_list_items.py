"""Helm values keys named as a finding's origin: only where a values layer holds the key.

Helm merges maps but a list replaces what the layers below hold: ``extraEnvVars: []`` holds
no ``extraEnvVars[0]`` (sypticus/text-generation-webui-helm: a finding was said to come from
``extraEnvVars.[0].value`` of an empty list).
"""

from __future__ import annotations

from gpulint.core.settings import RenderOptions
from gpulint.inputs.render.values_origin import ValuesIndex


def test_an_empty_list_holds_no_item_and_a_string_holds_what_tpl_renders(tmp_path):
    (tmp_path / "values.yaml").write_text(
        "extraEnvVars: []\nextraEnv: |\n  - name: A\nnothing:\nresources: {}\n"
    )
    (tmp_path / "prod.yaml").write_text("extraEnvVars:\n  - name: A\n    value: x\n")
    index = ValuesIndex(str(tmp_path), RenderOptions())
    template = "chart/templates/x.yaml"
    assert index.origin(template, ("extraEnvVars", 0, "value")) is None
    assert index.origin(template, ("nothing", 0)) is None
    assert index.origin(template, ("resources", "limits", "nvidia.com/gpu")) is None
    found = index.origin(template, ("extraEnv", 0, "name"))
    assert (found.key, found.location.line, found.location.column) == ("extraEnv.[0].name", 2, 1)
    assert index.effective(template, ("extraEnvVars",))[0] == "found"
    assert index.effective(template, ("nothing", 0)) == ("absent", None)

    layered = ValuesIndex(str(tmp_path), RenderOptions(values=(str(tmp_path / "prod.yaml"),)))
    found = layered.origin(template, ("extraEnvVars", 0, "value"))
    assert (found.location.file.endswith("prod.yaml"), found.location.line) == (True, 3)
    assert layered.origin(template, ("extraEnvVars", 1, "value")) is None  # lists replace

    assignment = "extraEnvVars[0].value=y"
    set_by = ValuesIndex(str(tmp_path), RenderOptions(set_values=(assignment,)))
    assert set_by.origin(template, ("extraEnvVars", 0, "value")).set_by == assignment
    assert set_by.effective(template, ("extraEnvVars",)) == ("unknown", None)
    assert set_by.origin(template, ("extraEnvVars", 1, "value")) is None
