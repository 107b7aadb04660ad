"""``EvidenceRankingSelection`` in real ``gepa.optimize`` runs: an iteration's proposals of one
parent ranked as one bundle, so SPEC §5's dedup, conflict removal and limit act on them.

The task, its adapter and the scripted reflection LM are in
tests/ranking/integrations/gepa_support.py; here each iteration proposes three
children of one parent (``SameParentSampling(3)``) on six keywords.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gepa.proposer.base import CandidateProposal
from gepa.strategies.proposal_sampling import SameParentSampling

from curator_io import canon
from ranking.cli import main
from ranking.integrations.gepa import UNWRITABLE, EvidenceRankingCriterion, EvidenceRankingSelection, Judgement
from ranking.ledger import Ledger
from tests.ranking.integrations.gepa_support import SEED, SIX, Rejections, run

#: Each iteration: the same edit twice, and a conflicting edit of the same component, all three
#: better on two examples and worse on none.
TWINS_AND_A_RIVAL = (
    "Answer. alpha beta",  # 1. from the seed
    "Answer. alpha beta",
    "Answer. gamma delta",
    "Answer. alpha beta gamma delta",  # 2. from "Answer. alpha beta"
    "Answer. alpha beta gamma delta",
    "Answer. alpha beta epsilon zeta",
)


def _gated(
    script: tuple[str, ...] = TWINS_AND_A_RIVAL, *, ledger: Path | None = None, n: int = 3, **options: Any
) -> tuple[EvidenceRankingCriterion, Any, Rejections]:
    gate, seen = EvidenceRankingCriterion(ledger=ledger, repository="gepa/keywords", **options), Rejections()
    result, _ = run(
        gate,
        script,
        callbacks=[gate, seen],
        trainset=SIX,
        sampling_strategy=SameParentSampling(n),
        selection_strategy=EvidenceRankingSelection(gate),
    )
    return gate, result, seen


def _decisions(judgements: list[Judgement]) -> list[tuple[str, str, tuple[str, ...], str | None]]:
    return [(j.proposal, j.disposition, j.codes, j.superseded_by) for j in judgements]


def test_each_iteration_lets_one_child_in_and_the_report_names_the_duplicate_and_the_conflict() -> None:
    gate, result, seen = _gated()

    assert result.candidates == [
        SEED,
        {"instruction": "Answer. alpha beta"},
        {"instruction": "Answer. alpha beta gamma delta"},
    ]
    for i in (1, 2):
        judged = [j for j in gate.judgements if j.iteration == i]
        assert _decisions(judged) == [
            (f"p-{i}-0", "selected", ("rank.selected",), None),
            (f"p-{i}-1", "superseded", ("rank.duplicate",), f"p-{i}-0"),
            (f"p-{i}-2", "superseded", ("rank.conflict",), f"p-{i}-0"),
        ]
        assert len({canon(j.report) for j in judged}) == 1  # one bundle, one report for the three
        entries = {e["id"]: e for e in judged[0].report["proposals"]}  # type: ignore[index]
        assert {"code": "rank.duplicate", "subject": f"p-{i}-0"} in entries[f"p-{i}-1"]["reasons"]
        assert {"code": "rank.conflict", "subject": f"p-{i}-0"} in entries[f"p-{i}-2"]["reasons"]
        assert judged[0].report["counts"]["superseded"] == 2  # type: ignore[index]
    assert seen.reasons == [j.reason for j in gate.judgements if not j.selected]
    assert seen.reasons[:2] == [
        "evidence-ranking-v1: p-1-1 superseded by p-1-0: rank.duplicate (better on 2, worse on 0 of 6 examples)",
        "evidence-ranking-v1: p-1-2 superseded by p-1-0: rank.conflict (better on 2, worse on 0 of 6 examples)",
    ]
    assert [(o.proposal, o.category) for o in gate.outcomes] == [("p-1-0", "committed"), ("p-2-0", "committed")]


def test_without_the_selection_strategy_the_conflicting_child_enters_the_pool_too() -> None:
    gate = EvidenceRankingCriterion()
    result, _ = run(gate, TWINS_AND_A_RIVAL[:3], trainset=SIX, sampling_strategy=SameParentSampling(3))

    assert [j.disposition for j in gate.judgements] == ["selected"] * 3  # each judged alone
    # GEPA drops the duplicate itself; the rival, an edit of the same component, goes in.
    assert result.candidates == [SEED, {"instruction": "Answer. alpha beta"}, {"instruction": "Answer. gamma delta"}]


def test_every_judged_proposal_is_in_the_ledger_with_its_disposition_superseded_included(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "gepa.db"
    gate, _, _ = _gated(ledger=ledger)

    with Ledger.open(ledger, read_only=True) as opened:
        exported = list(opened.export())
    assert sorted((d.proposal, d.disposition) for d, _ in exported) == sorted(
        (j.proposal, j.disposition) for j in gate.judgements
    )
    assert len({d.report for d, _ in exported}) == 2  # one report per iteration
    assert sorted(o.category for _, os in exported for o in os) == ["committed", "committed"]
    capsys.readouterr()
    assert main(["ledger", "history", str(ledger), "--lesson", "les-gepa"]) == 0
    history = capsys.readouterr().out
    rows = {line.split()[1]: line.split()[3:] for line in history.splitlines() if line.startswith("gepa-")}
    assert rows["p-1-1"][0] == "superseded" and rows["p-1-1"][-1] == "rank.duplicate(p-1-0)"
    assert rows["p-1-2"][0] == "superseded" and rows["p-1-2"][-1] == "rank.conflict(p-1-0)"
    assert "6 decisions in 2 runs · refused 4×" in history


def test_a_second_run_makes_the_same_decisions_byte_for_byte(tmp_path: Path) -> None:
    runs = []
    for name in ("one", "two"):
        gate, result, _ = _gated(ledger=tmp_path / f"{name}.db")
        with Ledger.open(tmp_path / f"{name}.db", read_only=True) as opened:
            exported = list(opened.export())
        runs.append(([canon(j.report) for j in gate.judgements], exported, result.candidates))
    assert runs[0] == runs[1]


def test_at_most_max_selected_children_of_one_parent_enter_the_pool() -> None:
    # Two components: the two children edit one each, so they do not conflict.
    seed = {"instruction": "Answer.", "context": "Context."}
    script = ("Answer. alpha beta", "Context. gamma delta")
    results = {}
    for limit in (5, 1):
        gate = EvidenceRankingCriterion(config={"max_selected": limit})
        result, _ = run(
            gate,
            script,
            trainset=SIX,
            seed_candidate=seed,
            sampling_strategy=SameParentSampling(2),
            selection_strategy=EvidenceRankingSelection(gate),
        )
        results[limit] = (len(result.candidates), _decisions(gate.judgements))
    assert results[5] == (
        3,
        [("p-1-0", "selected", ("rank.selected",), None), ("p-1-1", "selected", ("rank.selected",), None)],
    )
    assert results[1] == (
        2,
        [("p-1-0", "selected", ("rank.selected",), None), ("p-1-1", "unselected", ("rank.limit",), None)],
    )


def test_a_child_no_bundle_can_hold_is_rejected_and_its_siblings_are_still_ranked() -> None:
    gate, result, seen = _gated(("Answer. alpha \ud83d", "Answer. alpha beta"), n=2)

    assert result.candidates == [SEED, {"instruction": "Answer. alpha beta"}]
    cut, whole = gate.judgements
    assert (cut.codes, cut.report, whole.disposition) == ((UNWRITABLE,), None, "selected")
    assert seen.reasons == [
        "gepa.unwritable: p-1-0 rejected: the child's component 'instruction':"
        " a lone surrogate (U+D83D) at character 14"
    ]


def _proposal(parent: int, text: str) -> CandidateProposal[Any]:
    """A proposal better on two examples of three, without GEPA's proposal id."""
    return CandidateProposal(
        candidate={"instruction": text},
        parent_program_ids=[parent],
        subsample_indices=[0, 1, 2],
        subsample_scores_before=[0.0, 0.0, 0.0],
        subsample_scores_after=[1.0, 1.0, 0.0],
    )


def test_proposals_of_different_parents_are_ranked_each_against_its_own_parent() -> None:
    state = SimpleNamespace(i=2, program_candidates=[{"instruction": "Answer."}, {"instruction": "Reply."}])
    proposals = [_proposal(0, "Answer well."), _proposal(1, "Answer well."), _proposal(0, "Answer briefly.")]
    judged = EvidenceRankingCriterion().judge_iteration(proposals, state)  # type: ignore[arg-type]

    # The same text is another edit of another parent: both are selected; the rival of parent 0 is not.
    assert _decisions(judged) == [
        ("p-3.0", "selected", ("rank.selected",), None),
        ("p-3.1", "selected", ("rank.selected",), None),
        ("p-3.2", "superseded", ("rank.conflict",), "p-3.0"),
    ]
    assert judged[0].report is judged[2].report and judged[1].report is not judged[0].report
    assert [j.bundle["memory"]["version"] for j in judged] == [0, 1, 0]  # type: ignore[index]


def test_children_of_one_parent_of_which_only_one_adds_a_component_are_ranked_together() -> None:
    state = SimpleNamespace(i=2, program_candidates=[{"instruction": "Answer."}])
    added = _proposal(0, "Answer.")
    added.candidate["format"] = "One line."
    proposals = [_proposal(0, "Answer well."), added]

    judged = EvidenceRankingCriterion().judge_iteration(proposals, state)  # type: ignore[arg-type]
    chosen = EvidenceRankingSelection(EvidenceRankingCriterion()).select(
        proposals,
        state,  # type: ignore[arg-type]
        EvidenceRankingCriterion(),
    )

    assert _decisions(judged) == [
        ("p-3.0", "selected", ("rank.selected",), None),
        ("p-3.1", "selected", ("rank.selected",), None),
    ]
    assert chosen == proposals
