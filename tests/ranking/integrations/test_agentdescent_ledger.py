"""``EvidenceRankingAcceptance(..., ledger=PATH)`` in a real ``agentdescent.evolve`` run:
what the acceptance test did with each selected edit ends up in the ledger's history.

The run is the toy of tests/ranking/integrations/test_agentdescent_integration.py: one
worker, one round, one diff implementing one parity case's proposal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from curator_io import parse_json
from ranking.cli import main
from ranking.integrations.agentdescent import EvidenceRankingAcceptance
from ranking.ledger import Ledger
from tests.conftest import PARITY
from tests.ranking.integrations.agentdescent_support import OneEdit, one_round

BASIC = PARITY / "001-basic-accepted-selected"  # one proposal, p-env-9, selected
MIXED = PARITY / "002-mixed-dispositions"  # p_retry-build-37 rejected


def _op_map(case: Path, proposal_id: str) -> dict[str, str | None]:
    bundle = json.loads((case / "bundle.json").read_bytes())
    (proposal,) = [p for p in bundle["proposals"] if isinstance(p, dict) and p.get("id") == proposal_id]
    return {op["key"]: op.get("text") for op in proposal["operations"]}


def _evolve(tmp_path: Path, case: Path, proposal: str, acceptance: Any, *, helps: bool) -> list[Any]:
    strategy = OneEdit(proposal, _op_map(case, proposal))
    return one_round(tmp_path / "repo", strategy, acceptance, helps=helps)[1]


def _history(ledger: Path, proposal: str, capsys) -> str:
    capsys.readouterr()
    assert main(["ledger", "history", str(ledger), "--proposal", proposal]) == 0
    return capsys.readouterr().out


def test_a_committed_selected_edit_shows_in_history_with_p_improve_and_delta(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    policy = EvidenceRankingAcceptance(BASIC / "expected.report.json", ledger=ledger)

    reports = _evolve(tmp_path, BASIC, "p-env-9", policy, helps=True)

    assert [r.category for r in reports] == ["committed"]
    (line,) = [x.strip() for x in _history(ledger, "p-env-9", capsys).splitlines() if "→" in x]
    assert line == f"selected → committed (p_improve {reports[0].prob_improve:.2f}, Δ +1.00)"
    with Ledger.open(ledger, create=False) as opened:
        ((decision, outcomes),) = list(opened.export())
    (outcome,) = outcomes
    assert (
        decision.fingerprint
        == outcome.fingerprint
        == parse_json((BASIC / "expected.report.json").read_bytes())["proposals"][0]["fingerprint"]
    )
    assert (outcome.category, outcome.diff, outcome.observed_delta) == ("committed", "p-env-9", 1.0)
    assert outcome.p_improve == reports[0].prob_improve


def test_a_selected_edit_the_acceptance_test_refuses_shows_as_rejected_by_it(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    policy = EvidenceRankingAcceptance(BASIC / "expected.report.json", ledger=ledger)

    reports = _evolve(tmp_path, BASIC, "p-env-9", policy, helps=False)

    assert [r.category for r in reports] == ["below-threshold"]
    (line,) = [x.strip() for x in _history(ledger, "p-env-9", capsys).splitlines() if "→" in x]
    assert line == f"selected → rejected by the acceptance test (p_improve {reports[0].prob_improve:.2f}, Δ +0.00)"


def test_an_edit_the_report_refused_is_not_an_outcome_and_the_ledger_still_verifies(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    policy = EvidenceRankingAcceptance(MIXED / "expected.report.json", bundle=MIXED / "bundle.json", ledger=ledger)

    reports = _evolve(tmp_path, MIXED, "p_retry-build-37", policy, helps=True)

    assert [r.category for r in reports] == ["critic-rejected"]
    assert "→" not in _history(ledger, "p_retry-build-37", capsys)
    assert main(["ledger", "verify", str(ledger)]) == 0
    assert "1 reports sealed and valid, 6 decisions derived from them, 0 outcomes" in capsys.readouterr().out


def test_an_outcome_edited_in_the_database_is_caught_by_verify(tmp_path: Path, capsys) -> None:
    import sqlite3

    ledger = tmp_path / "ledger.db"
    policy = EvidenceRankingAcceptance(BASIC / "expected.report.json", ledger=ledger)
    _evolve(tmp_path, BASIC, "p-env-9", policy, helps=False)
    with sqlite3.connect(ledger) as db:
        db.execute("UPDATE outcomes SET category = 'committed'")

    assert main(["ledger", "verify", str(ledger)]) == 4

    assert "the outcome's content does not match its key" in capsys.readouterr().out
