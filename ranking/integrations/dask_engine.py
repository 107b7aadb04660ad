"""Batch scoring on a Dask cluster: ``evidence-rank batch ... --engine dask [--scheduler tcp://HOST:8786]``.

Each bundle is one task: the client sends ``(index, source, bytes)`` and gets back a
:class:`ranking.running.batch.BundleResult` (bytes ready to write), so the files the
CLI writes are the same as the local engine's. An input error is a result,
not a task failure. Tasks are submitted a window at a time and collected in
input order, so a 100k-line JSONL is never held whole on the client; a task
whose worker dies is run again by the scheduler (its result was never
collected, so it is neither lost nor counted twice).

Without a scheduler address a ``LocalCluster`` of worker processes is started
for the run. Workers of a remote cluster need ``evidence-rank`` installed.

Needs the optional extra: ``pip install 'evidence-rank[dask]'``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import TYPE_CHECKING, TypeVar

try:
    from dask.distributed import Client, Future, LocalCluster, as_completed
    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.registry import backends
    from distributed.security import Security
except ImportError as e:
    raise ImportError("ranking.integrations.dask_engine needs Dask: pip install 'evidence-rank[dask]'") from e

from curator_io.errors import ConfigError

if TYPE_CHECKING:
    from dask.typing import Key

__all__ = ["DaskEngine", "dask_engine"]

T = TypeVar("T")
R = TypeVar("R")

_RETRIES = 2
"""Re-runs of a task that raised; a worker that died is handled by the scheduler (allowed-failures)."""


class DaskEngine:
    """Map a function over items on a Dask cluster, one task per item, results in input order."""

    def __init__(self, client: Client, *, window: int | None = None) -> None:
        self.client = client
        threads = sum(client.nthreads().values())
        self.window = window or max(16, 4 * threads)
        """Tasks in flight at most: bounds what the client and the cluster hold."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """Results in input order; at most ``window`` tasks submitted and not yet yielded.

        1. Submit items until the window is full.
        2. As each task completes (in any order), keep its result by position.
        3. Yield every result that is next in input order; refill the window.
        """
        iterator = iter(items)
        completed = as_completed(with_results=True, loop=self.client.loop)
        pending: dict[Key, tuple[int, Future[R]]] = {}
        done: dict[int, R] = {}
        submitted = yielded = 0

        def refill() -> None:
            nonlocal submitted
            room = self.window - (submitted - yielded)
            if room < self.window // 2:
                return  # submit in batches: one call per batch is much cheaper than one per task
            batch = list(islice(iterator, room))
            if not batch:
                return
            # pure=False: two identical lines are two bundles, two tasks.
            for future in self.client.map(fn, batch, pure=False, retries=_RETRIES):
                pending[future.key] = (submitted, future)
                completed.add(future)
                submitted += 1

        try:
            refill()  # 1
            for future, result in completed:
                done[pending.pop(future.key)[0]] = result  # 2
                while yielded in done:  # 3
                    yield done.pop(yielded)
                    yielded += 1
                refill()
        finally:
            if pending:
                self.client.cancel([f for _, f in pending.values()])


def _connect(scheduler: str, timeout: float) -> Client:
    _check_address(scheduler)  # before a Client exists: a half-built one lingers until exit
    try:
        return Client(scheduler, timeout=timeout, set_as_default=False)
    except Exception as e:  # noqa: BLE001  # a peer that is no scheduler can make its decoder raise anything
        # OSError covers refused connections, unknown hosts and the timeout (TimeoutError); a service
        # that answers in another protocol makes Dask decode its bytes as a message (a MemoryError
        # for a 3 EiB frame, seen with an HTTP server).
        _forget(e)
        why = (
            f"cannot reach the Dask scheduler {scheduler!r} within {timeout:g} s: {e}"
            if isinstance(e, OSError)
            else f"{scheduler!r} answers, but not as a Dask scheduler ({type(e).__name__}: {e})"
        )
        raise ConfigError("usage.scheduler_unreachable", why) from None


def _check_address(scheduler: str) -> None:
    """Refuse an address no Client could connect to, whatever answers there: an unknown scheme,
    no port or one that is not a number, ``inproc://`` (this process only), ``tls://`` with none
    of Dask's TLS settings. Said as what it is, where a Client would fail while it is built and
    the error would read as if something had answered."""
    scheme, location = parse_address(scheduler)
    why = None
    if scheme not in backends or not location:
        why = ""
    elif scheme in ("tls", "wss") and Security().get_connection_args("client")["ssl_context"] is None:
        why = f": {scheme}:// needs Dask's TLS settings (distributed.comm.tls), and none are set"
    else:
        try:
            get_address_host_port(scheduler)
        except ValueError as e:
            why = f": {e}"
    if why is not None:
        raise ConfigError(
            "usage.scheduler_unreachable",
            f"{scheduler!r} is not a Dask scheduler address (expected e.g. tcp://HOST:8786){why}",
        )


def _forget(error: BaseException) -> None:
    """Close the half-built Client a failed constructor leaves behind, now and quietly: left to its
    ``__del__``, it tries again seconds later and prints a traceback after our one-line error."""
    tb = error.__traceback__
    while tb is not None:
        half = tb.tb_frame.f_locals.get("self")
        tb = tb.tb_next
        if isinstance(half, Client):
            with contextlib.suppress(Exception):
                half.close(timeout=1)
            half._Client__loop = None  # type: ignore[attr-defined]  # what __del__ reads as "never started"
            return


@contextmanager
def dask_engine(
    scheduler: str | None = None, *, workers: int = 2, connect_timeout: float = 10.0
) -> Iterator[DaskEngine]:
    """A :class:`DaskEngine` on the cluster at ``scheduler``, or on a LocalCluster started (and closed) here."""
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        )
        client = Client(cluster, set_as_default=False)
    else:
        client = _connect(scheduler, connect_timeout)
    try:
        yield DaskEngine(client)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
