"""The command line as click parses it (the design card; issue 29 moved it back from
argparse): what a change of parser could silently change for a user."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpulint import __version__
from tests.helpers import run_cli

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: trainer
      image: vllm/vllm-openai:v0.6.3
      resources:
        requests:
          nvidia.com/gpu: 1
"""
# What POD is found to hold, without a config file: (code, line, column).
FOUND = [("GPU106", 9, 7), ("GPU101", 11, 11)]

# Every option of each command, as `--help` must list it (short and long names, metavar).
OPTIONS = {
    "check": [
        "--format [text|json|sarif|github|gitlab|junit]",
        "-o, --output FILE",
        "--select TEXT",
        "--extend-select TEXT",
        "--ignore TEXT",
        "--fail-on [error|warning|note]",
        "--exit-zero",
        "-q, --quiet",
        "--statistics",
        "--color [auto|always|never]",
        "--stdin-filename TEXT",
        "-v, --verbose",
        "--debug",
        "--follow-symlinks",
        "--no-ignore",
        "-j, --jobs INTEGER RANGE",
        "--cluster PATH",
        "--pods PATH",
        "--values-for [nvidia-device-plugin|gpu-operator]",
        "--only-manifests",
        "-h, --help",
        "--config FILE",
        "--no-config",
        "--exclude PATTERN",
        "--no-suppressions",
        "--require-reason",
        "--baseline FILE",
        "--write-baseline FILE",
        "--units [per-folder|per-run]",
        "-f, --values FILE",
        "--set KEY=VALUE",
        "--release-name TEXT",
        "--namespace TEXT",
        "--kube-version TEXT",
        "--chart-dir DIRECTORY",
        "--load-restrictor [LoadRestrictionsRootOnly|LoadRestrictionsNone]",
        "--enable-krm-functions",
        "--skip-unrenderable",
        "--render-timeout FLOAT RANGE",
        "--fix",
        "--unsafe-fixes",
        "--diff",
    ],
    "rules": ["--format [text|markdown|json]", "--docs DIRECTORY", "-h, --help"],
    "explain": ["-h, --help"],
    "config-schema": ["-h, --help"],
    "completion": ["-h, --help"],
    "lsp": ["-h, --help"],
    "report": [
        "--cluster PATH",
        "--pods PATH",
        "--format [text|json|html]",
        "-o, --output FILE",
        "-h, --help",
    ],
}


@pytest.fixture
def pod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("pod.yaml").write_text(POD)
    return Path("pod.yaml")


def _where(stdout: str) -> list[tuple[str, int, int]]:
    return [(f["code"], f["line"], f["column"]) for f in json.loads(stdout)["findings"]]


def _usage_error(result, command: str, message: str) -> None:
    """Exit 2; on standard error click's usage, the hint and `Error: <message>`."""
    assert result.exit_code == 2
    assert result.stdout == ""
    name = command.split()[0]
    hint = "gpulint --help" if name.startswith("[") else f"gpulint {name} --help"
    assert result.stderr == (
        f"Usage: gpulint {command}\nTry '{hint}' for help.\n\nError: {message}\n"
    )


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_the_help_of_each_command_lists_its_options(command: str) -> None:
    result = run_cli(command, "--help")
    assert result.exit_code == 0 and result.stderr == ""
    listed = re.findall(r"^  (-\S.*?)(?:  |$)", result.stdout, re.MULTILINE)
    assert listed == OPTIONS[command]
    assert run_cli(command, "-h").stdout == result.stdout


def test_the_help_of_gpulint_lists_the_commands() -> None:
    result = run_cli("-h")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: gpulint [OPTIONS] COMMAND [ARGS]...\n")
    commands = result.stdout[result.stdout.index("Commands:\n") :].splitlines()[1:]
    assert [line.split()[0] for line in commands] == sorted(OPTIONS)


def test_no_command_prints_the_help_on_standard_error_and_exits_2() -> None:
    result = run_cli()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == run_cli("--help").stdout


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_goes_to_standard_output(flag: str) -> None:
    result = run_cli(flag)
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        f"gpulint, version {__version__}\n",
        "",
    )


@pytest.mark.parametrize(
    ("args", "prefix"),
    [
        (("--form", "json"), "--form'. (Did you mean one of: '--color', '--format'?)"),
        (("--no-sup",), "--no-sup'. (Did you mean one of: '--no-suppressions', '--output'?)"),
        (("--sel", "GPU101"), "--sel'. (Did you mean one of: '--help', '--select', '--set'?)"),
    ],
)
def test_a_prefix_of_an_option_is_not_that_option(pod: Path, args: tuple, prefix: str) -> None:
    result = run_cli("check", "--no-config", *args, str(pod))
    _usage_error(result, "check [OPTIONS] [PATHS]...", f"No such option '{prefix}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-j", "0"), "Invalid value for '-j' / '--jobs': 0 is not in the range x>=1."),
        (("--jobs", "many"), "Invalid value for '-j' / '--jobs': 'many' is not a valid integer."),
        (
            ("--format", "xml"),
            "Invalid value for '--format': 'xml' is not one of 'text', 'json', 'sarif', "
            "'github', 'gitlab', 'junit'.",
        ),
        (
            ("--cluster", "nodes.yaml"),
            "Invalid value for '--cluster': Path 'nodes.yaml' does not exist.",
        ),
        (("--pods", "pods.yaml"), "Invalid value for '--pods': Path 'pods.yaml' does not exist."),
        (
            ("-f", "values.yaml"),
            "Invalid value for '-f' / '--values': File 'values.yaml' does not exist.",
        ),
        (("-o", "."), "Invalid value for '-o' / '--output': File '.' is a directory."),
        (
            ("--render-timeout", "0.5"),
            "Invalid value for '--render-timeout': 0.5 is not in the range 1<=x<=3600.",
        ),
        (("--select", "GPU999"), "unknown rule(s): GPU999 (see 'gpulint rules')"),
        (("-o", "a.json", "-o", "b.json"), "each --output needs a --format in the same position"),
    ],
)
def test_usage_errors_name_the_option_on_standard_error(
    pod: Path, args: tuple, message: str
) -> None:
    result = run_cli("check", "--no-config", str(pod), *args)
    _usage_error(result, "check [OPTIONS] [PATHS]...", message)


def test_an_option_without_its_value_is_a_usage_error(pod: Path) -> None:
    result = run_cli("check", "--no-config", str(pod), "--fail-on")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "Error: Option '--fail-on' requires an argument.\n"


def test_usage_errors_of_the_other_commands() -> None:
    _usage_error(run_cli("explain"), "explain [OPTIONS] RULE", "Missing argument 'RULE'.")
    _usage_error(
        run_cli("explain", "GPU999"),
        "explain [OPTIONS] RULE",
        "unknown rule 'GPU999' (see 'gpulint rules')",
    )
    _usage_error(
        run_cli("rules", "--format", "html"),
        "rules [OPTIONS]",
        "Invalid value for '--format': 'html' is not one of 'text', 'markdown', 'json'.",
    )
    _usage_error(
        run_cli("chek"),
        "[OPTIONS] COMMAND [ARGS]...",
        "No such command 'chek'. Did you mean 'check'?",
    )


def test_each_format_goes_to_the_output_in_its_position(pod: Path) -> None:
    result = run_cli(
        "check", "--no-config", str(pod),
        "--format", "json", "-o", "first.json",
        "--format", "sarif", "--output", "second.sarif",
        "--format", "text",
    )  # fmt: skip
    assert result.exit_code == 1
    assert _where(Path("first.json").read_text()) == FOUND
    assert json.loads(Path("second.sarif").read_text())["version"] == "2.1.0"
    assert result.stdout.startswith("pod.yaml:9:7: ")  # the third, text, to standard output


def test_select_is_repeatable_and_comma_separated(pod: Path) -> None:
    def codes(*args: str) -> list[tuple[str, int, int]]:
        result = run_cli("check", "--no-config", "--format", "json", *args, str(pod))
        return _where(result.stdout)

    assert codes() == FOUND
    assert codes("--select", "GPU101,GPU106") == FOUND
    assert codes("--select", "GPU101", "--select", "GPU106") == FOUND
    assert codes("--select", "GPU101, GPU102", "--select", "GPU103") == [FOUND[1]]
    assert codes("--ignore", "GPU101", "--ignore", "GPU102,GPU103") == [FOUND[0]]


def test_a_flag_replaces_the_config_file_value_only_when_given(pod: Path) -> None:
    Path(".gpulint.yaml").write_text("ignore: [GPU101]\nfail-on: error\n")
    config_only = run_cli("check", "--format", "json", str(pod))
    assert (config_only.exit_code, _where(config_only.stdout)) == (0, [FOUND[0]])  # a warning
    flagged = run_cli(
        "check", "--format", "json", "--ignore", "GPU106", "--fail-on", "warning", str(pod)
    )
    assert (flagged.exit_code, _where(flagged.stdout)) == (1, [FOUND[1]])


def test_paths_and_options_may_be_interleaved(pod: Path) -> None:
    Path("other.yaml").write_text(POD)
    result = run_cli("check", "pod.yaml", "--no-config", "--format", "json", "other.yaml")
    paths = [f["path"] for f in json.loads(result.stdout)["findings"]]
    assert paths == ["other.yaml", "other.yaml", "pod.yaml", "pod.yaml"]
    dashed = run_cli("check", "--no-config", "--format", "json", "--", "pod.yaml")
    assert _where(dashed.stdout) == FOUND


def test_standard_input_and_the_environment_of_one_run(pod: Path) -> None:
    result = run_cli(
        "check", "--no-config", "--format", "json", "--stdin-filename", "in.yaml", "-",
        input=POD, env={"GPULINT_TEST_ONLY": "1"},
    )  # fmt: skip
    assert [f["path"] for f in json.loads(result.stdout)["findings"]] == ["in.yaml", "in.yaml"]
    assert "GPULINT_TEST_ONLY" not in os.environ  # patched for the call only


def test_an_unreadable_path_is_an_input_error_and_the_others_are_linted(pod: Path) -> None:
    result = run_cli("check", "--no-config", "--format", "json", "gone.yaml", str(pod))
    report = json.loads(result.stdout)
    assert result.exit_code == 2
    assert [(e["path"], e["line"], e["column"]) for e in report["errors"]] == [("gone.yaml", 1, 1)]
    assert _where(result.stdout) == FOUND


def test_a_check_imports_neither_the_code_of_the_other_commands_nor_click_completion(
    tmp_path: Path,
) -> None:
    (tmp_path / "pod.yaml").write_text(POD)
    code = (
        "import sys\nfrom gpulint.cli.main import cli\n"
        "try:\n    cli(['check', '--no-config', 'pod.yaml'])\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, sorted(m for m in sys.modules if m == 'click.shell_completion'"
        " or m in ('gpulint.cli.rule_commands', 'shutil')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "1 []"
