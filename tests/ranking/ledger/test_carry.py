"""Carrying the pool into the next bundle (docs/ledger.md, "Carry"): recurrence adds up across runs,
an edit whose instructions changed is left out and said so, ids are kept apart, and the same ledger
and bundle give the same bytes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from curator_io import load_bundle, parse_json
from curator_io.builder import Add
from ranking.ledger import Ledger
from ranking.ledger.carry import CARRIED, JOINED, LEFT_OUT, carried_bundle, carried_id
from ranking.pipeline import rank
from tests.ranking.ledger.pooled import (
    LESSON,
    SCOPE,
    builder,
    disposition,
    proposed,
    recorded,
    replace_command,
    run_of,
    task,
)


def _note(run: int) -> Add:
    return Add(f"test.note-{run}", f"Note {run} about the order tests.")


def _deferred_once(ledger: Path) -> None:
    """Run 1: the retry edit, cited by one task (lineage task-a): deferred, so pooled."""
    b = builder(1)
    proposed(b, ["task-a"])
    assert disposition(recorded(ledger, b, "run-1"), "p-retry") == "deferred"


def test_a_deferred_edit_carried_into_the_next_run_is_selected_with_both_lineages(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _deferred_once(ledger)

    # Run 2: a new task of the same lesson (lineage task-b) and the same edit proposed again; its ids
    # (m-1, tr-1, ev-1, the lesson) are those of run 1, for other artifacts.
    alone = builder(2)
    proposed(alone, ["task-b"])
    assert disposition(run_of(alone, "run-2")[1], "p-retry") == "deferred"  # without the pool: deferred again

    b = builder(2)
    proposed(b, ["task-b"])
    with Ledger.open(ledger, read_only=True) as opened:
        b.carry(opened)
    sealed, result = run_of(b, "run-2")

    assert disposition(result, "p-retry") == "selected"
    (said,) = b.carried
    assert (said.outcome, said.proposal, said.runs) == (JOINED, "p-retry", ("run-1",))
    (p,) = sealed.document["proposals"]
    traces = {t["id"]: t for t in sealed.document["traces"]}
    evidence = {e["id"]: e for e in sealed.document["evidence"]}
    assert sorted(traces[evidence[e]["trace"]]["lineage"] for e in p["support"]) == ["task-a", "task-b"]
    (lesson,) = sealed.document["lessons"]
    assert lesson["id"] == LESSON and lesson["evidence"] == p["support"]
    # Run 1's ev-1, tr-1 and m-1 differ from run 2's: filed under ID.HEX, the references renamed alike.
    carried_ev = p["support"][1]
    assert carried_ev.startswith("ev-1.") and len(carried_ev) == len("ev-1.") + 12
    assert evidence[carried_ev]["trace"].startswith("tr-1.")


def test_an_edit_not_proposed_again_is_filed_as_its_own_proposal_on_the_new_memory(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _deferred_once(ledger)
    b = builder(2, version=8)
    task(b, 1, "task-b")  # a task recorded, nothing proposed: the curator need only record tasks
    b.lesson(LESSON, text="The order tests time out now and then.", evidence=["ev-1"])
    with Ledger.open(ledger, read_only=True) as opened:
        b.carry(opened)
    sealed, result = run_of(b, "run-2")
    (said,) = b.carried
    assert said.outcome == CARRIED and said.proposal == "p-retry"
    (p,) = sealed.document["proposals"]
    assert p["base_memory_version"] == 8
    # Its lesson is run 1's, under another id (run 2 has a lesson les-orders of other evidence): the
    # digest it is named by is of the lesson as filed, its evidence renamed, without its digest.
    filed = {k: v for k, v in _pooled_lesson(ledger).items() if k != "digest"}
    assert p["lesson"] == carried_id(LESSON, {**filed, "evidence": p["support"]})
    assert disposition(result, "p-retry") == "deferred"  # one lineage still: nothing joined it


def _pooled_lesson(ledger: Path) -> dict[str, object]:
    with Ledger.open(ledger, read_only=True) as opened:
        (entry,) = opened.pool()
    lesson = dict(entry.closure["lesson"])
    return lesson


def test_an_edit_of_an_instruction_that_changed_is_left_out_and_said_so(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    b = builder(1)
    proposed(b, ["task-a"], ident="p-cmd", operations=[replace_command("Run make test, never bare pytest.")])
    assert disposition(recorded(ledger, b, "run-1"), "p-cmd") == "deferred"

    unchanged, changed = builder(2), builder(2, command="Run the tests with tox.")
    for b in (unchanged, changed):
        task(b, 1, "task-b")
        with Ledger.open(ledger, read_only=True) as opened:
            b.carry(opened)
    run_of(unchanged, "run-2")
    assert [c.outcome for c in unchanged.carried] == [CARRIED]
    sealed, _ = run_of(changed, "run-2")
    (said,) = changed.carried
    assert said.outcome == LEFT_OUT and said.proposal is None
    assert said.why == "instruction 'test.command', which it edits, changed in the new memory"
    assert said.sentence().startswith(f"left out {said.fingerprint} (from run-1): instruction 'test.command'")
    assert sealed.document["proposals"] == []


def test_the_same_ledger_and_bundle_give_the_same_bytes_whatever_the_order_of_the_pool(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    for run in range(1, 4):
        b = builder(run)
        proposed(b, [f"task-{run}"])
        # and another edit each run, so the pool holds several fingerprints
        b.propose("p-other", lesson=LESSON, scope=SCOPE, confidence=0.5, operations=[_note(run)], support=["ev-1"])
        recorded(ledger, b, f"run-{run}")
    nxt = builder(9)
    proposed(nxt, ["task-z"])
    document = parse_json(nxt.build("run-9").canonical)
    with Ledger.open(ledger, read_only=True) as opened:
        entries = list(opened.pool())
    assert len(entries) == 6
    expected, said = carried_bundle(document, entries)
    for seed in range(5):
        random.Random(seed).shuffle(entries)
        assert carried_bundle(document, entries) == (expected, said)
    load_bundle(expected)
    assert [c.outcome for c in said].count(JOINED) == 1


def test_carried_evidence_is_ordinary_evidence_the_report_ranks_as_any_other(tmp_path: Path) -> None:
    # SPEC is unchanged: the carried bundle, ranked from its bytes, gives the report ranked in process.
    ledger = tmp_path / "l.db"
    _deferred_once(ledger)
    b = builder(2)
    proposed(b, ["task-b"])
    with Ledger.open(ledger, read_only=True) as opened:
        b.carry(opened)
    sealed, result = run_of(b, "run-2")
    assert rank(load_bundle(sealed.canonical)).canonical == result.canonical


@pytest.mark.parametrize("given", ["ev-1", "x" * 128])
def test_a_carried_id_is_an_id(given: str) -> None:
    from curator_io.grammar import is_id

    made = carried_id(given, {"id": given})
    assert is_id(made) and len(made) <= 128 and made != given
