"""The cluster rules collect only when a Node can be in the run; the test errs one way only."""

from __future__ import annotations

import pytest

from gpulint.core.settings import Settings
from gpulint.core.sources import decode
from gpulint.engine.context import build_context
from gpulint.engine.run import run
from gpulint.inputs.discover import Target
from gpulint.inputs.prescan import unpaired_rules
from gpulint.inputs.readers import PLAIN, read_plain_file
from gpulint.rules.registry import default_registry
from gpulint.rules.triggers import TriggerSet, kind_is
from tests.helpers import findings_json, where

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
  containers:
    - name: main
      image: nvcr.io/nvidia/pytorch:24.05-py3
      resources:
        limits:
          nvidia.com/gpu: 1
"""

# The same Node, written the ways YAML and JSON allow.
NODES = {
    "plain": "apiVersion: v1\nkind: Node\nmetadata:\n  name: a100-1\n",
    "quoted": "apiVersion: v1\nkind: 'Node'\nmetadata:\n  name: a100-1\n",
    "next line": "apiVersion: v1\nkind:\n  Node\nmetadata:\n  name: a100-1\n",
    "tagged": "apiVersion: v1\nkind: !!str Node\nmetadata:\n  name: a100-1\n",
    "block scalar": "apiVersion: v1\nkind: |-\n  Node\nmetadata:\n  name: a100-1\n",
    "after a comment": "apiVersion: v1\nkind: # the object\n  Node\nmetadata:\n  name: a100-1\n",
    "json": '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a100-1"}}\n',
    "alias": "apiVersion: v1\nmetadata:\n  name: a100-1\n  labels: {role: &k Node}\nkind: *k\n",
    "crlf": "apiVersion: v1\r\nkind: Node\r\nmetadata:\r\n  name: a100-1\r\n",
}
NODE_STATUS = "status:\n  allocatable:\n    nvidia.com/gpu: '8'\n"


@pytest.mark.parametrize("text", ["kind: NodePool", "kind: NodeFeatureRule", "kind: Nodes"])
def test_kinds_that_only_start_with_node_do_not_match(text):
    assert not kind_is("Node").matches(text.encode())


@pytest.mark.parametrize("style", sorted(NODES))
def test_every_way_of_writing_a_node_wakes_the_cluster_rules(tmp_path, style):
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD)
    text = NODES[style]
    if style != "json":
        text = text.replace("\r\n", "\n") + NODE_STATUS
        text = text.replace("\n", "\r\n") if style == "crlf" else text
    else:
        text = text.replace(
            '"a100-1"}', '"a100-1"}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}'
        )
    node = tmp_path / ("node.json" if style == "json" else "node.yaml")
    node.write_bytes(text.encode())
    findings = findings_json(str(pod), str(node), "--select", "GPU210")["findings"]
    # The node has no H100 label: no node can take the pod (reported at its GPU limit).
    assert where(findings) == [("GPU210", 13, 11)]


def test_without_a_node_the_cluster_rules_are_idle(tmp_path):
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "pool.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\n")
    targets = [Target(str(tmp_path / "pod.yaml")), Target(str(tmp_path / "pool.yaml"))]
    idle = unpaired_rules(default_registry().select((), ()), targets)
    # GPU210/211 wait for a Node; GPU312/316 for a containerd config, GPU317 for one that
    # says enable_cdi, GPU315 for a RuntimeClass, GPU506 for a mig-parted config.
    idle_codes = {"GPU210", "GPU211", "GPU312", "GPU315", "GPU316", "GPU317", "GPU506"}
    assert idle == frozenset(idle_codes)


def test_inputs_that_cannot_be_read_as_bytes_here_keep_every_rule_collecting(tmp_path):
    (tmp_path / "pod.yaml").write_text(POD)
    wide = tmp_path / "node-utf16.yaml"
    wide.write_bytes(("apiVersion: v1\nkind: Node\n").encode("utf-16"))
    rules = default_registry().select((), ())
    assert unpaired_rules(rules, [Target(str(tmp_path / "pod.yaml")), Target(str(wide))]) == set()
    assert unpaired_rules(rules, [Target("-", "stdin")]) == set()
    assert unpaired_rules(rules, [Target(str(tmp_path), "helm")]) == set()


PRIVILEGED = POD + "      securityContext:\n        privileged: true\n"


def _count_searches(monkeypatch) -> list[int]:
    searched: list[int] = []
    search = TriggerSet.matching

    def counted(self, data, among=None):
        searched.append(len(data))
        return search(self, data, among)

    monkeypatch.setattr(TriggerSet, "matching", counted)
    return searched


def test_the_lint_pass_reuses_what_the_preparation_pass_found_in_a_file(tmp_path, monkeypatch):
    paths = [tmp_path / "a.yaml", tmp_path / "b.yaml"]
    paths[0].write_text(POD)
    paths[1].write_text(PRIVILEGED)
    searched = _count_searches(monkeypatch)
    found = run([Target(str(p)) for p in paths], build_context(Settings()))
    assert len(searched) == 2  # each file's bytes once, by the preparation pass
    assert [(f.location.file, f.code) for f in found.findings if f.code == "GPU703"] == [
        (str(paths[1]), "GPU703")
    ]


def test_text_other_than_the_bytes_the_preparation_pass_read_is_searched_again(tmp_path):
    # An editor's buffer (gpulint/lsp/linting.py) holds what the file on disk does not yet.
    saved, other = tmp_path / "a.yaml", tmp_path / "b.yaml"
    saved.write_text(POD)
    other.write_text(PRIVILEGED)

    def buffer(target, settings):
        if target.path != str(saved):
            return read_plain_file(target, settings)
        return [decode(target.path, PRIVILEGED.encode())], []

    readers = PLAIN.extended({"file": buffer})
    found = run([Target(str(saved)), Target(str(other))], build_context(Settings()), readers)
    assert sorted(f.location.file for f in found.findings if f.code == "GPU703") == sorted(
        [str(saved), str(other)]
    )
