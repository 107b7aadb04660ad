"""``score --ledger``: the run's report recorded in the ledger, a part of ``score`` in the command
table, so that a ``score`` without it pays for neither sqlite3 nor the ledger package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ranking.cli.logs import get_logger
from ranking.ledger.curator import record_run
from ranking.ledger.notes.composing import standing_mark
from ranking.ledger.store import Ledger

if TYPE_CHECKING:
    from ranking.pipeline import Result
    from ranking.signing.signers import Signer

__all__ = ["record_scored"]


def record_scored(
    path: str, result: Result, signer: Signer | None = None, bundle: bytes | None = None
) -> dict[str, str]:
    """``score --ledger``: record the run's report (:func:`ranking.ledger.curator.record_run`), and
    the mark of each of its proposals whose edit the ledger had decided before and not admitted
    last (``refused 2× before: …``, ``deferred 1× before: …``), logged too."""
    log = get_logger()
    with Ledger.open(path) as ledger:
        before = record_run(ledger, result, signer, bundle=bundle)
    marks = {}
    for entry in result.report["proposals"]:
        standing = before.get(entry["fingerprint"]) if entry["fingerprint"] else None
        mark = standing_mark(standing, entry["id"]) if standing is not None else None
        if standing is None or mark is None:
            continue
        marks[entry["id"]] = mark
        log.info(
            "ledger.seen_before",
            proposal=entry["id"],
            fingerprint=standing.fingerprint,
            note=standing.kind,
            times=standing.times,
            codes=list(standing.decision.distinct_codes),
            run=standing.decision.run,
        )
    return marks
