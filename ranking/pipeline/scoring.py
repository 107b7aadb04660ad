"""Scoring (SPEC §4): six components minus a contradiction penalty, exactly.

Each component is held as ``int`` hundredths (see :mod:`ranking.pipeline.numbers`).
:func:`recurrence`, :func:`scope_coverage` and :func:`contradiction_penalty` are the
only statements of their rules: SPEC §7's ``components`` check
(:mod:`ranking.checking.verification`) calls them, and ``explain`` writes their
formulas from the same constants of :mod:`curator_io.catalogue` and the same terms.
"""

from __future__ import annotations

from typing import NamedTuple

from curator_io.catalogue import MAXIMA, PENALTY_MAXIMUM, RECURRENCE_PER_LINEAGE, SCORE_MEMBERS
from ranking.pipeline.numbers import hundredths_to_json, r2_hundredths
from validator import ValidationEntry
from validator.members import json_object

__all__ = ["Score", "contradiction_penalty", "recurrence", "scope_coverage", "scope_coverage_terms", "score_entry"]

_RECURRENCE_MAXIMUM = MAXIMA["recurrence"]
_COMPLETENESS = 100 * MAXIMA["completeness"]  # SPEC §4: every accepted proposal is complete.


class Score(NamedTuple):
    """The §4 components, each in hundredths of a point."""

    recurrence: int
    provenance: int
    source_signal: int
    scope_coverage: int
    confidence: int
    completeness: int
    contradiction_penalty: int
    final: int

    def to_json(self) -> dict[str, int | float]:
        return _SCORE(*map(hundredths_to_json, self))


assert Score._fields == SCORE_MEMBERS  # the report's members, in the same order
_SCORE = json_object(SCORE_MEMBERS)


def recurrence(lineages: int) -> int:
    """SPEC §4 ``recurrence``, in hundredths: min(30, 10·n) for n independent lineages."""
    return 100 * min(_RECURRENCE_MAXIMUM, RECURRENCE_PER_LINEAGE * lineages)


def scope_coverage(materializations: int, revisions: int) -> int:
    """SPEC §4 ``scope_coverage``, in hundredths: its two terms (:func:`scope_coverage_terms`) added."""
    spread, spanned = scope_coverage_terms(materializations, revisions)
    return 100 * (spread + spanned)


def scope_coverage_terms(materializations: int, revisions: int) -> tuple[int, int]:
    """The two terms of SPEC §4 ``scope_coverage``, in points: min(10, 5·M) for M distinct
    materializations of V's traces, and 5 when R, the distinct (repository, source_revision)
    pairs among them, is 2 or more (else 0)."""
    return min(10, 5 * materializations), (5 if revisions >= 2 else 0)


def contradiction_penalty(contradiction: int, strength: int) -> int:
    """SPEC §4 ``contradiction_penalty``, in hundredths: r2(40 · Cs / Ss), 0 when Cs = 0."""
    if contradiction == 0:
        return 0
    return r2_hundredths(PENALTY_MAXIMUM * contradiction, strength)


def score_entry(entry: ValidationEntry) -> Score:
    """SPEC §4 for one accepted proposal."""
    facts, proposal = entry.support, entry.proposal
    # Cannot fail: an accepted proposal is complete and §3.5 ran on it.
    assert facts is not None and proposal is not None
    recurring = recurrence(facts.lineages)
    points = facts.integrity_points
    provenance = r2_hundredths(sum(points), len(points))
    source_signal = 100 * facts.source_signal
    coverage = scope_coverage(facts.materializations, facts.revisions)
    # SPEC §4: r2(10 · c) on the exact value of the binary64 c, never by multiplying floats.
    n, d = proposal.confidence.as_integer_ratio()
    confidence = r2_hundredths(10 * n, d)
    completeness = _COMPLETENESS
    penalty = contradiction_penalty(facts.contradiction, facts.strength)
    total = recurring + provenance + source_signal + coverage + confidence + completeness - penalty
    return Score(recurring, provenance, source_signal, coverage, confidence, completeness, penalty, max(0, total))
