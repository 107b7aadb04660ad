"""The ledger's pure parts: decisions derived from a report, refusals, notes, outcomes."""

from __future__ import annotations

import json

from ranking.ledger import DecisionRow
from ranking.ledger.notes import describe_outcome, note_lines, refusals
from ranking.ledger.records import Outcome, decisions_of, outcome_key
from tests.conftest import PARITY

MIXED = json.loads((PARITY / "002-mixed-dispositions" / "expected.report.json").read_bytes())


def _decision(report: str, fingerprint: str | None, disposition: str, rationale: str = "") -> DecisionRow:
    reasons = '[{"code":"closure.stale_memory","subject":null}]'
    return DecisionRow(
        report, 0, f"run-{report}", "p", fingerprint, None, "rejected", disposition, reasons, None, None, rationale
    )


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


def test_refusals_count_each_fingerprint_and_put_the_most_recently_refused_first() -> None:
    history = [
        _decision("r1", "sha256:a", "rejected", "first"),
        _decision("r2", "sha256:b", "deferred"),
        _decision("r3", "sha256:a", "superseded", "latest"),
        _decision("r4", "sha256:c", "selected"),
        _decision("r5", None, "rejected"),
    ]

    found = refusals(history)

    assert [(r.fingerprint, r.times, r.latest.rationale) for r in found] == [
        ("sha256:a", 2, "latest"),
        ("sha256:b", 1, ""),
    ]
    assert [r.fingerprint for r in refusals(history, excluding="r3")] == ["sha256:b", "sha256:a"]
    assert note_lines(found, limit=1) == (
        "do not re-propose: latest — refused 2×, latest superseded: closure.stale_memory",
    )


def test_an_outcome_without_finite_numbers_says_so_and_its_key_follows_its_content() -> None:
    outcome = Outcome("sha256:r", "p", "sha256:f", "d", 3, "below-threshold", None, -0.04)

    assert describe_outcome(outcome) == "selected → rejected by the acceptance test (p_improve n/a, Δ -0.04)"
    assert outcome_key(outcome) == outcome_key(Outcome(*outcome))
    assert outcome_key(outcome) != outcome_key(outcome._replace(category="committed"))
