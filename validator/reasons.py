"""Reasons, the disposition they add up to, and how they are ordered (SPEC §3).

Each reason code and the disposition it implies are in :mod:`curator_io.catalogue`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from curator_io.catalogue import ACCEPTED, DEFERRED, DISPOSITION_OF, QUARANTINED, REASON_MEMBERS, REJECTED

__all__ = ["Reason", "DISPOSITION_OF", "STRENGTH", "strongest", "sort_reasons", "reasons_json"]

Reason = tuple[str, str | None]
"""``(code, subject)``."""

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


_CODE, _SUBJECT = REASON_MEMBERS


def reasons_json(reasons: Iterable[Reason]) -> list[dict[str, str | None]]:
    # A literal, not validator.members.json_object: one call per reason would cost more than the dict.
    return [{_CODE: code, _SUBJECT: subject} for code, subject in reasons]
