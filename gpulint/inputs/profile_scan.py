"""The run's cluster profile, built before any rule runs (a part of the preparation pass,
``prepare.py``).

Files are linted one at a time, possibly in worker processes, but a rule such as
GPU202 must know before it reports whether *any* file of the run (or ``--cluster``)
describes tainted GPU nodes. So the profile is a prescan: every plain file's bytes
are searched for what can change the profile (a Node or NodePool kind, a provider's
label prefix), and only the files that match are parsed here, objects observed and
trees freed at once. Most manifests match nothing and cost one byte search (the
bytes are in the page cache by then). Charts and kustomizations render later, in
the workers, and add nothing to the profile; standard input is read once, by
linting, and adds nothing either: the config file's ``cluster:`` section is the
way to say what those runs cannot show.
"""

from __future__ import annotations

import re

from gpulint.core.findings import InputError
from gpulint.core.lazy_re import lazy
from gpulint.core.settings import Settings
from gpulint.core.sources import decode
from gpulint.inputs.discover import Target
from gpulint.model.cluster_profile import ClusterProfile, Observations, decide
from gpulint.model.resource import release, resources_of
from gpulint.yaml.parse import documents

# What an object that changes the profile cannot be written without: a Node, NodePool or
# RuntimeClass kind, or a provider's label prefix. Literal searches (memchr-fast); one regex with a
# leading alternation took 5 s over the 36 MB of the shared corpus, these take 0.4 s.
_KIND = lazy(
    rb"""kind["']?\s*:\s*["']?(?:Node|NodePool|RuntimeClass)["']?\s*(?:$|[,}\s])""", re.MULTILINE
)
_PROVIDER_PREFIXES = (
    b"cloud.google.com/",
    b"eks.amazonaws.com/",
    b"karpenter.k8s.aws/",
    b"karpenter.azure.com/",
    b"kubernetes.azure.com/",
    b"node.openshift.io/",
)


def may_change_profile(data: bytes) -> bool:
    if (b"Node" in data or b"RuntimeClass" in data) and _KIND.search(data):
        return True
    if b"DaemonSet" in data and b"tolerations" in data:
        return True  # GPU infrastructure's tolerations (GPU207)
    if b"ResourceClaim" in data or b"DeviceClass" in data or b"ComputeDomain" in data:
        return True  # DRA objects: which pods' claims hand out GPUs (model/gpu_holding.py)
    return any(prefix in data for prefix in _PROVIDER_PREFIXES)


class ProfileScan:
    """The cluster profile, from the inputs seen one at a time (``see``), then decided
    against the config file's ``cluster:`` section (``profile``)."""

    def __init__(self, settings: Settings) -> None:
        self._config = settings.cluster_facts
        self._seen = Observations()

    def see(self, target: Target, data: bytes | None) -> None:
        if not data or not may_change_profile(data):
            return
        # Only for an input that may change the profile (LAZY in
        # tests/project/test_import_contract.py): most one-file runs have none.
        from gpulint.model.scheduling.profile_facts import observe

        source = decode(target.path, data)
        if isinstance(source, InputError):
            return
        errors: list[InputError] = []  # the lint pass reports them, located
        for doc in documents(source, errors):
            try:
                if isinstance(doc.data, dict):
                    for resource in resources_of(doc):
                        observe(resource, self._seen, target.path)
            except Exception:  # odd shapes are the lint pass's to report, located
                continue
            finally:
                release(doc)

    def profile(self) -> ClusterProfile:
        return decide(self._config, self._seen)
