"""Start a renderer: an argument list (never a shell), in a process group of its own, with
a timeout, its output read up to a cap, and no network it could reach on its own.

The only module of gpulint that starts a process. Each child starts a new session (its
own process group) and stays in a registry while it lives, so the whole group dies with
the run however the run ends: a normal return (whatever the tool left in its group), an
exception, the timeout, output past the cap, Ctrl-C and SIGTERM. Once a process has
children, SIGINT and SIGTERM kill their groups first: the main process then raises
(``KeyboardInterrupt``, :class:`~gpulint.inputs.render.Terminated`), a worker process of
``--jobs`` exits at once (:func:`worker_signals`). A signal that arrives while a child is
being started waits until it is registered. On Linux each child is also told to die with
the process that started it (``PR_SET_PDEATHSIG``), so SIGKILL of gpulint kills the tool
too; elsewhere that one case leaves it to its first write to the closed pipe.

Proxies point at a closed local port and git may use only local repositories: a belt,
not the defence (loopback bypasses proxies); what a render would fetch is refused before
it runs (``remote.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from functools import partial
from types import FrameType

from gpulint.core.record import record
from gpulint.core.sources import MAX_FILE_BYTES
from gpulint.inputs.render import Terminated

# A port nothing listens on: connections are refused at once.
_NO_PROXY_TARGET = "http://127.0.0.1:9"
# What a render may print, as what a file may hold: more is a chart gone wrong (or hostile).
MAX_OUTPUT_BYTES = MAX_FILE_BYTES
_CHUNK = 1 << 16
_LONGEST_WAIT = 3600.0  # one select() at most; an infinite timeout still loops


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _linux_prctl() -> Callable[..., int] | None:
    if os.uname().sysname != "Linux":
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _linux_prctl()


def _die_with_parent(parent: int) -> None:
    """In the child, before exec: SIGKILL when the process that started it dies, however
    it dies (a parent already gone by now: exit at once)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


@record(frozen=True)
class Outcome:
    """How a helm or kustomize run ended: its output, or why it failed."""

    ok: bool
    stdout: str
    message: str  # the tool's error (stderr), or why it could not run


# Children alive now, by pid (= their process group).
_LIVE: dict[int, subprocess.Popen] = {}
_starting = False  # a child is being started: a signal waits in _pending
_pending: int | None = None
_in_worker = False  # a --jobs worker: a signal ends the process instead of raising


def offline_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        env[name] = _NO_PROXY_TARGET
    for name in ("NO_PROXY", "no_proxy"):
        env.pop(name, None)
    env["GIT_ALLOW_PROTOCOL"] = "file"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.update(extra or {})
    return env


def run_tool(
    argv: list[str], timeout: float, cwd: str | None = None, env: dict[str, str] | None = None
) -> Outcome:
    """``argv`` run to its end (``env`` over the offline environment), or stopped."""
    name = os.path.basename(argv[0])
    guard_signals()
    child = _start(argv, cwd, offline_env(env))
    if isinstance(child, OSError):
        return Outcome(False, "", f"cannot run {name}: {child.strerror or child}")
    try:
        _release()
        out, err, problem = _read(child, " ".join([name, *argv[1:2]]), timeout)
    finally:
        _end(child)
    if problem:
        return Outcome(False, "", problem)
    stdout = out.decode("utf-8", errors="replace")
    stderr = err.decode("utf-8", errors="replace").strip()
    if child.returncode != 0:
        detail = stderr or stdout.strip() or "no message"
        return Outcome(False, stdout, f"{name} exited with code {child.returncode}: {detail}")
    return Outcome(True, stdout, stderr)


def live() -> list[int]:
    """The pids (and process groups) of the children alive now."""
    return list(_LIVE)


def kill_all() -> None:
    """Kill every live child's process group (reaped where they were started)."""
    for pid in list(_LIVE):
        _kill_group(pid)


def _start(argv: list[str], cwd: str | None, env: dict[str, str]) -> subprocess.Popen | OSError:
    global _starting
    _starting = True
    try:
        child = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own group: killed as a whole, deaf to the tty
            preexec_fn=partial(_die_with_parent, os.getpid()) if _PRCTL is not None else None,
        )
        _LIVE[child.pid] = child
    except OSError as exc:
        return exc
    finally:
        _starting = False
    return child


def _read(child: subprocess.Popen, what: str, timeout: float) -> tuple[bytes, bytes, str]:
    """Both streams to their end and the child to its exit (not reaped), or why not."""
    assert child.stdout is not None and child.stderr is not None
    deadline = time.monotonic() + timeout
    late = f"{what.split()[0]} did not finish within {timeout:g} s"
    out, err = bytearray(), bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ, out)
        selector.register(child.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return b"", b"", late
            for key, _events in selector.select(min(left, _LONGEST_WAIT)):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if len(key.data) > MAX_OUTPUT_BYTES:
                    stream = "output" if key.data is out else "error output"
                    cap = MAX_OUTPUT_BYTES // 2**20
                    return (
                        b"",
                        b"",
                        (
                            f"{what} {stream} exceeds {cap} MiB (gpulint reads a render up to "
                            f"{cap} MiB, as a file); {what.split()[0]} was stopped"
                        ),
                    )
    if not _exited(child, deadline):
        return b"", b"", late
    return bytes(out), bytes(err), ""


def _exited(child: subprocess.Popen, deadline: float) -> bool:
    """Whether the child exits by ``deadline``; left unreaped (a zombie keeps its group id
    taken, so killing the group afterwards cannot reach a stranger)."""
    if not hasattr(os, "waitid"):
        try:
            child.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            return False
        return True
    pause = 0.001
    while True:
        try:
            if os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return True
        except ChildProcessError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _end(child: subprocess.Popen) -> None:
    """Kill what is left of the child's group, close its pipes, reap it, forget it."""
    _kill_group(child.pid)
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()
    child.wait()
    _LIVE.pop(child.pid, None)


def _kill_group(pid: int) -> None:
    # Gone: only a zombie leader was left, or nothing.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


# --- signals ---------------------------------------------------------------------------


def guard_signals() -> None:
    """In the main thread, make SIGINT and SIGTERM kill the children's groups before they
    end the run (the main process raises; see the module's docstring). A disposition
    someone else chose (a handler, SIG_IGN) is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_signal)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_signal)


def worker_signals() -> None:
    """In a ``--jobs`` worker: Ctrl-C is the main process's to handle (it stops the
    workers); SIGTERM, which is how it stops them, kills this worker's children's
    groups and ends the worker at once."""
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_signal)
    # Forked with SIGTERM held (the main process's handler would raise in here): now it
    # may arrive.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    global _pending
    if _starting:
        _pending = signum  # the child is not registered yet: _release delivers it
        return
    _stop(signum)


def _release() -> None:
    global _pending
    signum, _pending = _pending, None
    if signum is not None:
        _stop(signum)


def _stop(signum: int) -> None:
    kill_all()
    if _in_worker:
        os._exit(128 + signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated
