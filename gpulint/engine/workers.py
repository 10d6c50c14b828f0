"""Spread targets over worker processes; results come back in target order.

Each file is linted on its own (``engine.lint_target``) and cross-file rules
only collect small picklable facts per file, so workers need nothing from each
other. Results are yielded in the order of the targets, which makes the output
of ``--jobs N`` identical to ``--jobs 1``. Processes are used only when the
input is big enough to pay for starting them.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from gpulint.inputs.discover import Target

if TYPE_CHECKING:  # multiprocessing costs start-up time; imported only when workers start
    from concurrent.futures import ProcessPoolExecutor

# Below this much input, one process is faster than starting several (a worker
# costs ~20 ms to start; linting a megabyte of manifests takes ~1 s).
MIN_PARALLEL_BYTES = 1_000_000
# A rendered folder (Helm chart, kustomization) counts as this many bytes of work.
RENDER_WEIGHT = 500_000
# Chunks per worker: small enough to balance uneven files, large enough that
# pickling results stays cheap.
CHUNKS_PER_JOB = 4

LintOne = Callable[[Target, Any], Any]

# The worker's context: inherited when the platform forks, else sent once per worker.
_WORKER: tuple[LintOne, Any] | None = None


def cpu_count() -> int:
    """Cores this process may run on (a container's CPU set, not the host's)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _weight(target: Target) -> int:
    if target.kind == "file":
        try:
            return os.stat(target.path).st_size
        except OSError:
            return 0
    return RENDER_WEIGHT


def worth_it(targets: Sequence[Target], jobs: int) -> bool:
    """Whether spreading ``targets`` over ``jobs`` processes pays for the processes."""
    if jobs <= 1:
        return False
    movable = [t for t in targets if t.kind != "stdin"]
    if len(movable) < 2:
        return False
    total = 0
    for target in movable:
        total += _weight(target)
        if total >= MIN_PARALLEL_BYTES:
            return True
    return False


def _chunks(indexes: list[int], targets: Sequence[Target], jobs: int) -> list[list[int]]:
    """Contiguous runs of similar weight, so each worker reads neighbouring files."""
    weights = [max(_weight(targets[i]), 1) for i in indexes]
    count = min(len(indexes), jobs * CHUNKS_PER_JOB)
    share = sum(weights) / count
    chunks: list[list[int]] = [[]]
    filled = 0.0
    for index, weight in zip(indexes, weights, strict=True):
        if chunks[-1] and filled + weight > share and len(chunks) < count:
            chunks.append([])
            filled = 0.0
        chunks[-1].append(index)
        filled += weight
    return chunks


def _worker_signals() -> None:
    """Ctrl-C reaches the whole process group: the main process alone handles it and stops
    the workers, so no worker prints a KeyboardInterrupt traceback. It stops them with
    SIGTERM, which ends a worker and the renderers it started at once."""
    from gpulint.inputs.render import process  # only in a worker process

    process.worker_signals()


def _init_worker(lint_one: LintOne, ctx: Any) -> None:
    global _WORKER
    _WORKER = (lint_one, ctx)


def _init_spawned(lint_one: LintOne, ctx: Any) -> None:
    _worker_signals()
    _init_worker(lint_one, ctx)


def _lint_chunk(chunk: list[Target]) -> list[Any]:
    assert _WORKER is not None, "worker started without a context"
    lint_one, ctx = _WORKER
    return [lint_one(target, ctx) for target in chunk]


def _pool(jobs: int, lint_one: LintOne, ctx: Any) -> ProcessPoolExecutor | None:
    import multiprocessing
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from gpulint.inputs.render import process

    # SIGTERM from now on stops the workers (and their renderers) as Ctrl-C does.
    process.guard_signals()
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        # Forked workers inherit the context (rules, registered readers, settings) as is.
        _init_worker(lint_one, ctx)
        # Objects alive now (modules, rules, the catalog) live for the whole run: frozen,
        # the cyclic collector never traverses them, so a worker does not copy the pages
        # it inherited just to mark them.
        gc.freeze()
        return ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_signals
        )
    try:
        pickle.dumps((lint_one, ctx))
    except Exception:  # e.g. a rule defined in a closure: lint in this process instead
        return None
    return ProcessPoolExecutor(
        jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_spawned,
        initargs=(lint_one, ctx),
    )


def lint_all(
    targets: Sequence[Target],
    ctx: Any,
    lint_one: LintOne,
    jobs: int,
    notes: list[str] | None = None,
) -> Iterator[Any]:
    """``lint_one(target, ctx)`` for every target, in target order, over ``jobs`` processes
    (what the user should know about how, such as a fallback, is appended to ``notes``)."""
    targets = list(targets)
    if not worth_it(targets, jobs):
        for target in targets:
            yield lint_one(target, ctx)
        return
    # Standard input can only be read here; everything else may move to a worker.
    movable = [i for i, t in enumerate(targets) if t.kind != "stdin"]
    chunks = _chunks(movable, targets, jobs)
    pool = _pool(min(jobs, len(chunks)), lint_one, ctx)
    if pool is None:
        for target in targets:
            yield lint_one(target, ctx)
        return
    try:
        futures = _submit(pool, chunks, targets)
        if futures is None:  # no worker could be started (a process limit)
            _stop(pool)
            if notes is not None:
                notes.append(
                    "could not start worker processes (a process limit?); linted in this process"
                )
            for target in targets:
                yield lint_one(target, ctx)
            return
        yield from _results(futures, chunks, targets, ctx, lint_one)
    except BaseException:  # Ctrl-C, or the consumer stopped: do not drain the queue
        _stop(pool)
        raise
    else:
        pool.shutdown()
    finally:
        gc.unfreeze()  # what was frozen for the workers may be collected again


def _submit(pool: ProcessPoolExecutor, chunks: list[list[int]], targets: Sequence[Target]):
    """The chunks' futures, or None when the pool cannot start its processes."""
    with _signals_held():
        try:
            return [pool.submit(_lint_chunk, [targets[i] for i in chunk]) for chunk in chunks]
        except (OSError, RuntimeError):  # fork: BlockingIOError (EAGAIN) under ulimit -u
            return None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while the workers are forked: a KeyboardInterrupt
    raised in an at-fork hook is swallowed ("Exception ignored"), and the run would go on;
    a worker that has not yet set its own SIGTERM handler would raise in the main
    process's code. Held, they arrive when the pool is up; the workers, forked with them
    blocked, never see Ctrl-C and take SIGTERM once ready (``process.worker_signals``)."""
    import signal  # only when a pool starts

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and end the workers now, without waiting for them."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, AttributeError):
            process.terminate()
    for process in processes:
        process.join(timeout=1)


def _results(
    futures: list[Any],
    chunks: list[list[int]],
    targets: Sequence[Target],
    ctx: Any,
    lint_one: LintOne,
) -> Iterator[Any]:
    # Standard input is read here while the workers run.
    local = {i: lint_one(t, ctx) for i, t in enumerate(targets) if t.kind == "stdin"}
    chunk_of = {i: n for n, chunk in enumerate(chunks) for i in chunk}
    ready: dict[int, Any] = {}
    for i in range(len(targets)):
        if i in local:
            yield local.pop(i)
            continue
        n = chunk_of[i]
        if i not in ready:
            ready.update(
                zip(
                    chunks[n],
                    _collect(futures[n], chunks[n], targets, ctx, lint_one),
                    strict=True,
                )
            )
        yield ready.pop(i)


def _collect(
    future: Any, chunk: list[int], targets: Sequence[Target], ctx: Any, lint_one: LintOne
) -> list[Any]:
    try:
        return future.result()
    except Exception:
        # A worker died (killed, out of memory) or a result could not travel back
        # (a rule's fact that does not pickle): lint those files here instead, so the
        # output is still the one a single process gives.
        return [lint_one(targets[i], ctx) for i in chunk]
