"""The one-file run (the pre-commit case) leaves out what only other runs need.

Start-up time itself is measured by ``benchmarks/bench_startup.py``, never by a test;
this checks the cause that is easy to lose: a module-level import of something that
``tests/project/test_import_contract.py``'s LAZY list defers. A fresh interpreter runs
``gpulint check one-file.yaml`` from a folder outside the project (so it imports the
installed package, as pre-commit does) and reports the modules it loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Each is deferred by a LAZY entry of tests/project/test_import_contract.py.
DEFERRED = (
    "jsonschema",  # only when the quick schema check cannot vouch
    "referencing",
    "multiprocessing",  # a process pool only for large inputs
    "concurrent.futures",
    "subprocess",  # renderers only for charts and kustomizations
    "gpulint.inputs.render.helm",
    "gpulint.inputs.render.kustomize",
    "gpulint.report.sarif",  # only the format asked for
    "pygls",  # only for `gpulint lsp`
    "lsprotocol",
    "gpulint.report.json",
    "gpulint.fix.fixer",  # only with --fix or --diff
    "gpulint.fix.apply",
    "gpulint.fix.write",
    "gpulint.rules.custom",  # only with custom-rules in the config file
    "gpulint.validate.linear_re",  # with custom rules: their patterns
    "gpulint.validate.schema_graph",
    "gpulint.filter.directives",  # only when a comment says gpulint:
    "importlib.metadata",  # only when a plugin is declared
    "traceback",  # only with --debug
    "hashlib",  # only for fingerprints
    "tempfile",  # only for --output files
    "shutil",  # only for `gpulint rules` on a terminal
    "textwrap",
    "tomllib",  # only for .toml sources (tomli on Python 3.10)
    "tomli",
    "signal",  # only when a pool starts
    "gpulint.inputs.cluster",  # only with --cluster/--pods
    "ruamel.yaml.main",  # ruamel.yaml's front end: gpulint/yaml/__init__.py defers it
    "gpulint.engine.fix_details",  # a fix's edits only for --fix/--diff, JSON and SARIF
    "gpulint.model.scheduling.filters",  # only for the cluster rules, with Nodes in the run
    "gpulint.rules.builtin.gpu311_containerd_nvidia_runtime_missing",  # no containerd config
    "gpulint.rules.builtin.gpu805_dra_claim_invalid",  # no DRA object
    "dataclasses",  # gpulint's records are made without it (core/record.py)
    "click.shell_completion",  # only when a shell asks for completions
    "gpulint.cli.rule_commands",  # the code of the other commands
    "gpulint.config.loading",  # only with a config file
    "gpulint.validate",  # the schema layer: a config file, GPU Operator values, a suggestion
    "gpulint.filter.baseline",  # only with --baseline or --write-baseline
    "gpulint.inputs.ignore_files",  # only for a folder walk
    "gpulint.inputs.skip",  # only for a walked file that did not parse
    "gpulint.model.workloads.unread",  # only with --verbose
    "gpulint.model.scheduling.profile_facts",  # only for an input that may change the profile
    "gpulint.model.kinds.crds",  # only for an object of a CRD's group (a Job is batch's)
    "gpulint.config.globs",  # only with exclude patterns (or a folder's ignore files)
)

GPU_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            requests:
              nvidia.com/gpu: 1
"""

RUN = """\
import json, sys
from gpulint.cli.main import main
sys.argv = ["gpulint", *sys.argv[2:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
with open({modules!r}, "w") as handle:
    json.dump({{"code": code, "modules": sorted(sys.modules)}}, handle)
"""


def _loaded(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    modules = tmp_path / "modules.json"
    code = RUN.format(modules=str(modules))
    subprocess.run(
        [sys.executable, "-c", code, "-", *args],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        timeout=120,
    )
    found = json.loads(modules.read_text())
    return found["code"], set(found["modules"])


@pytest.fixture
def one_file(tmp_path: Path) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(GPU_JOB)
    return path


def test_a_one_file_run_imports_none_of_the_deferred_modules(
    tmp_path: Path, one_file: Path
) -> None:
    code, loaded = _loaded(tmp_path, "check", str(one_file))
    assert code == 1  # GPU101: a request without a limit; the run did lint the file
    assert sorted(m for m in DEFERRED if m in loaded) == []


def test_the_deferred_modules_still_load_when_their_run_needs_them(
    tmp_path: Path, one_file: Path
) -> None:
    toml = tmp_path / "config.toml"
    toml.write_text('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n')
    out = tmp_path / "report.sarif"
    code, loaded = _loaded(
        tmp_path, "check", "--format", "sarif", "--output", str(out), str(one_file), str(toml)
    )
    assert code == 1
    toml_reader = "tomllib" if sys.version_info >= (3, 11) else "tomli"
    assert {"gpulint.report.sarif", "tempfile", toml_reader, "gpulint.engine.fix_details"} <= loaded
    results = json.loads(out.read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results if r.get("fixes")] == ["GPU101"]  # the edits are there
