"""The ledger's pure parts: decisions derived from a report, outcomes (the notes: test_feedback.py)."""

from __future__ import annotations

import json

from ranking.ledger.history import describe_outcome
from ranking.ledger.records import Outcome, decisions_of, outcome_key
from tests.conftest import PARITY

MIXED = json.loads((PARITY / "002-mixed-dispositions" / "expected.report.json").read_bytes())


def test_one_decision_per_entry_in_report_order_carrying_the_reports_own_values() -> None:
    decisions = decisions_of(MIXED)

    assert [d.proposal for d in decisions] == [e["id"] for e in MIXED["proposals"]]
    assert {d.report for d in decisions} == {MIXED["digest"]}
    for d, e in zip(decisions, MIXED["proposals"], strict=True):
        assert (d.fingerprint, d.disposition, d.superseded_by) == (
            e["fingerprint"],
            e["disposition"],
            e["superseded_by"],
        )
        assert d.score == (None if e["score"] is None else e["score"]["final"])
        assert json.loads(d.reasons) == e["reasons"]


def test_an_outcome_without_finite_numbers_says_so_and_its_key_follows_its_content() -> None:
    outcome = Outcome("sha256:r", "p", "sha256:f", "d", 3, "below-threshold", None, -0.04)

    assert describe_outcome(outcome) == "selected → rejected by the acceptance test (p_improve n/a, Δ -0.04)"
    assert outcome_key(outcome) == outcome_key(Outcome(*outcome))
    assert outcome_key(outcome) != outcome_key(outcome._replace(category="committed"))
