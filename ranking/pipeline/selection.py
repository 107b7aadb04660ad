"""Ranking and selection (SPEC §5): keep the eligible, order them, drop
duplicates and conflicts, select the first survivors.

Duplicates and conflicts are found through indexes by fingerprint and by key,
never by comparing all pairs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from curator_io.catalogue import DEFERRED, SELECTED, SUPERSEDED, UNSELECTED
from curator_io.grammar import instant_key
from curator_io.models import Scope
from validator import Operation, Proposal, ValidationEntry

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = [
    "Ranked",
    "Decision",
    "split_eligible",
    "order_key",
    "order_eligible",
    "select_survivors",
    "conflicts",
    "operations_conflict",
]


class Ranked(NamedTuple):
    """An eligible proposal with its score."""

    entry: ValidationEntry
    final: int
    """In hundredths (:mod:`ranking.pipeline.numbers`)."""

    @property
    def proposal(self) -> Proposal:
        # Cannot fail: only accepted (hence complete) proposals are eligible.
        assert self.entry.proposal is not None
        return self.entry.proposal


class Decision(NamedTuple):
    """The final disposition of one ranked proposal."""

    disposition: str
    """``selected``, ``unselected`` or ``superseded``."""
    reason: tuple[str, str | None]
    superseded_by: str | None = None


_SELECTED = Decision(SELECTED, ("rank.selected", None))
_UNSELECTED = Decision(UNSELECTED, ("rank.limit", None))
_BELOW_THRESHOLD = Decision(DEFERRED, ("rank.below_threshold", None))


def split_eligible(accepted: Iterable[Ranked], cut: int) -> tuple[list[Ranked], dict[str, Decision]]:
    """SPEC §5.1: the accepted proposals with ``final >= threshold``, and a ``deferred``
    decision for each of the others. ``cut`` is the threshold in hundredths, as ``final`` is
    (:attr:`Config.threshold_hundredths`)."""
    eligible: list[Ranked] = []
    below: dict[str, Decision] = {}
    for r in accepted:
        if r.final >= cut:
            eligible.append(r)
        else:
            below[r.entry.id] = _BELOW_THRESHOLD
    return eligible, below


def order_key(final: int | Fraction, lineages: int, earliest: str, pid: str) -> tuple[int | Fraction, int, str, str]:
    """SPEC §5.2 as a sort key, from the values it orders by: ``final`` (in hundredths)
    descending, ``support.lineages`` descending, ``support.earliest`` ascending as instants,
    ``id`` ascending. The pipeline orders the eligible by it, and SPEC §7's ``order`` check
    the report's ``ranking`` (:mod:`ranking.checking.verification`)."""
    return (-final, -lineages, instant_key(earliest), pid)


def _ranked_order_key(r: Ranked) -> tuple[int | Fraction, int, str, str]:
    facts = r.entry.support
    assert facts is not None and facts.earliest is not None  # Cannot fail: V is non-empty when accepted.
    return order_key(r.final, facts.lineages, facts.earliest, r.entry.id)


def order_eligible(eligible: list[Ranked]) -> list[Ranked]:
    return sorted(eligible, key=_ranked_order_key)


def operations_conflict(op: Operation, scope: Scope, other: Operation, other_scope: Scope) -> bool:
    """SPEC §5.3, for two operations on the same key, each under its proposal's scope:
    they conflict when they are not identical, or when the scopes differ."""
    return op != other or scope != other_scope


def conflicts(a: Proposal, b: Proposal) -> bool:
    """SPEC §5.3: two proposals conflict when an operation of each on one key conflicts."""
    ops_b = {op.key: op for op in b.operations}
    for op in a.operations:
        other = ops_b.get(op.key)
        if other is not None and operations_conflict(op, a.scope, other, b.scope):
            return True
    return False


def select_survivors(ordered: list[Ranked], max_selected: int) -> dict[str, Decision]:
    """SPEC §5.3-§5.4: walk the order, keeping survivors; superseded proposals block nothing."""
    decisions: dict[str, Decision] = {}
    by_fingerprint: dict[str, str] = {}
    by_key: dict[str, list[tuple[int, Proposal, Operation]]] = {}
    survivors = 0
    for rank, r in enumerate(ordered):
        p = r.proposal
        first = by_fingerprint.get(p.fingerprint)
        if first is not None:
            decisions[p.id] = Decision(SUPERSEDED, ("rank.duplicate", first), first)
            continue
        blocker = _highest_conflicting(p, by_key)
        if blocker is not None:
            decisions[p.id] = Decision(SUPERSEDED, ("rank.conflict", blocker), blocker)
            continue
        by_fingerprint[p.fingerprint] = p.id
        for op in p.operations:
            by_key.setdefault(op.key, []).append((rank, p, op))
        survivors += 1
        decisions[p.id] = _SELECTED if survivors <= max_selected else _UNSELECTED
    return decisions


def _highest_conflicting(p: Proposal, by_key: dict[str, list[tuple[int, Proposal, Operation]]]) -> str | None:
    best: tuple[int, str] | None = None
    for op in p.operations:
        for rank, survivor, other in by_key.get(op.key, ()):  # in rank order
            if best is not None and rank >= best[0]:
                break
            if operations_conflict(op, p.scope, other, survivor.scope):
                best = (rank, survivor.id)
                break
    return None if best is None else best[1]
