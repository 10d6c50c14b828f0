"""Shell completion (issue 29): click's scripts for bash, zsh and fish, and what gpulint
completes itself: its commands, options, and rule codes and names."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers import run_cli


def _complete(words: str) -> list[str]:
    """What bash completion offers for the last word of ``words`` (click's protocol)."""
    parts = words.split(" ")
    result = run_cli(
        *parts[1:],
        env={
            "_GPULINT_COMPLETE": "bash_complete",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(parts) - 1),
        },
    )
    assert result.exit_code == 0, result.output
    return [line.split(",", 1)[1] for line in result.stdout.splitlines()]


def test_commands_and_options_complete():
    assert _complete("gpulint ch") == ["check"]
    assert "completion" in _complete("gpulint ")
    assert _complete("gpulint check --fail") == ["--fail-on"]
    assert _complete("gpulint check --fail-on w") == ["warning"]


def test_rule_codes_and_names_complete_for_select_ignore_and_explain():
    assert _complete("gpulint check --select GPU10") == [f"GPU10{n}" for n in range(1, 10)]
    assert _complete("gpulint check --ignore gpu-limit") == ["gpu-limit-missing"]
    # a comma-separated list completes its last item
    assert _complete("gpulint check --select GPU101,GPU70") == [
        f"GPU101,GPU70{n}" for n in range(1, 8)
    ]
    assert _complete("gpulint explain GPU50") == [f"GPU50{n}" for n in range(1, 7)]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_command_prints_click_s_script(shell):
    result = run_cli("completion", shell)
    assert result.exit_code == 0
    assert "_GPULINT_COMPLETE" in result.stdout
    assert f"{shell}_complete" in result.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_bash_script_is_valid_bash():
    script = run_cli("completion", "bash").stdout
    done = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
    assert done.returncode == 0, done.stderr


def test_an_unknown_shell_is_a_usage_error():
    result = run_cli("completion", "tcsh")
    assert result.exit_code == 2
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'." in result.stderr
