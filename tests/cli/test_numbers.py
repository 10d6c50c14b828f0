"""Numbers on the command line and in the config file: finite, in range, or a usage error
(exit 2) that names the option and the value, never an internal error (issue 23, item 8)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

import gpulint.cli.main as cli_main
from gpulint.cli.render_options import MAX_RENDER_TIMEOUT
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
        limits:
          nvidia.com/gpu: 1
"""
HUGE = "9" * 30
HUGER = "9" * 5000  # past int()'s 4300-digit limit: int() raises ValueError


@pytest.fixture
def pod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("pod.yaml").write_text(POD)
    return Path("pod.yaml")


def _usage(result, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.endswith(f"\n\nError: {message}\n"), result.stderr
    assert "internal error" not in result.output


def _numeric_options() -> dict[str, click.Parameter]:
    """Every option of `check` whose value is a number, by its longest name."""
    found = {}
    for param in cli_main.gpulint.commands["check"].params:
        if isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)):
            raise AssertionError(f"{param.opts}: click's INT/FLOAT (and ranges) take inf or nan")
        if param.type.name in ("integer", "float"):
            found[max(param.opts, key=len)] = param
    return found


def test_the_numeric_options_are_the_known_ones():
    assert sorted(_numeric_options()) == ["--jobs", "--render-timeout"]


BAD = [
    ("inf", "'inf' is not a finite number."),
    ("-inf", "'-inf' is not a finite number."),
    ("+Infinity", "'+Infinity' is not a finite number."),
    ("nan", "'nan' is not a finite number."),
    ("NaN", "'NaN' is not a finite number."),
    ("1_000", "'1_000' is not a valid {noun}."),
    (" 5", "' 5' is not a valid {noun}."),
    ("\u0665", "'\u0665' is not a valid {noun}."),  # an Arabic-Indic five: int() takes it
    ("", "'' is not a valid {noun}."),
]


@pytest.mark.parametrize("option", ["--jobs", "--render-timeout"])
@pytest.mark.parametrize(("value", "message"), BAD)
def test_non_finite_and_odd_spellings_are_usage_errors(pod, option, value, message):
    noun = _numeric_options()[option].type.name
    shown = "'-j' / '--jobs'" if option == "--jobs" else f"'{option}'"
    result = run_cli("check", "--no-config", f"{option}={value}", str(pod))
    _usage(result, f"Invalid value for {shown}: {message.format(noun=noun)}")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e309", "'1e309' is not a finite number."),
        ("-1e309", "'-1e309' is not a finite number."),
        ("-1", "-1.0 is not in the range 1<=x<=3600."),
        ("0", "0.0 is not in the range 1<=x<=3600."),
        ("0.999", "0.999 is not in the range 1<=x<=3600."),
        ("3600.5", "3600.5 is not in the range 1<=x<=3600."),
        ("1e308", "1e+308 is not in the range 1<=x<=3600."),
        (HUGE, "1e+30 is not in the range 1<=x<=3600."),
        (HUGER, "'9999999999" + "9" * 4990 + "' is not a finite number."),
    ],
)
def test_render_timeout_out_of_range(pod, value, message):
    result = run_cli("check", "--no-config", f"--render-timeout={value}", str(pod))
    _usage(result, f"Invalid value for '--render-timeout': {message}")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e309", "'1e309' is not a valid integer."),
        ("1.5", "'1.5' is not a valid integer."),
        ("-1", "-1 is not in the range x>=1."),
        ("0", "0 is not in the range x>=1."),
        (f"-{HUGE}", f"-{HUGE} is not in the range x>=1."),
        (HUGER, f"{HUGER} is not in the range x>=1."),
    ],
)
def test_jobs_out_of_range(pod, value, message):
    result = run_cli("check", "--no-config", f"--jobs={value}", str(pod))
    _usage(result, f"Invalid value for '-j' / '--jobs': {message}")


@pytest.mark.parametrize("value", ["1", "120", "2.5", "3600", "3.6e3", ".5e1"])
def test_render_timeouts_in_range_are_taken(pod, value, monkeypatch):
    seen = []
    real = cli_main.build_context
    monkeypatch.setattr(
        cli_main, "build_context", lambda s, r: seen.append(s.render.timeout) or real(s, r)
    )
    result = run_cli("check", "--no-config", "--render-timeout", value, str(pod))
    assert result.exit_code == 1, result.output
    assert set(seen) == {float(value)}


def test_the_largest_timeout_reaches_a_real_render(real_helm, chart):
    # inf, nan and 1e12 ended here as OverflowError/ValueError: internal errors.
    result = run_cli(
        "check", "--no-config", "--format", "json", f"--render-timeout={MAX_RENDER_TIMEOUT}", "."
    )
    assert result.exit_code in (0, 1), result.output
    assert "internal error" not in result.output


def test_a_huge_job_count_is_capped_not_an_error(pod, monkeypatch):
    monkeypatch.setattr(cli_main, "cpu_count", lambda: 2)
    result = run_cli("check", "--no-config", "--jobs", HUGE, str(pod))
    assert result.exit_code == 1
    assert f"gpulint: note: --jobs {HUGE} capped at 2" in result.stderr


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (".inf", "inf is not of type 'integer'"),
        ("-.inf", "-inf is not of type 'integer'"),
        (".nan", "nan is not of type 'integer'"),
        ("1e309", "inf is not of type 'integer'"),
        ("1.5", "1.5 is not of type 'integer'"),
        ("-1", "-1 is less than the minimum of 1"),
        ("0", "0 is less than the minimum of 1"),
    ],
)
@pytest.mark.parametrize("where", ["top", "cluster"])
def test_numbers_in_the_config_file_are_located_config_errors(pod, value, shown, where):
    if where == "top":
        Path(".gpulint.yaml").write_text(f"max-gpus-per-node: {value}\n")
        located = f".gpulint.yaml:1:20: error [config] max-gpus-per-node: {shown}\n"
    else:
        Path(".gpulint.yaml").write_text(f"cluster:\n  max-gpus-per-node: {value}\n")
        located = f".gpulint.yaml:2:22: error [config] cluster.max-gpus-per-node: {shown}\n"
    result = run_cli("check", str(pod))
    assert result.exit_code == 2
    assert located in result.stderr  # -.inf is also "less than the minimum of 1"
    assert all(line.startswith(located[:20]) for line in result.stderr.splitlines())


def test_a_huge_integer_in_the_config_file_is_no_internal_error(pod):
    Path(".gpulint.yaml").write_text(f"max-gpus-per-node: {HUGE}\n")
    assert run_cli("check", str(pod)).exit_code == 1
    Path(".gpulint.yaml").write_text(f"max-gpus-per-node: {HUGER}\n")
    result = run_cli("check", str(pod))
    assert result.exit_code == 2
    assert result.stderr.startswith(".gpulint.yaml:1:20: error [config] max-gpus-per-node: ")
