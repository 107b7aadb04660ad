"""What the ledger holds, derived purely from sealed reports.

A *decision* is one entry of a stored ``evidence-ranking-v1`` report (SPEC §6)
as a row: nothing in it is new information, so ``ledger verify`` can derive
every row again from the report's bytes and compare. The row's type,
:class:`~ranking.ledger.fate.DecisionRow`, is defined below this module, in
:mod:`ranking.ledger.fate`, whose history holds rows: this module imports the
pool, which takes its words from ``fate``, so a row defined here would close an
import circle. An *outcome* is what an
agentdescent aggregator's acceptance test did with a diff that a selected
proposal backed: new information, keyed by the digest of its own content.

No files, no database, no clock here: :mod:`ranking.ledger.store` stores what
this module derives.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from curator_io.canonical import canon, digest
from curator_io.jsonio import parse_json
from ranking.ledger.fate import DecisionRow
from ranking.ledger.pool import Memory, Pooled, memory_of, pooled_of
from ranking.signing.signers import Signer
from validator.proposal import Proposal, edit_of

if TYPE_CHECKING:
    from ranking.pipeline import Result

__all__ = [
    "DecisionRow",
    "Outcome",
    "Recording",
    "Edit",
    "decisions_of",
    "recording_of",
    "recording_of_run",
    "edits_of",
    "decision_json",
    "outcome_json",
    "outcome_key",
    "finite",
]


class Outcome(NamedTuple):
    """What the acceptance test did with a diff backed by a selected proposal."""

    report: str
    """The digest of the report whose selection backed the diff."""
    proposal: str
    fingerprint: str | None
    diff: str
    """agentdescent's ``Diff.diff_id``."""
    version: int | None
    """The artifact version the diff was measured against (tells two rounds apart)."""
    category: str
    """``committed``, or the inner policy's refusal category (e.g. ``below-threshold``)."""
    p_improve: float | None
    """The posterior probability the decision rested on; null when not finite."""
    observed_delta: float | None
    """The measured change in the held-out success rate; null when not finite."""


Edit = tuple[str, bytes]
"""(fingerprint, the edit's canonical JSON): what the ``edits`` table holds, one row a fingerprint."""


class Recording(NamedTuple):
    """Everything the ledger stores of one report; it lands whole, in one transaction."""

    digest: str
    run: str
    body: bytes
    """The report's canonical bytes."""
    decisions: tuple[DecisionRow, ...]
    signer: Signer | None = None
    """Who signed the bundle the report was ranked from, as a trust file named them; None
    when it was not checked (unsigned, or no ``--trust``). An attestation: not in the report."""
    edits: tuple[Edit, ...] = ()
    """The edit behind each fingerprint, when the bundle was at hand (:func:`edits_of`)."""
    memory: Memory | None = None
    """The memory the report was ranked against, when the bundle was at hand (schema 4)."""
    pooled: tuple[Pooled, ...] = ()
    """The closure of each edit it deferred or left unselected, when the bundle was at hand."""


def recording_of(
    report: Mapping[str, Any], body: bytes, signer: Signer | None = None, edits: tuple[Edit, ...] = ()
) -> Recording:
    """What recording ``report`` stores; ``body`` is its canonical bytes and ``report`` was
    accepted (:mod:`ranking.checking.acceptance`) or comes from this process's pipeline."""
    return Recording(report["digest"], report["run"], body, decisions_of(report), signer, edits)


def recording_of_run(
    result: Result, signer: Signer | None = None, bundle: bytes | Mapping[str, Any] | None = None
) -> Recording:
    """What recording a run of this process's pipeline stores: its report, who signed its bundle,
    and the edit behind each of its fingerprints (the bundle's proposals are at hand); with the
    bundle it ranked (its bytes or its document), the memory it was ranked against and the pool's
    closures (:mod:`ranking.ledger.pool`)."""
    edits = edits_of(e.proposal for e in result.validation.entries)
    recording = recording_of(result.report, result.canonical, signer, edits)
    if bundle is None:
        return recording
    # Cannot fail: the pipeline ranked these bytes, so they parse and load.
    document = parse_json(bundle) if isinstance(bundle, bytes) else bundle
    proposals = {e.id: e.proposal for e in result.validation.entries if e.proposal is not None}
    return recording._replace(memory=memory_of(document), pooled=pooled_of(document, result.report, proposals))


def edits_of(proposals: Iterable[Proposal | None]) -> tuple[Edit, ...]:
    """The edit of each structurally complete proposal (SPEC §3.6's preimage), each fingerprint once."""
    found = {p.fingerprint: canon(edit_of(p.scope, p.operations)) for p in proposals if p is not None}
    return tuple(sorted(found.items()))


def decisions_of(report: Mapping[str, Any]) -> tuple[DecisionRow, ...]:
    """One decision per entry, in report order. ``report`` was accepted or comes from this
    process's pipeline."""
    # Cannot fail: acceptance validated the report against its schema (SPEC §7), or rank built it.
    return tuple(
        DecisionRow(
            report=report["digest"],
            position=i,
            run=report["run"],
            proposal=e["id"],
            fingerprint=e["fingerprint"],
            lesson=e["lesson"],
            validation=e["validation"],
            disposition=e["disposition"],
            # Codes and subjects are strings (SPEC §6): orjson's sorted text is one text per list.
            reasons=orjson.dumps(e["reasons"], option=orjson.OPT_SORT_KEYS).decode(),
            score=None if e["score"] is None else e["score"]["final"],
            superseded_by=e["superseded_by"],
            rationale=e["rationale"],
        )
        for i, e in enumerate(report["proposals"])
    )


def decision_json(
    decision: DecisionRow, outcomes: tuple[Outcome, ...] = (), signers: tuple[Signer, ...] = ()
) -> dict[str, Any]:
    """A decision as ``ledger export`` and ``history --format json`` write it; ``signers``
    are those recorded for its report, in (key id, name) order (docs/ledger.md)."""
    return {
        "run": decision.run,
        "report": decision.report,
        "proposal": decision.proposal,
        "fingerprint": decision.fingerprint,
        "lesson": decision.lesson,
        "validation": decision.validation,
        "disposition": decision.disposition,
        "reasons": _json(decision.reasons),
        "score": decision.score,
        "superseded_by": decision.superseded_by,
        "rationale": decision.rationale,
        "outcomes": [outcome_json(o) for o in outcomes],
        "signer": signers[0].to_json() if signers else None,
        "signers": [s.to_json() for s in signers],
    }


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "diff": outcome.diff,
        "version": outcome.version,
        "category": outcome.category,
        "p_improve": outcome.p_improve,
        "observed_delta": outcome.observed_delta,
    }


def outcome_key(outcome: Outcome) -> str:
    """The digest of everything the outcome says: recording it twice adds nothing,
    and an edited outcome no longer matches its key."""
    return digest(outcome._asdict())


def finite(value: float | None) -> float | None:
    """``value``, or None when it is not a finite number (RFC 8785 has no NaN or infinity)."""
    return value if value is not None and math.isfinite(value) else None


def _json(text: str) -> Any:
    # Our own text: plain JSON, nothing for the strict loader to refuse.
    return orjson.loads(text)
