"""Start a renderer: an argument list (never a shell), a timeout, no network.

The only function in gpulint that starts a process. Proxies point at a closed
local port and git may use only local repositories, so a chart dependency or a
remote Kustomize base fails fast with the tool's own message instead of
reaching out to the network.
"""

from __future__ import annotations

import os
import subprocess

from gpulint.record import record

# A port nothing listens on: connections are refused at once.
_NO_PROXY_TARGET = "http://127.0.0.1:9"


@record(frozen=True)
class Outcome:
    """How a helm or kustomize run ended: its output, or why it failed."""

    ok: bool
    stdout: str
    message: str  # the tool's error (stderr), or why it could not run


def offline_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        env[name] = _NO_PROXY_TARGET
    for name in ("NO_PROXY", "no_proxy"):
        env.pop(name, None)
    env["GIT_ALLOW_PROTOCOL"] = "file"
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def run_tool(argv: list[str], timeout: float, cwd: str | None = None) -> Outcome:
    name = os.path.basename(argv[0])
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=offline_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(False, "", f"{name} did not finish within {timeout:g} s")
    except OSError as exc:
        return Outcome(False, "", f"cannot run {name}: {exc.strerror or exc}")
    stdout = done.stdout.decode("utf-8", errors="replace")
    stderr = done.stderr.decode("utf-8", errors="replace").strip()
    if done.returncode != 0:
        detail = stderr or stdout.strip() or "no message"
        return Outcome(False, stdout, f"{name} exited with code {done.returncode}: {detail}")
    return Outcome(True, stdout, stderr)
