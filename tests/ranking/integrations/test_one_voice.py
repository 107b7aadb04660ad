"""One voice back to the curator: every host's prompt carries the same notes for the same
ledger (ranking.ledger.notes.composing, docs/ledger.md "Notes for the curator"). ACE's gate, which
needs Python 3.12, is held to it in test_ace.py."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ranking.integrations import dspy_gepa
from ranking.integrations.agentdescent import report_notes
from ranking.integrations.gepa import notes_block, with_notes
from ranking.ledger import prompt_block, read_notes
from tests.conftest import FIXTURES, run_main

DAY1, DAY2 = FIXTURES / "example.json", FIXTURES / "example-reworded.json"


def _ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str], *bundles: Path) -> Path:
    ledger = tmp_path / "admissions.db"
    for day, bundle in enumerate(bundles):
        assert run_main(capsys, "score", bundle, "--out-dir", tmp_path / f"day{day}", "--ledger", ledger, "-q")[0] == 0
    return ledger


def test_the_cli_gepa_and_dspy_give_the_same_notes_for_the_same_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = _ledger(tmp_path, capsys, DAY1, DAY2)
    notes = read_notes(ledger)
    assert [n.kind for n in notes] == ["do-not-repeat", "retry"]

    assert run_main(capsys, "ledger", "notes", ledger)[1].splitlines() == [n.line for n in notes]
    assert notes_block(ledger) == prompt_block(notes)
    prompts: list[Any] = []
    with_notes(lambda prompt: prompts.append(prompt) or "", ledger)("Improve the instruction.")
    assert prompts == [f"Improve the instruction.\n\n{prompt_block(notes)}"]

    made: list[dict[str, Any]] = []
    monkeypatch.setattr(dspy_gepa, "InstructionProposer", lambda **options: made.append(options) or _Proposer())
    proposer = dspy_gepa.NotedInstructionProposer(ledger, additional_instructions="Be brief.")
    proposer({"answer": "Answer."}, {"answer": []}, ["answer"])
    assert made[-1]["additional_instructions"] == f"Be brief.\n\n{prompt_block(notes)}"


def test_agentdescents_notes_on_a_report_are_the_ledgers_notes_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _ledger(tmp_path, capsys, DAY1)
    report = tmp_path / "day0" / "report.json"
    # With the bundle, agentdescent names look-alikes in the memory its selection permits: give the ledger it too.
    assert run_main(capsys, "apply", DAY1, report, "--out", tmp_path / "memory.json")[0] == 0
    permitted = json.loads((tmp_path / "memory.json").read_bytes())

    ours, theirs = report_notes(report, bundle=DAY1), read_notes(ledger, memory=permitted)
    # The same notes, but that the ledger, which recorded the bundle, keeps the deferred edit's
    # evidence in its pool and says so after the same words; reports held in memory have no pool.
    assert [n for n in ours if n.kind != "retry"] == [n for n in theirs if n.kind != "retry"]
    (waits,) = [n for n in ours if n.kind == "retry"]
    (kept,) = [n for n in theirs if n.kind == "retry"]
    assert waits == replace(kept, line=waits.line, carried=None) and waits.carried is None
    assert kept.carried is True and kept.line.startswith(waits.line + " The gate keeps the evidence it cited")


class _Proposer:
    def __call__(self, **_: Any) -> dict[str, str]:
        return {"answer": "Answer, briefly."}
