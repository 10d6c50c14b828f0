"""What a document was recognised as, for ``--verbose`` on plain files."""

from __future__ import annotations

from gpulint.model.kinds import kubeai
from gpulint.model.nvidia import recognise
from gpulint.model.resource import resources_of
from gpulint.yaml.parse import Document

_PLACED = {
    recognise.PLUGIN_CONFIG: "an NVIDIA device plugin config",
    recognise.DEVICE_PLUGIN_CHART: "values of the NVIDIA device plugin chart",
    recognise.OPERATOR_CHART: "values of the GPU Operator chart",
}


def describe(doc: Document, values_for: str | None = None) -> str:
    """``Pod train (pod spec checked)``, ``values of the GPU Operator chart``..."""
    data = doc.data
    if recognise.is_resource(data):
        found = []
        for resource in resources_of(doc):
            pods = len(resource.pod_specs)
            what = f"{pods} pod spec(s) checked" if pods else "no pod spec"
            found.append(f"{resource.ref.label()} ({what})")
        return ", ".join(found) or f"{data.get('kind')} (no objects)"
    profiles = [r.name for r in resources_of(doc) if r.kind == kubeai.KIND]
    if profiles:
        return f"KubeAI resource profiles, each read as a pod: {', '.join(profiles)}"
    placed = recognise.place(data, values_for)
    if placed:
        return ", ".join(
            _PLACED.get(p.kind, p.kind) + (f" under {_dotted(p.prefix)}" if p.prefix else "")
            for p in placed
        )
    return "no apiVersion/kind and no GPU config gpulint knows: nothing to check"


def _dotted(path: tuple) -> str:
    """A path as text (a merged release's values by what they are: yaml/layered.py)."""
    return ".".join(str(step) for step in path)
