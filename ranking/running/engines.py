"""Engines: map a function over items in several processes, results in input order.

Nothing here knows what an item is; :mod:`ranking.running.batch` maps its scoring over
bundles with one of these (``--workers 1``: :class:`SerialEngine`; ``--workers N``:
:class:`ProcessEngine`), and :mod:`ranking.integrations.dask_engine` is the remote one.

A process engine's workers never outlive the process that started them: on
Linux the kernel kills them when it dies, even by SIGKILL (``PR_SET_PDEATHSIG``),
and when it is interrupted (Ctrl-C, SIGTERM) it kills them itself before the
interruption goes on. Signals are the parent's to handle: a worker ignores
Ctrl-C, which a terminal sends to every process of the group.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from multiprocessing import get_all_start_methods, get_context
from typing import Protocol, TypeVar

__all__ = ["Engine", "SerialEngine", "ProcessEngine", "next_chunk_size"]

T = TypeVar("T")
R = TypeVar("R")


class Engine(Protocol):
    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn`` of each item, in the items' order, with a bounded number in flight."""
        ...


class SerialEngine:
    """In this process, one at a time (``--workers 1``)."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        return map(fn, items)


def _apply_all(fn: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [fn(item) for item in chunk]


def _start_method() -> str | None:
    """``fork`` when this process runs no other thread: a worker then starts as a copy of a
    process that has already imported the pipeline (a fresh interpreter's imports are a
    large share of a small batch). Otherwise ``forkserver``, since forking a process that
    holds other threads' locks is unsafe; the platform default where neither exists."""
    methods = get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else None


class ProcessEngine:
    """``workers`` processes score: this one, and a local pool of ``workers - 1``.

    Chunks go out in order and come back in order, a few in flight at most. The
    pool is kept a little ahead (``queued_per_worker`` chunks for each of its
    processes); every other chunk is scored here, in the process that would
    otherwise only wait for results while holding a share of the cores. With two
    cores and ``--workers 2`` that is one forked process and this one, not two
    forked processes and a third that reads, sends and collects.
    """

    def __init__(
        self,
        workers: int,
        *,
        chunk_size: int = 2,
        queued_per_worker: int = 2,
        window: int = 16,
        adapt: bool = True,
    ) -> None:
        if workers < 2:
            raise ValueError(f"a process engine needs at least 2 workers, got {workers}")
        self.workers = workers
        self.chunk_size = chunk_size
        """Items in the first chunks."""
        self.adapt = adapt
        """Size later chunks from how long this process took for its own (:func:`next_chunk_size`)."""
        self.queued = (workers - 1) * queued_per_worker
        """Chunks the pool holds (scoring or queued) before this process takes the next one."""
        self.window = max(window, self.queued + 1)
        """Chunks handed out and not yet yielded, at most: bounds memory however long the input."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        method = _start_method()
        # A forked worker's parent is this process; a forkserver's is the server, which ends with this one.
        parent = os.getpid() if method == "fork" else None
        pool = ProcessPoolExecutor(
            self.workers - 1, mp_context=get_context(method), initializer=_worker_started, initargs=(parent,)
        )
        pending: deque[Future[list[R]]] = deque()
        size = self.chunk_size
        iterator = iter(items)
        try:
            while chunk := list(islice(iterator, size)):
                if sum(not f.done() for f in pending) < self.queued:
                    with _signals_held():  # a submit may fork the pool's processes
                        pending.append(pool.submit(_apply_all, fn, chunk))
                else:
                    start = time.perf_counter()
                    pending.append(_apply_here(fn, chunk))
                    if self.adapt:
                        size = next_chunk_size((time.perf_counter() - start) / len(chunk))
                while pending and (pending[0].done() or len(pending) >= self.window):
                    yield from pending.popleft().result()
            while pending:
                yield from pending.popleft().result()
        except BaseException as e:
            if not isinstance(e, Exception):
                # Interrupted (Ctrl-C, SIGTERM) or abandoned: the chunks in flight are not wanted,
                # so do not wait for them. A killed worker's half-written file is a temporary
                # file, which the next run into the folder sweeps.
                _kill_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


#: The signals that end a run: held back while the pool forks, set free in each worker.
_ENDING = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back, then deliver them. A handler that runs inside ``os.fork``'s
    hooks (the first submit forks every worker) has its exception printed and dropped: the
    signal was lost, and a terminated batch ran to the end and exited 0."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows: no fork, no hooks
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_started(parent: int | None) -> None:
    """First thing in each pool process: leave signals to the parent, and die with it.

    The collector is off, as in the command's own process (``ranking.cli.collector``):
    a worker scores bundle after bundle, and its passes would find no cycle.
    """
    gc.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the parent decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker would inherit the CLI's handler
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)  # forked while the parent held them back
    if _die_with_parent() and parent is not None and os.getppid() != parent:
        os._exit(1)  # the parent died before the line above took effect


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where that cannot be asked.

    Without it, a worker whose parent was killed waits forever for work on a pipe
    it holds both ends of (it was forked with them).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    return bool(prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    # The executor has no public way to stop its processes now; `_processes` (pid -> Process)
    # has been there since Python 3.2. Without it, shutdown() still waits for the chunks in flight.
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()


#: How long a chunk should take: long enough that handing it to a process costs
#: little beside it, short enough that the last chunks leave no process idle long.
CHUNK_SECONDS = 0.02
MAX_CHUNK = 64


def next_chunk_size(seconds_per_item: float) -> int:
    """Items per chunk for items that take ``seconds_per_item`` each: about
    :data:`CHUNK_SECONDS` of work, between 1 and :data:`MAX_CHUNK` items.

    Tiny chunks of small bundles spend their time on being handed over; long ones
    leave a process idle at the end (bench/RESULTS.md has the measurements). A
    large bundle is a chunk of its own.
    """
    if seconds_per_item <= 0:
        return MAX_CHUNK
    return max(1, min(MAX_CHUNK, int(CHUNK_SECONDS / seconds_per_item)))


def _apply_here(fn: Callable[[T], R], chunk: list[T]) -> Future[list[R]]:
    """:func:`_apply_all` in this process, as a finished future, so that an error is raised in
    its turn in input order, as one from the pool would be, not ahead of earlier chunks'."""
    done: Future[list[R]] = Future()
    try:
        done.set_result(_apply_all(fn, chunk))
    except Exception as e:  # noqa: BLE001  carried, not handled: .result() raises it again, as the pool's futures do
        done.set_exception(e)
    return done
