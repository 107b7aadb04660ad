"""Scoring (SPEC §4): six components minus a contradiction penalty, exactly."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ranking.numbers import r2, to_json_number
from validator import ValidationEntry

__all__ = ["Score", "score_entry"]


@dataclass(frozen=True, slots=True)
class Score:
    recurrence: Fraction
    provenance: Fraction
    source_signal: Fraction
    scope_coverage: Fraction
    confidence: Fraction
    completeness: Fraction
    contradiction_penalty: Fraction
    final: Fraction

    def to_json(self) -> dict[str, int | float]:
        return {
            "recurrence": to_json_number(self.recurrence),
            "provenance": to_json_number(self.provenance),
            "source_signal": to_json_number(self.source_signal),
            "scope_coverage": to_json_number(self.scope_coverage),
            "confidence": to_json_number(self.confidence),
            "completeness": to_json_number(self.completeness),
            "contradiction_penalty": to_json_number(self.contradiction_penalty),
            "final": to_json_number(self.final),
        }


def score_entry(entry: ValidationEntry) -> Score:
    """SPEC §4 for one accepted proposal."""
    facts, proposal = entry.support, entry.proposal
    # Cannot fail: an accepted proposal is complete and §3.5 ran on it.
    assert facts is not None and proposal is not None
    points = facts.integrity_points
    recurrence = Fraction(min(30, 10 * facts.lineages))
    provenance = r2(Fraction(sum(points), len(points)))
    source_signal = Fraction(facts.source_signal)
    scope_coverage = Fraction(min(10, 5 * facts.materializations) + (5 if facts.revisions >= 2 else 0))
    # SPEC §4: the exact value of the binary64 the JSON number parsed to.
    confidence = r2(10 * Fraction(proposal.confidence))
    completeness = Fraction(10)
    if facts.contradiction == 0:
        penalty = Fraction(0)
    else:
        penalty = r2(Fraction(40 * facts.contradiction, facts.strength))
    total = recurrence + provenance + source_signal + scope_coverage + confidence + completeness - penalty
    return Score(
        recurrence,
        provenance,
        source_signal,
        scope_coverage,
        confidence,
        completeness,
        penalty,
        max(Fraction(0), total),
    )
