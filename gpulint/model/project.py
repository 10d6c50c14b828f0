"""The linted repository's identity, and which images it publishes itself.

A repository that builds and publishes images often lets its default branch track
``:latest`` of them on purpose and pins them when it releases (kubebuilder's scaffold
writes ``controller:latest`` and ``make deploy`` runs ``kustomize edit set image``;
release scripts set the tag). For such an image GPU302 gives advice, not a warning.
Sources: kubernetes-sigs/kubebuilder
``pkg/plugins/golang/v4/scaffolds/internal/templates/makefile.go`` (``IMG ?=
controller:latest``; ``deploy`` and ``build-installer`` run ``kustomize edit set image
controller=${IMG}``); kubeflow/katib ``scripts/v1beta1/update-images.sh`` (retags the
examples' ``:latest`` images at release).

Which images are the repository's own is never guessed from a name: the run reads the
project's identity, a GitHub or GitLab ``owner/repo``, from the repository's own files
(``inputs/project_scan.py``: the git remote ``origin``, a root ``go.mod``, a top-level
chart's ``home``/``sources``), and an image is own only when its repository path is
that ``owner/repo`` or lies under it (``ghcr.io/kubeflow/trainer/torchtune-trainer``
for ``kubeflow/trainer``; ``quay.io/o/r``, ``o/r`` on Docker Hub), compared without
case. The owner alone never matches: ``rocm/pytorch`` is not published by
``ROCm/k8s-device-plugin``, and a repository deploying another project's ``:latest``
is warned as before.

An image is also own when the repository's CI files push it (``inputs/ci_images.py``:
a GitHub Actions workflow's docker/build-push-action ``tags``, docker/metadata-action
``images``, a ``docker push`` in a script, the same in ``.gitlab-ci.yml``), whatever its
name: ``selkies-project/docker-nvidia-glx-desktop`` publishes
``ghcr.io/selkies-project/nvidia-glx-desktop``. That match is exact, registry included
(Docker Hub's spellings made one: ``canonical_repository``): a workflow pushing
``ghcr.io/o/app`` says nothing of ``docker.io/o/app``. The project is small, frozen and
picklable, like the cluster profile, so worker processes get it with the context.
"""

from __future__ import annotations

import re

from gpulint.core.lazy_re import lazy
from gpulint.core.record import record
from gpulint.model.values.images import ImageRef, canonical_repository

HOSTS = ("github.com", "gitlab.com")
# host/path of a repository in a URL: https://, ssh://, git://, with a user, or scp-like
# (git@github.com:o/r.git). GitLab groups nest (group/sub/repo); GitHub paths are o/r.
_URL = lazy(
    r"^(?:[a-z+]+://)?(?:[^@/]+@)?(?:www\.)?(?P<host>github\.com|gitlab\.com)[:/](?P<path>[^?#]+)",
    re.IGNORECASE,
)
_SEGMENT = lazy(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@record(frozen=True, slots=True)
class ProjectId:
    """One identity of the linted repository, and where the run read it."""

    host: str  # github.com or gitlab.com
    path: str  # owner/repo (GitLab: group/.../repo), lower case
    source: str  # "charts/x/Chart.yaml home", ".git/config remote origin"


@record(frozen=True, slots=True)
class PublishedImage:
    """An image repository the linted repository's CI pushes, and the file that says so."""

    repository: str  # registry/path, lower case, no tag: ghcr.io/o/name, docker.io/o/name
    source: str  # ".github/workflows/publish.yml"


@record(frozen=True)
class Project:
    """The identities of the linted repository (usually one; none when nothing says), and
    the image repositories its CI publishes."""

    ids: tuple[ProjectId, ...] = ()
    published: tuple[PublishedImage, ...] = ()

    def publisher(self, ref: ImageRef) -> ProjectId | None:
        """The identity under whose ``owner/repo`` the image's repository path lies."""
        repository = ref.repository.lower()
        for found in self.ids:
            if repository == found.path or repository.startswith(found.path + "/"):
                return found
        return None

    def publishes(self, ref: ImageRef) -> PublishedImage | None:
        """The CI file's entry that pushes the image's repository (any tag)."""
        if not self.published:
            return None
        repository = canonical_repository(ref)
        return next((p for p in self.published if p.repository == repository), None)

    def owns(self, ref: ImageRef) -> bool:
        """The image is the repository's own: under its ``owner/repo``, or pushed by its CI."""
        return self.publisher(ref) is not None or self.publishes(ref) is not None

    def describe(self) -> list[str]:
        return [f"{i.path} ({i.host}): {i.source}" for i in self.ids] + [
            f"publishes {p.repository}: {p.source}" for p in self.published
        ]


def repository_path(url: str) -> tuple[str, str] | None:
    """(host, owner/repo) of a GitHub or GitLab repository URL or module path, else None:
    ``https://github.com/o/r.git``, ``git@github.com:o/r.git``, ``github.com/o/r/v2``,
    ``https://github.com/o/r/tree/main/charts``, ``https://gitlab.com/g/sub/r/-/tree/x``."""
    match = _URL.match(url.strip())
    if match is None:
        return None
    host = match["host"].lower()
    parts = [p for p in match["path"].split("/") if p]
    if host == "github.com":
        parts = parts[:2]  # the rest is a page of the repository (tree/main/...)
    elif "-" in parts:
        parts = parts[: parts.index("-")]  # GitLab's pages follow /-/
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][: -len(".git")]
    if len(parts) < 2 or not all(_SEGMENT.match(p) for p in parts):
        return None
    return host, "/".join(parts).lower()
