"""The ledger recorder: a batch's reports recorded in a ledger as their results arrive
(``batch --ledger``; docs/ledger.md, "In batch"). It lives beside the batch whose results it
takes; the ledger below knows nothing of batches.

Each result of a batch carries its :class:`~ranking.ledger.records.Recording`
(:attr:`ranking.running.batch.BundleResult.recording`), made where the bundle was scored
(``score_one(..., record=True)``) by :func:`~ranking.ledger.records.recording_of`,
the one way a recording is built. This module only writes them: in input order,
in groups, one transaction per group. The CLI wires it (``batch --ledger``); it
decides nothing about what is recorded.

Not verified again: these reports come from this process's pipeline
(:meth:`~ranking.ledger.store.Ledger.add_produced`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING

from curator_io.errors import EvidenceRankError
from ranking.ledger.records import Recording
from ranking.ledger.store import Ledger

if TYPE_CHECKING:
    from ranking.running.batch import BundleResult  # a type only: batch imports no ledger

__all__ = ["GROUP_REPORTS", "GROUP_SECONDS", "recorded"]

#: Reports are recorded in groups, one transaction per group: each commit rewrites the index
#: pages its rows touch, so one report per commit costs SQLite several times the work
#: (bench/RESULTS.md). The limits bound what a killed batch has scored but not recorded.
GROUP_REPORTS = 64
GROUP_SECONDS = 0.5
_STOPPING_BUSY_S = 0.5


def recorded(results: Iterable[BundleResult], path: str | os.PathLike[str]) -> Generator[BundleResult, None, None]:
    """Each result as it comes, in input order; its report recorded in input order too, in a
    group of at most :data:`GROUP_REPORTS` reports or :data:`GROUP_SECONDS` seconds.

    Each report lands whole, with its rows, or not at all; a batch that stops
    (an unreadable input, SIGTERM) records the group it holds before it ends,
    and a killed one loses at most that group, which running it again records.
    A result of a refused bundle (``error``) has no report and records nothing.
    """
    group: list[Recording] = []
    with Ledger.open(path) as ledger:
        try:
            started = 0.0
            for result in results:
                if result.outcome != "error":
                    if not group:
                        started = time.monotonic()
                    group.append(_recording_of(result))
                    if len(group) >= GROUP_REPORTS or time.monotonic() - started >= GROUP_SECONDS:
                        full, group = group, []
                        ledger.add_produced(full)
                yield result
        except BaseException:
            # Stopped early (an unreadable input, SIGTERM, Ctrl-C): what was scored is recorded, if the
            # ledger lets us within a moment; the error that stopped the batch is the one reported.
            ledger.busy_timeout = _STOPPING_BUSY_S
            with contextlib.suppress(EvidenceRankError):
                ledger.add_produced(group)
            raise
        ledger.add_produced(group)


def _recording_of(result: BundleResult) -> Recording:
    if result.recording is None:
        # A caller's mistake, not an input's: the engine function was not given record=True.
        raise ValueError(f"{result.source.label}: scored without record=True, so there is nothing to record")
    return result.recording
