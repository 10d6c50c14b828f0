"""``--debug`` and ``GPULINT_DEBUG=1``: an internal error shows its traceback; without them
the message says how to get it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpulint.cli import main as cli_main
from gpulint.core.findings import Severity
from gpulint.rules.registry import Registry, Rule
from tests.helpers import run_cli

MANIFEST = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n"
HINT = "run with --debug or GPULINT_DEBUG=1 for the traceback"


def _crashing_check(resource, ctx):
    raise ZeroDivisionError("a rule that divides by zero")


def _broken_registry() -> Registry:
    rule = Rule("TST001", "crashes", Severity.ERROR, "Always raises.", "")
    rule.check_resource = _crashing_check
    return Registry([rule])


@pytest.fixture
def broken_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_main, "default_registry", _broken_registry)


def _errors(tmp_path: Path, *args: str, env: dict | None = None) -> list[dict]:
    path = tmp_path / "pod.yaml"
    path.write_text(MANIFEST)
    result = run_cli("check", "--no-config", "--format", "json", *args, str(path), env=env)
    assert result.exit_code == 2
    return json.loads(result.output)["errors"]


def test_without_debug_the_message_says_how_to_get_the_traceback(
    tmp_path: Path, broken_rules: None
) -> None:
    (error,) = _errors(tmp_path)
    assert error["path"].endswith("pod.yaml") and (error["line"], error["column"]) == (1, 1)
    # The exception's type only: its text may quote the document (issue 13).
    assert error["message"] == (
        "internal error in rule TST001 crashes: ZeroDivisionError; the other rules ran "
        f"({HINT}; please report it)"
    )
    assert "Traceback" not in error["message"]


@pytest.mark.parametrize(
    ("args", "env"), [(("--debug",), None), ((), {"GPULINT_DEBUG": "1"})], ids=["flag", "env"]
)
def test_debug_shows_the_traceback_of_the_rule(
    tmp_path: Path, broken_rules: None, args: tuple, env: dict | None
) -> None:
    (error,) = _errors(tmp_path, *args, env=env)
    message = error["message"]
    assert message.startswith(
        "internal error in rule TST001 crashes; the other rules ran (please report it):"
    )
    assert "Traceback (most recent call last):" in message
    assert "in _crashing_check" in message and "test_debug.py" in message
    assert message.endswith("ZeroDivisionError: a rule that divides by zero")
    assert HINT not in message


def _crash_outside_rules(*args, **kwargs):
    raise RuntimeError("discovery broke")


@pytest.mark.parametrize("debug", [False, True])
def test_last_resort_handler(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    debug: bool,
) -> None:
    monkeypatch.setattr(cli_main.discovery, "discover", _crash_outside_rules)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPULINT_DEBUG", raising=False)
    argv = ["gpulint", "check", "--no-config"] + (["--debug"] if debug else []) + ["x.yaml"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_info:
        cli_main.main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(
        f"gpulint: internal error: RuntimeError ({HINT}; please report it)"
    )
    assert ("Traceback (most recent call last):" in err) is debug
    assert ("in _crash_outside_rules" in err) is debug
