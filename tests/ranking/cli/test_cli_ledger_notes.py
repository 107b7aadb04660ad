"""``evidence-rank ledger notes`` (docs/ledger.md "Notes for the curator"): its lines and its JSON, from
ledgers that ``score --ledger`` wrote. What a note says is tests/ranking/ledger/test_feedback.py's."""

from __future__ import annotations

from ranking.ledger import read_notes
from ranking.ledger.notes.reading import notes_from_json


def test_the_notes_of_a_real_ledger_read_back_from_the_cli_json(tmp_path, capsys) -> None:
    from tests.conftest import FIXTURES, run_main

    ledger = tmp_path / "l.db"
    for day, bundle in enumerate(("example.json", "example-reworded.json")):
        assert (
            run_main(capsys, "score", FIXTURES / bundle, "--out-dir", tmp_path / str(day), "--ledger", ledger)[0] == 0
        )
    rc, out, _ = run_main(capsys, "ledger", "notes", ledger, "--format", "json")

    read = notes_from_json(out.encode())
    assert rc == 0 and read == read_notes(ledger) and read.left_out == read_notes(ledger).left_out


def test_the_curators_notes_name_both_look_alikes_of_the_scenario_and_how_to_fix_them(tmp_path, capsys) -> None:
    from tests.conftest import run_main
    from tests.curator_scenario import scenario

    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(scenario().canonical)
    ledger, after = tmp_path / "l.db", tmp_path / "after.json"
    assert run_main(capsys, "score", bundle, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q")[0] == 0
    assert run_main(capsys, "apply", bundle, tmp_path / "out" / "report.json", "--out", after)[0] == 0

    rc, out, _ = run_main(capsys, "ledger", "notes", ledger, "--memory", after)

    assert rc == 0
    lines = out.splitlines()
    # test.runner says the opposite of test.command: both are in memory, and one must go, alone (a
    # replace of one with the other's text and a remove in one proposal is instruction.duplicate).
    assert (
        'contradicts memory: add "test.runner": "Never run bare pytest; use make test." in acme/shop — '
        "admitted in run-2026-12-08. It contradicts 'test.command' (\"Run the tests with pytest.\"; shared words: "
        "pytest, test): memory holds both: remove the one the evidence does not support ('test.runner' or "
        "'test.command'), in a proposal of its own." in lines
    )
    (deps,) = [line for line in lines if "deps.install" in line]
    assert deps.startswith("resembles another instruction: ")
    assert "It resembles 'deps.setup'" in deps
    assert "one instruction, one key: remove 'deps.setup' or 'deps.install', in a proposal of its own." in deps
    # Without --memory, the ledger knows the current memory itself: the one the run was ranked
    # against with its selection applied, which is what apply wrote (docs/ledger.md).
    assert run_main(capsys, "ledger", "notes", ledger)[1] == out


def test_the_json_of_a_look_alike_note_on_an_admitted_edit_reads_back(tmp_path, capsys) -> None:
    from tests.conftest import run_main
    from tests.curator_scenario import scenario

    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(scenario().canonical)
    ledger = tmp_path / "l.db"
    assert run_main(capsys, "score", bundle, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q")[0] == 0
    rc, out, _ = run_main(capsys, "ledger", "notes", ledger, "--format", "json")

    read = notes_from_json(out.encode())
    # Admitted last and decided no time since: its times is 0, which the reader refused (notes.invalid).
    assert rc == 0 and [n.times for n in read if n.kind == "look-alike"] == [0]
    assert read == read_notes(ledger)
