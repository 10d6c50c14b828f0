"""The ``gpulint lsp`` process: shutdown and exit end it; without pygls it says what to install."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import run_cli


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


@pytest.mark.slow
def test_shutdown_and_exit_end_the_process() -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    process = subprocess.run(
        [sys.executable, "-m", "gpulint", "lsp"],
        input=b"".join(_frame(m) for m in messages),
        capture_output=True,
        timeout=30,
    )
    assert process.returncode == 0
    assert b'"id": 2' in process.stdout or b'"id":2' in process.stdout  # shutdown answered


def test_without_pygls_the_command_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "gpulint.lsp.server", raising=False)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)  # as if not installed
    result = run_cli("lsp")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "gpulint lsp needs the lsp extra: pip install 'gpulint[lsp]'\n"
