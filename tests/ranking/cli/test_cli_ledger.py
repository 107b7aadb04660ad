"""The admission ledger as a user drives it: score --ledger, batch --ledger and
``ledger add|history|notes|export|verify|merge`` (docs/ledger.md)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, parse_json, seal
from curator_io.sealing import seal_bundle
from ranking.cli import main
from ranking.ledger import Ledger
from ranking.ledger.store import SCHEMA_VERSION
from tests.conftest import FIXTURES, PARITY, run_main

EXAMPLE = FIXTURES / "example.json"
MIXED = PARITY / "002-mixed-dispositions" / "expected.report.json"
BASIC = PARITY / "001-basic-accepted-selected" / "expected.report.json"
STALE = "closure.stale_instruction, closure.stale_memory"


def _reworded(tmp_path: Path) -> Path:
    """The example bundle a day later: p-ruff-format comes back under a new id with a new rationale."""
    doc = json.loads(EXAMPLE.read_bytes())
    doc["run"]["id"] = "run-2026-11-30-b"
    (proposal,) = [p for p in doc["proposals"] if p["id"] == "p-ruff-format"]
    proposal["id"] = "p-format-with-ruff"
    proposal["rationale"] = "Ruff sorts imports too; run it before committing."
    path = tmp_path / "reworded.json"
    path.write_bytes(canon(seal_bundle(doc)))
    return path


def _fingerprint(report_path: Path, proposal: str) -> str:
    report = parse_json(report_path.read_bytes())
    (entry,) = [e for e in report["proposals"] if e["id"] == proposal]
    return entry["fingerprint"]


def _two_runs(tmp_path: Path, capsys) -> tuple[Path, str]:
    ledger = tmp_path / "ledger.db"
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "a"), "--ledger", str(ledger)]) == 0
    assert main(["score", str(_reworded(tmp_path)), "--out-dir", str(tmp_path / "b"), "--ledger", str(ledger)]) == 0
    capsys.readouterr()
    return ledger, _fingerprint(tmp_path / "a" / "report.json", "p-ruff-format")


def _export(ledger: Path, capsys) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(["ledger", "export", str(ledger)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_refused_edit_reworded_under_a_new_id_is_marked_in_the_second_runs_table(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "a"), "--ledger", str(ledger)]) == 0
    assert "before" not in capsys.readouterr().out

    assert main(["score", str(_reworded(tmp_path)), "--out-dir", str(tmp_path / "b"), "--ledger", str(ledger)]) == 0

    table = capsys.readouterr().out
    (row,) = [line for line in table.splitlines() if line.startswith("p-format-with-ruff")]
    assert row.endswith(f"closure.stale_memory · refused 1× before as p-ruff-format: {STALE}")
    (make_test,) = [line for line in table.splitlines() if line.startswith("p-make-test")]
    assert "before" not in make_test  # selected before, not refused
    # The report itself does not change (SPEC §6): it is the one score writes without a ledger.
    assert main(["score", str(_reworded(tmp_path)), "--out-dir", str(tmp_path / "c")]) == 0
    assert (tmp_path / "b" / "report.json").read_bytes() == (tmp_path / "c" / "report.json").read_bytes()


def test_history_shows_both_decisions_on_the_reworded_edit_oldest_first(tmp_path: Path, capsys) -> None:
    ledger, fingerprint = _two_runs(tmp_path, capsys)

    assert main(["ledger", "history", str(ledger), "--fingerprint", fingerprint]) == 0

    lines = capsys.readouterr().out.splitlines()
    short = fingerprint.removeprefix("sha256:")[:12]
    assert lines[0].split() == ["run", "proposal", "fingerprint", "disposition", "final", "reasons"]
    assert lines[1].split()[:4] == ["run-2026-11-29-a", "p-ruff-format", short, "rejected"]
    # The edit itself, under the first decision on it (the ledger recorded it with the bundle).
    assert lines[2].strip() == 'edit: replace "style.imports" with "Sort imports and format with ruff." in acme/api'
    assert lines[3].split()[:4] == ["run-2026-11-30-b", "p-format-with-ruff", short, "rejected"]
    assert lines[-1] == "2 decisions in 2 runs · refused 2×"
    # The short fingerprint a table shows finds the same decisions, as do all 64 digits without sha256:.
    for given in (short, fingerprint.removeprefix("sha256:")):
        assert main(["ledger", "history", str(ledger), "--fingerprint", given]) == 0
        assert capsys.readouterr().out.splitlines() == lines


def test_history_of_a_proposal_lists_the_same_edit_under_another_id_and_says_so(tmp_path: Path, capsys) -> None:
    ledger, fingerprint = _two_runs(tmp_path, capsys)

    assert main(["ledger", "history", str(ledger), "--proposal", "p-format-with-ruff"]) == 0

    lines = capsys.readouterr().out.splitlines()
    short = fingerprint.removeprefix("sha256:")[:12]
    assert lines[1].split()[:4] == ["run-2026-11-29-a", "p-ruff-format", short, "rejected"]
    assert lines[3].strip() == f"the same edit as p-format-with-ruff (fingerprint {short}), worded otherwise"
    assert lines[4].split()[:4] == ["run-2026-11-30-b", "p-format-with-ruff", short, "rejected"]
    assert lines[-1] == "2 decisions in 2 runs · refused 2×"


def test_history_as_json_is_an_array_of_decision_objects(tmp_path: Path, capsys) -> None:
    ledger, fingerprint = _two_runs(tmp_path, capsys)

    assert main(["ledger", "history", str(ledger), "--fingerprint", fingerprint, "--format", "json"]) == 0

    decisions = json.loads(capsys.readouterr().out)
    assert [(d["run"], d["proposal"], d["disposition"]) for d in decisions] == [
        ("run-2026-11-29-a", "p-ruff-format", "rejected"),
        ("run-2026-11-30-b", "p-format-with-ruff", "rejected"),
    ]
    assert {d["fingerprint"] for d in decisions} == {fingerprint}
    assert decisions[1]["rationale"] == "Ruff sorts imports too; run it before committing."


def test_history_by_proposal_and_by_lesson(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)

    assert main(["ledger", "history", str(ledger), "--proposal", "p-make-test", "--format", "json"]) == 0
    assert [d["run"] for d in json.loads(capsys.readouterr().out)] == ["run-2026-11-29-a", "run-2026-11-30-b"]
    assert main(["ledger", "history", str(ledger), "--lesson", "les-3", "--format", "json"]) == 0
    assert {d["lesson"] for d in json.loads(capsys.readouterr().out)} == {"les-3"}
    assert main(["ledger", "history", str(ledger), "--proposal", "p-never"]) == 0
    assert capsys.readouterr().out == f"no decision in {ledger} matches\n"


def test_notes_name_the_reworded_edit_say_what_to_do_and_tell_the_deferred_one_to_retry(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)

    assert main(["ledger", "notes", str(ledger)]) == 0

    lines = capsys.readouterr().out.splitlines()
    # The example's p-ruff-format: a replace of style.imports in acme/api (fixtures/example.json).
    edit = 'replace "style.imports" with "Sort imports and format with ruff." in acme/api'
    (stale,) = [line for line in lines if edit in line]
    assert stale.startswith(f"do not repeat as it is: {edit} — rejected in run-2026-11-30-b (2× so far). ")
    assert "What to do: Re-read style.imports in the current memory" in stale
    # p-sleep-flaky, deferred twice, is not refused: it waits for another task.
    (sleep,) = [line for line in lines if line != stale]
    assert sleep.startswith('retry: add "test.orders-sleep"') and "once the lesson recurs in 1 more" in sleep
    # The budget keeps the do-not-repeat note before the retry note, and says what it left out.
    assert main(["ledger", "notes", str(ledger), "--limit", "1"]) == 0
    assert capsys.readouterr().out.splitlines() == [stale, "Left out for room: 1 'retry' note."]


def test_notes_as_json_give_each_notes_kind_fingerprint_edit_reasons_and_remedy(tmp_path: Path, capsys) -> None:
    ledger, fingerprint = _two_runs(tmp_path, capsys)

    assert main(["ledger", "notes", str(ledger), "--format", "json", "--memory-version", "9"]) == 0

    written = json.loads(capsys.readouterr().out)
    notes = written["notes"]
    assert [(n["kind"], n["proposal"]) for n in notes] == [
        ("do-not-repeat", "p-format-with-ruff"),
        ("retry", "p-sleep-flaky"),
    ]
    assert written["left_out"] == dict.fromkeys(
        ("contradicts-memory", "do-not-repeat", "already-in-memory", "retry", "look-alike"), 0
    )
    stale = notes[0]
    assert stale["fingerprint"] == fingerprint
    assert stale["edit"] == 'replace "style.imports" with "Sort imports and format with ruff." in acme/api'
    assert [(r["code"], r["subject"]) for r in stale["reasons"]] == [
        ("closure.stale_instruction", "style.imports"),
        ("closure.stale_memory", None),
    ]
    assert stale["reasons"][1]["remedy"] == (
        "Re-read the memory (now version 9) and write the edit against it, with its version as base_memory_version."
    )
    assert stale["text"].startswith("do not repeat as it is: ")


def test_the_notes_budget_options_default_to_the_librarys_and_refuse_a_note_too_small(tmp_path: Path, capsys) -> None:
    from ranking.cli.commands.ledger import BUDGET_DEFAULTS
    from ranking.ledger import Budget

    budget = Budget()
    assert BUDGET_DEFAULTS == {
        "notes": budget.notes,
        "per_lesson": budget.per_lesson,
        "note_bytes": budget.note_bytes,
        "prompt_bytes": budget.prompt_bytes,
    }
    ledger, _ = _two_runs(tmp_path, capsys)
    rc, _, err = run_main(capsys, "ledger", "notes", ledger, "--note-bytes", "40")
    assert rc == 2
    assert "usage.invalid_option: note_bytes must be a whole number of 80 or more: 40" in err


def test_export_writes_one_decision_per_line_with_the_documented_members(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)

    rows = _export(ledger, capsys)

    assert len(rows) == 6
    assert {"run", "report", "proposal", "fingerprint", "lesson", "disposition", "reasons", "score"} <= set(rows[0])
    (selected,) = [r for r in rows if r["proposal"] == "p-make-test" and r["run"] == "run-2026-11-29-a"]
    assert selected["score"] == 81
    assert selected["report"] == parse_json((tmp_path / "a" / "report.json").read_bytes())["digest"]


def test_adding_the_same_report_twice_adds_nothing(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    assert main(["ledger", "add", str(ledger), str(MIXED)]) == 0
    first = _export(ledger, capsys)

    assert main(["ledger", "add", str(ledger), str(MIXED), str(MIXED)]) == 0

    assert capsys.readouterr().out.count("already recorded") == 2
    assert _export(ledger, capsys) == first
    assert len(first) == 6


def test_a_tampered_report_is_refused_and_nothing_is_recorded(tmp_path: Path, capsys) -> None:
    doc = json.loads(MIXED.read_bytes())
    doc["proposals"][0]["rationale"] = "rewritten after sealing"
    tampered = tmp_path / "tampered.json"
    tampered.write_bytes(canon(doc))
    ledger = tmp_path / "ledger.db"

    assert main(["ledger", "add", str(ledger), str(BASIC), str(tampered)]) == 4

    assert f"evidence-rank: {tampered}: invariant.sealed at '/digest':" in capsys.readouterr().err
    assert not ledger.exists()  # every report is verified before the ledger is even opened


def test_a_resealed_report_that_breaks_an_invariant_is_refused(tmp_path: Path, capsys) -> None:
    doc = json.loads(MIXED.read_bytes())
    doc["counts"]["selected"] = 0
    resealed = tmp_path / "resealed.json"
    resealed.write_bytes(canon(seal({k: v for k, v in doc.items() if k != "digest"})))

    assert main(["ledger", "add", str(tmp_path / "ledger.db"), str(resealed)]) == 4

    assert "invariant.partition at '/counts/selected'" in capsys.readouterr().err


def test_verify_passes_on_an_untouched_ledger(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)

    assert main(["ledger", "verify", str(ledger)]) == 0

    assert capsys.readouterr().out == (
        f"{ledger}: 2 reports sealed and valid, 6 decisions derived from them, 0 outcomes matching their keys\n"
    )


def test_a_row_edited_with_sqlite3_is_caught_and_named_by_verify(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)
    with sqlite3.connect(ledger) as db:
        db.execute("UPDATE decisions SET disposition = 'selected' WHERE proposal = 'p-format-with-ruff'")
    digest = parse_json((tmp_path / "b" / "report.json").read_bytes())["digest"]

    assert main(["ledger", "verify", str(ledger)]) == 4

    captured = capsys.readouterr()
    assert captured.out == (
        f"tampered: {digest} at '/proposals/0/disposition': row 0 (p-format-with-ruff) says "
        "disposition = 'selected', the report says 'rejected'\n"
    )
    assert captured.err.startswith("evidence-rank: ledger.tampered at '/proposals/0/disposition': ")


def test_a_stored_report_altered_in_the_database_is_caught_by_verify(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)
    with sqlite3.connect(ledger) as db:
        (body,) = db.execute("SELECT body FROM reports WHERE run = 'run-2026-11-29-a'").fetchone()
        altered = body.replace(b"Written against an older memory.", b"Written against the current memory.")
        db.execute("UPDATE reports SET body = ? WHERE run = 'run-2026-11-29-a'", (altered,))

    assert main(["ledger", "verify", str(ledger)]) == 4

    assert "the stored report is not sealed and valid: invariant.sealed" in capsys.readouterr().out


def test_a_deleted_row_is_caught_by_verify(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)
    with sqlite3.connect(ledger) as db:
        db.execute("DELETE FROM decisions WHERE proposal = 'p-make-test' AND run = 'run-2026-11-30-b'")

    assert main(["ledger", "verify", str(ledger)]) == 4

    assert "at '/proposals/1': its decision row is missing" in capsys.readouterr().out


def test_a_row_added_with_sqlite3_is_caught_by_verify(tmp_path: Path, capsys) -> None:
    ledger, _ = _two_runs(tmp_path, capsys)
    with sqlite3.connect(ledger) as db:
        db.execute("INSERT INTO decisions SELECT * FROM decisions WHERE proposal = 'p-make-test' LIMIT 1")
        db.execute(
            "INSERT INTO decisions SELECT 99, * FROM (SELECT report, position, run, proposal, fingerprint, "
            "lesson, validation, disposition, reasons, score, superseded_by, rationale FROM decisions LIMIT 1)"
        )

    assert main(["ledger", "verify", str(ledger)]) == 4

    out = capsys.readouterr().out
    assert ": two rows claim the same entry of the report" in out
    assert "tampered: decisions: rows of report_seq 99 belong to no report" in out


def _merged(into: Path, other: Path, capsys) -> list[dict[str, Any]]:
    assert main(["ledger", "merge", str(into), str(other)]) == 0
    return _export(into, capsys)


def test_merge_in_either_order_gives_the_same_ledger(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert main(["ledger", "add", str(a), str(MIXED), str(BASIC)]) == 0
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "out"), "--ledger", str(b)]) == 0
    assert main(["ledger", "add", str(b), str(BASIC)]) == 0  # in both
    a_then_b, b_then_a = tmp_path / "ab.db", tmp_path / "ba.db"
    assert main(["ledger", "merge", str(a_then_b), str(a), str(b)]) == 0
    assert main(["ledger", "merge", str(b_then_a), str(b), str(a)]) == 0
    capsys.readouterr()
    assert main(["ledger", "export", str(a_then_b)]) == 0
    exported = capsys.readouterr().out
    assert main(["ledger", "export", str(b_then_a)]) == 0

    assert capsys.readouterr().out == exported
    assert len(exported.splitlines()) == 6 + 1 + 3
    # Merging into one of the two is the same union.
    assert _merged(a, b, capsys) == _merged(b, a, capsys) == [json.loads(x) for x in exported.splitlines()]
    assert main(["ledger", "verify", str(a)]) == 0


def test_merge_refuses_a_tampered_report_in_the_other_ledger(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert main(["ledger", "add", str(b), str(MIXED)]) == 0
    with sqlite3.connect(b) as db:
        (body,) = db.execute("SELECT body FROM reports").fetchone()
        edited = body.replace(b'"disposition":"deferred"', b'"disposition":"selected"', 1)
        db.execute("UPDATE reports SET body = ?", (edited,))

    assert main(["ledger", "merge", str(a), str(b)]) == 4

    assert f"evidence-rank: invariant.sealed at '/digest': {b}: report sha256:" in capsys.readouterr().err
    assert _export(a, capsys) == []


def test_merge_refuses_a_stored_report_that_is_not_json(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert main(["ledger", "add", str(b), str(MIXED)]) == 0
    with sqlite3.connect(b) as db:
        db.execute("UPDATE reports SET body = CAST('{' AS BLOB)")

    assert main(["ledger", "merge", str(a), str(b)]) == 4

    assert "evidence-rank: report.tampered at '': " in capsys.readouterr().err


def test_batch_with_two_workers_records_every_report_in_input_order(tmp_path: Path, capsys) -> None:
    inbox = tmp_path / "in"
    inbox.mkdir()
    cases = ["001-basic-accepted-selected", "002-mixed-dispositions", "003-empty-proposals"]
    for name in cases:
        (inbox / f"{name}.json").write_bytes((PARITY / name / "bundle.json").read_bytes())
    (inbox / "zz-broken.json").write_bytes(b"{")
    ledger = tmp_path / "ledger.db"

    argv = ["batch", str(inbox), "--out-dir", str(tmp_path / "out"), "--workers", "2", "--ledger", str(ledger)]
    assert main(argv) == 3

    with Ledger.open(ledger, create=False) as opened:
        runs = list(dict.fromkeys(d.run for d in opened.decisions()))
    expected = [parse_json((PARITY / name / "expected.report.json").read_bytes()) for name in cases]
    assert runs == [r["run"] for r in expected if r["proposals"]]
    exported = {row["report"] for row in _export(ledger, capsys)}
    assert exported == {r["digest"] for r in expected if r["proposals"]}
    assert main(["ledger", "verify", str(ledger)]) == 0


def test_a_ledger_of_a_newer_schema_is_refused_as_a_usage_error(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "ledger.db"
    assert main(["ledger", "add", str(ledger), str(BASIC)]) == 0
    with sqlite3.connect(ledger) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")

    assert main(["ledger", "notes", str(ledger)]) == 2

    assert f"{ledger}: ledger.version: a ledger of schema {SCHEMA_VERSION + 1};" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["history", "notes", "export", "verify"])
def test_reading_a_ledger_that_does_not_exist_is_a_usage_error_and_creates_nothing(
    tmp_path: Path, capsys, command: str
) -> None:
    extra = ["--proposal", "p"] if command == "history" else []

    assert main(["ledger", command, str(tmp_path / "missing.db"), *extra]) == 2

    assert "usage.unreadable" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


def test_an_sqlite_file_that_is_not_a_ledger_is_refused(tmp_path: Path, capsys) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")

    assert main(["ledger", "add", str(other), str(BASIC)]) == 2

    assert capsys.readouterr().err == f"evidence-rank: {other}: ledger.not_a_ledger: an SQLite file, but not a ledger\n"


def test_notes_written_to_a_file_keep_each_line_within_its_budget_as_printed(tmp_path: Path, capsys) -> None:
    # Issue 55, finding 7: the escaper writes each `##[` as `#\x23[`, so an edit's text full of them
    # made an 820-byte line where the budget was 700. Each line is fitted as it is printed.
    from curator_io import Add, BundleBuilder, Scope

    api = Scope("repository", "acme/api")
    b = BundleBuilder(memory_version=1, curator="c@1", frozen_at="2026-12-07T09:00:00Z")
    b.materialization("mat", repository="acme/api", source_revision="r1")
    b.trace("tr", lineage="task-1", materialization="mat", steps=[{"ok": 1}])
    b.evidence("ev", trace="tr", step=0, signal="deterministic", observed_at="2026-12-07T08:00:00Z")
    b.lesson("les", text="Once.", evidence=["ev"])
    text = "##[" * 300
    b.propose("p", lesson="les", scope=api, confidence=0.5, operations=[Add("log.groups", text)], support=["ev"])
    bundle = tmp_path / "b.json"
    bundle.write_bytes(b.build("run-1").canonical)
    ledger = tmp_path / "l.db"
    assert run_main(capsys, "score", bundle, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q")[0] == 0

    code, out, _ = run_main(capsys, "ledger", "notes", ledger, "--note-bytes", "300")

    (line,) = out.splitlines()
    assert code == 0 and "#\\x23[" in line and "##[" not in line
    assert len(line.encode("utf-8")) <= 300


def test_notes_on_a_ledger_whose_kept_memory_was_swapped_by_hand_name_no_current_memory(tmp_path: Path, capsys) -> None:
    # A memory row replaced by another valid memory (its digest recomputed) that the run's selected
    # replace cannot apply to: the ledger knows no current memory then, and says nothing false.
    from curator_io import digest

    ledger = tmp_path / "l.db"
    bundle = FIXTURES / "conflicting-pair.json"  # its selection replaces an instruction of its memory
    assert run_main(capsys, "score", bundle, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q")[0] == 0
    with sqlite3.connect(ledger) as db:
        ((version,),) = db.execute("SELECT version FROM memories").fetchall()
        other = {"version": version, "instructions": []}
        db.execute("UPDATE memories SET document = ?, digest = ?", (canon(other), digest(other)))

    code, out, err = run_main(capsys, "ledger", "notes", ledger)

    assert (code, err) == (0, "") and "now version" not in out
