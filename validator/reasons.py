"""Reason codes, the dispositions they imply, and how reasons are ordered (SPEC §3)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["Reason", "DISPOSITION_OF", "STRENGTH", "strongest", "sort_reasons", "reasons_json"]

Reason = tuple[str, str | None]
"""``(code, subject)``."""

ACCEPTED: Final = "accepted"
DEFERRED: Final = "deferred"
QUARANTINED: Final = "quarantined"
REJECTED: Final = "rejected"

#: The disposition each validation reason implies (SPEC §3.1-§3.5).
DISPOSITION_OF: Final[dict[str, str]] = {
    "proposal.incomplete": REJECTED,
    "closure.unknown_lesson": REJECTED,
    "closure.unknown_evidence": REJECTED,
    "closure.unknown_trace": REJECTED,
    "closure.unknown_materialization": REJECTED,
    "closure.outside_lesson": REJECTED,
    "closure.conflicting_stance": REJECTED,
    "closure.step_out_of_range": REJECTED,
    "closure.stale_memory": REJECTED,
    "closure.unknown_instruction": REJECTED,
    "closure.key_exists": REJECTED,
    "closure.stale_instruction": REJECTED,
    "artifact.invalid_digest": REJECTED,
    "artifact.digest_mismatch": REJECTED,
    "delta.oversized": REJECTED,
    "delta.noop": REJECTED,
    "instruction.duplicate": REJECTED,
    "evidence.quarantined": ACCEPTED,
    "support.quarantined": QUARANTINED,
    "support.insufficient_lineages": DEFERRED,
    "support.counterevidence": REJECTED,
    "scope.mismatch": REJECTED,
}

#: rejected > quarantined > deferred > accepted.
STRENGTH: Final[dict[str, int]] = {ACCEPTED: 0, DEFERRED: 1, QUARANTINED: 2, REJECTED: 3}


def strongest(reasons: Iterable[Reason]) -> str:
    """The strongest disposition any reason implies; ``accepted`` when none does."""
    best = ACCEPTED
    for code, _ in reasons:
        implied = DISPOSITION_OF[code]
        if STRENGTH[implied] > STRENGTH[best]:
            best = implied
    return best


def sort_reasons(reasons: Iterable[Reason]) -> tuple[Reason, ...]:
    """By code, then subject (null first), ordinal, without duplicates."""
    unique = set(reasons)
    if len(unique) < 2:  # most proposals have no reason, or one
        return tuple(unique)
    return tuple(sorted(unique, key=_reason_order))


def _reason_order(reason: Reason) -> tuple[str, bool, str]:
    code, subject = reason
    return code, subject is not None, subject or ""


def reasons_json(reasons: Iterable[Reason]) -> list[dict[str, str | None]]:
    return [{"code": code, "subject": subject} for code, subject in reasons]
