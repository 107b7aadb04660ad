"""``EvidenceRankingCriterion`` in real ``gepa.optimize`` runs (issue 36).

The task, its adapter and the scripted reflection LM are in
tests/ranking/integrations/gepa_support.py: every score is a deterministic
function of the instruction, and nothing calls a model or the network.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gepa.proposer.base import CandidateProposal
from gepa.strategies.proposal_sampling import SameParentSampling
from gepa.strategies.proposal_selection import BestImprovement

from curator_io import Config, canon, load_bundle
from curator_io.catalogue import SENTENCES
from ranking.cli import main
from ranking.integrations.gepa import UNWRITABLE, EvidenceRankingCriterion, Judgement, with_notes
from ranking.ledger import Ledger
from ranking.ledger.notes.composing import PROMPT_HEADING
from tests.deadline import deadline
from tests.ranking.integrations.gepa_support import (
    SEED,
    SIX,
    CyclicAdapter,
    KeywordAdapter,
    Rejections,
    SeedParent,
    run,
)

REASON = re.compile(r"evidence-ranking-v1: p-\S+ (deferred|rejected|quarantined|superseded|unselected): (.+) \(better")


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_a_candidate_better_on_one_example_is_refused_where_strict_improvement_accepts_it() -> None:
    gate = EvidenceRankingCriterion()
    gated, _ = run(gate, ["Answer. alpha"])
    strict, _ = run(None, ["Answer. alpha"])

    assert {"instruction": "Answer. alpha"} in strict.candidates  # the sum rose from 0 to 1
    assert gated.candidates == [SEED]
    (judgement,) = gate.judgements
    assert (judgement.disposition, judgement.codes) == ("deferred", ("support.insufficient_lineages",))
    assert (judgement.improved, judgement.worse, judgement.examples) == (1, 0, 3)


def test_a_candidate_better_on_two_examples_and_worse_on_none_is_accepted_and_enters_the_pool() -> None:
    gate = EvidenceRankingCriterion()
    result, _ = run(gate, ["Answer. alpha beta"], callbacks=[gate])

    assert result.candidates == [SEED, {"instruction": "Answer. alpha beta"}]
    (judgement,) = gate.judgements
    assert judgement.selected and judgement.codes == ("rank.selected",)
    assert judgement.report["proposals"][0]["score"]["final"] >= 40
    assert [(o.proposal, o.category) for o in gate.outcomes] == [(judgement.proposal, "committed")]


def test_every_refusal_names_its_disposition_and_reason_codes_in_gepas_own_event() -> None:
    gate, seen = EvidenceRankingCriterion(), Rejections()
    run(gate, callbacks=[seen])

    refused = [j for j in gate.judgements if not j.selected]
    assert [j.disposition for j in refused] == ["deferred", "deferred", "rejected"]
    assert seen.reasons == [j.reason for j in refused]
    for reason in seen.reasons:
        found = REASON.match(reason)
        assert found, reason
        codes = found.group(2).split(", ")
        assert codes and set(codes) <= set(SENTENCES)
    assert refused[-1].codes == ("support.counterevidence", "support.insufficient_lineages")


def test_the_ledger_holds_every_judged_proposal_and_the_cli_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "gepa.db"
    gate = EvidenceRankingCriterion(ledger=ledger, repository="gepa/keywords")
    run(gate, callbacks=[gate])

    assert len(gate.judgements) == 4
    with Ledger.open(ledger, read_only=True) as opened:
        exported = list(opened.export())
    assert sorted(d.report for d, _ in exported) == sorted(j.report["digest"] for j in gate.judgements)
    assert [(o.category, o.proposal) for _, os in exported for o in os] == [("committed", "p-3-0")]

    assert _cli(capsys, "ledger", "verify", str(ledger)).endswith("1 outcomes matching their keys\n")
    history = _cli(capsys, "ledger", "history", str(ledger), "--lesson", "les-gepa")
    assert "selected → committed" in history and "4 decisions in 4 runs · refused 1×, told to retry 2×" in history
    assert len(_cli(capsys, "ledger", "export", str(ledger)).splitlines()) == 4
    notes = _cli(capsys, "ledger", "notes", str(ledger)).splitlines()
    # Deferred twice: told to retry when another task shows it, never not to propose it again.
    assert notes[1].startswith(
        'retry: replace "instruction" with "Answer. alpha" in gepa/keywords'
        " — deferred in gepa-4fa50435e2ab (2× so far)."
    )
    _cli(capsys, "ledger", "render", str(ledger), "--out", str(tmp_path / "ledger.html"))
    assert "p-3-0" in (tmp_path / "ledger.html").read_text("utf-8")


def test_a_refused_mutation_proposed_again_is_known_by_its_fingerprint_and_its_note_reaches_reflection(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "gepa.db"
    gate = EvidenceRankingCriterion(ledger=ledger)
    _, scripted = run(gate, reflection=lambda lm: with_notes(lm, ledger))

    first, again = gate.judgements[:2]
    assert first.proposal != again.proposal and first.fingerprint == again.fingerprint
    # Deferred, not refused (docs/ledger.md): the count of refusals stays 0, and the reason says what it was.
    assert (first.refused_before, again.refused_before) == (0, 0)
    assert again.reason.endswith("; deferred 1× before: support.insufficient_lineages)")
    assert PROMPT_HEADING not in scripted.prompts[0]
    assert f'{PROMPT_HEADING}\nretry: replace "instruction" with "Answer. alpha"' in scripted.prompts[1]


def test_two_runs_with_the_same_seed_make_the_same_decisions_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for name in ("one", "two"):
        ledger = tmp_path / f"{name}.db"
        gate = EvidenceRankingCriterion(ledger=ledger)
        run(gate, callbacks=[gate], reflection=lambda lm, ledger=ledger: with_notes(lm, ledger))
        reports = [canon(j.report) for j in gate.judgements]
        outputs.append(
            (
                reports,
                _cli(capsys, "ledger", "export", str(ledger)),
                _cli(capsys, "ledger", "notes", str(ledger)),
                _cli(capsys, "ledger", "history", str(ledger), "--lesson", "les-gepa"),
            )
        )
    assert outputs[0] == outputs[1]
    assert len(outputs[0][0]) == 4


def test_every_bundle_is_a_sealed_curator_bundle_that_loads(tmp_path: Path) -> None:
    gate = EvidenceRankingCriterion()
    run(gate)

    for judgement in gate.judgements:
        bundle = load_bundle(canon(judgement.bundle))
        assert bundle.input_digest == judgement.report["input_digest"]
        assert judgement.report["run"] == judgement.bundle["run"]["id"]
        assert re.fullmatch(r"gepa-[0-9a-f]{12}", judgement.report["run"])


def test_trajectories_rfc_8785_cannot_write_give_prefix_integrity_and_a_lower_score() -> None:
    with_traces, without = EvidenceRankingCriterion(), EvidenceRankingCriterion()
    run(with_traces, ["Answer. alpha beta"])
    run(without, ["Answer. alpha beta"], adapter=KeywordAdapter(opaque=True))

    (full,), (bare,) = with_traces.judgements, without.judgements
    assert bare.selected  # lower integrity, not none: the scores still count
    assert (full.report["proposals"][0]["score"]["provenance"], bare.report["proposals"][0]["score"]["provenance"]) == (
        13.33,
        8,
    )


def test_an_accepted_child_that_the_selection_strategy_leaves_out_is_recorded_as_dropped(tmp_path: Path) -> None:
    ledger = tmp_path / "gepa.db"
    gate = EvidenceRankingCriterion(ledger=ledger)
    result, _ = run(
        gate,
        ["Answer. alpha beta", "Answer. alpha beta gamma"],
        callbacks=[gate],
        sampling_strategy=SameParentSampling(2),
        selection_strategy=BestImprovement(),
    )

    assert [j.selected for j in gate.judgements] == [True, True]
    assert result.candidates == [SEED, {"instruction": "Answer. alpha beta gamma"}]
    assert [o.category for o in gate.outcomes] == ["dropped-by-selection", "committed"]
    with Ledger.open(ledger, read_only=True) as opened:
        assert sorted(o.category for _, os in opened.export() for o in os) == ["committed", "dropped-by-selection"]


def test_the_pinned_config_decides(tmp_path: Path) -> None:
    loose = EvidenceRankingCriterion(config={"min_lineages": 1})
    strict = EvidenceRankingCriterion(config=Config(threshold=100))
    loose_result, _ = run(loose, ["Answer. alpha"])
    strict_result, _ = run(strict, ["Answer. alpha beta"])

    assert {"instruction": "Answer. alpha"} in loose_result.candidates
    assert strict_result.candidates == [SEED]
    assert strict.judgements[0].codes == ("rank.below_threshold",)


# --- what the model or the task gave that cannot be written: a rejection, never an exception ---


def test_a_child_text_with_a_lone_surrogate_is_rejected_with_its_place_and_the_run_goes_on(tmp_path: Path) -> None:
    # What a model's reply cut inside an emoji decodes to.
    ledger = tmp_path / "gepa.db"
    gate, seen = EvidenceRankingCriterion(ledger=ledger), Rejections()
    result, _ = run(gate, ["Answer. alpha \ud83d", "Answer. alpha beta"], callbacks=[gate, seen])

    assert result.candidates == [SEED, {"instruction": "Answer. alpha beta"}]
    cut, whole = gate.judgements
    assert (cut.disposition, cut.codes, cut.selected) == ("rejected", (UNWRITABLE,), False)
    assert cut.reason == (
        "gepa.unwritable: p-1-0 rejected: the child's component 'instruction':"
        " a lone surrogate (U+D83D) at character 14"
    )
    assert seen.reasons == [cut.reason]
    assert (cut.bundle, cut.report, cut.fingerprint) == (None, None, None)
    assert (cut.improved, cut.worse, cut.examples) == (1, 0, 3)
    assert whole.selected
    with Ledger.open(ledger, read_only=True) as opened:  # a ledger holds reports, and there is none
        assert [d.report for d, _ in opened.export()] == [whole.report["digest"]]  # type: ignore[index]


def test_a_trajectory_that_contains_itself_is_judged_quickly_as_one_rfc_8785_cannot_write() -> None:
    cyclic, opaque = EvidenceRankingCriterion(), EvidenceRankingCriterion()
    with deadline(10):
        run(cyclic, ["Answer. alpha beta"], adapter=CyclicAdapter())
    run(opaque, ["Answer. alpha beta"], adapter=KeywordAdapter(opaque=True))

    (judgement,) = cyclic.judgements
    assert judgement.selected  # its scores count, at the integrity of a trace without trajectories
    assert judgement.report == opaque.judgements[0].report
    assert {t.get("completeness") for t in judgement.bundle["traces"]} == {"partial"}  # type: ignore[index]


def _judged(parent: dict[str, Any], child: dict[str, Any], ids: list[Any]) -> Judgement:
    """The criterion's judgement of one proposal, outside a GEPA run."""
    proposal = CandidateProposal(
        candidate=child,
        parent_program_ids=[0],
        subsample_indices=ids,
        subsample_scores_before=[0.0] * len(ids),
        subsample_scores_after=[1.0] * len(ids),
    )
    state = SimpleNamespace(i=2, program_candidates=[parent])
    return EvidenceRankingCriterion().judge(proposal, state)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("parent", "child", "ids", "unwritable"),
    [
        (SEED, {"instruction": "x\udc00"}, [0, 1], "the child's component 'instruction': a lone surrogate (U+DC00)"),
        (SEED, {"instruction": float("nan")}, [0, 1], "the child's component 'instruction': not JSON: nan is not"),
        ({"instruction": "a\ud800"}, SEED, [0, 1], "the parent's component 'instruction': a lone surrogate"),
        (SEED, {"instruction": "Answer. beta"}, [object(), 1], "data id <object object at"),
        (SEED, {"instruction": "Answer. beta"}, [["a", "\ud800"], 1], "data id ['a', '\\ud800']: not JSON"),
        ({"instruction": ""}, {"instruction": "Answer."}, [0, 1], "the parent's component 'instruction': input.schema"),
    ],
    ids=["lone surrogate", "NaN", "parent", "data id", "data id with a lone surrogate", "empty parent"],
)
def test_what_cannot_be_written_as_a_bundle_is_a_rejection_that_says_what_and_where(
    parent: dict[str, Any], child: dict[str, Any], ids: list[Any], unwritable: str
) -> None:
    judgement = _judged(parent, child, ids)
    assert (judgement.disposition, judgement.codes, judgement.report) == ("rejected", (UNWRITABLE,), None)
    assert judgement.unwritable is not None and judgement.unwritable.startswith(unwritable), judgement.unwritable
    assert judgement.reason == f"gepa.unwritable: p-3 rejected: {judgement.unwritable}"
    assert "\n" not in judgement.reason


def test_a_data_id_that_contains_itself_is_rejected_quickly() -> None:
    looped: list[Any] = []
    looped.append(looped)
    with deadline(5):
        judgement = _judged(SEED, {"instruction": "Answer. beta"}, [looped, 1])
    assert judgement.reason == "gepa.unwritable: p-3 rejected: data id [[...]]: it contains itself"


def test_a_proposal_without_a_parent_is_a_programming_error_not_data() -> None:
    proposal = CandidateProposal(candidate=SEED, parent_program_ids=[], subsample_indices=[0])
    with pytest.raises(ValueError, match="a GEPA proposal without a parent"):
        EvidenceRankingCriterion().judge(proposal, SimpleNamespace(i=0, program_candidates=[SEED]))  # type: ignore[arg-type]


def test_a_repository_that_is_not_a_repo_is_refused_when_the_criterion_is_made() -> None:
    with pytest.raises(ValueError, match="repository must be 1-200 bytes"):
        EvidenceRankingCriterion(repository="a\nb")


# --- the ledger, open for the run ---


def _leftovers(ledger: Path) -> list[str]:
    """What SQLite keeps beside a ledger while a connection is open (WAL mode)."""
    return sorted(p.name for p in ledger.parent.iterdir() if p.name != ledger.name)


def test_the_ledger_is_closed_when_the_run_ends_and_opened_again_for_the_next(tmp_path: Path) -> None:
    ledger = tmp_path / "gepa.db"
    gate = EvidenceRankingCriterion(ledger=ledger)
    run(gate, ["Answer. alpha beta"], callbacks=[gate])
    assert _leftovers(ledger) == []  # closed: no -wal or -shm file left beside it
    run(gate, ["Answer. gamma"], callbacks=[gate])

    with Ledger.open(ledger, read_only=True) as opened:
        assert [d.proposal for d, _ in opened.export()] == sorted(["p-1-0", "p-1-0"])
    assert len(gate.judgements) == 2


def test_the_criterion_closes_its_ledger_at_the_end_of_a_with_block(tmp_path: Path) -> None:
    ledger = tmp_path / "gepa.db"
    with EvidenceRankingCriterion(ledger=ledger) as gate:  # not a callback: GEPA cannot tell it the run ended
        run(gate, ["Answer. alpha beta"])
        assert _leftovers(ledger) == ["gepa.db-shm", "gepa.db-wal"]  # open across the run's proposals
    assert _leftovers(ledger) == []


# --- merges: GEPA asks no criterion, the callback judges what entered the pool ---

TWO_PARTS = {"instruction": "Answer. zeta", "context": "Context."}


def _merged(script: list[str], ledger: Path) -> tuple[EvidenceRankingCriterion, Any]:
    """Two children of the seed, each editing one component; GEPA then merges them (use_merge)."""
    gate = EvidenceRankingCriterion(ledger=ledger)
    result, _ = run(
        gate,
        script,
        callbacks=[gate],
        trainset=SIX,
        seed_candidate=TWO_PARTS,
        candidate_selection_strategy=SeedParent(),
        stop_callbacks=lambda state: state.i >= 2,  # two reflections, then the merge
        use_merge=True,
    )
    return gate, result


def test_a_merged_candidate_gepa_adds_is_judged_and_recorded_with_what_gepa_did(tmp_path: Path) -> None:
    gate, result = _merged(["Answer. zeta alpha beta", "Context. gamma delta"], tmp_path / "gepa.db")

    assert result.candidates[-1] == {"instruction": "Answer. zeta alpha beta", "context": "Context. gamma delta"}
    (merge,) = gate.merges
    assert (merge.proposal, merge.parent, merge.disposition) == ("p-3-merge", 1, "selected")
    assert (merge.improved, merge.worse, merge.examples) == (2, 0, 6)  # against its first parent, on the valset
    assert [j.proposal for j in gate.judgements] == ["p-1-0", "p-2-0"]  # GEPA asked about these only
    with Ledger.open(tmp_path / "gepa.db", read_only=True) as opened:
        recorded = {d.proposal: (d.disposition, [o.category for o in os]) for d, os in opened.export()}
    assert recorded["p-3-merge"] == ("selected", ["committed"])


def test_a_merge_the_gate_would_defer_still_enters_the_pool_and_the_ledger_says_so(tmp_path: Path) -> None:
    # The second child shares "beta" with the first: the merge is better than the first on gamma alone.
    gate, result = _merged(["Answer. zeta alpha beta", "Context. beta gamma"], tmp_path / "gepa.db")

    assert result.candidates[-1] == {"instruction": "Answer. zeta alpha beta", "context": "Context. beta gamma"}
    (merge,) = gate.merges
    assert (merge.disposition, merge.codes) == ("deferred", ("support.insufficient_lineages",))
    with Ledger.open(tmp_path / "gepa.db", read_only=True) as opened:
        recorded = {d.proposal: (d.disposition, [o.category for o in os]) for d, os in opened.export()}
    assert recorded["p-3-merge"] == ("deferred", [])  # no outcome: a committed one needs a selected decision
