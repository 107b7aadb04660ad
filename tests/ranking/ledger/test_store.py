"""The ledger on its file (ranking.ledger.store, docs/ledger.md): adding a report, the audit of
every row against its report, merging, and the files it refuses to open. What the ``ledger``
commands print and exit with is tests/ranking/cli/test_cli_ledger.py's."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, load_bundle, parse_json
from curator_io.errors import ConfigError, InvariantError, TamperError
from curator_io.sealing import seal_bundle
from ranking.checking.acceptance import accept
from ranking.ledger import Ledger
from ranking.ledger.curator import record_run
from ranking.ledger.store import SCHEMA_VERSION
from ranking.pipeline import rank
from tests.conftest import FIXTURES, PARITY

EXAMPLE = FIXTURES / "example.json"
MIXED = PARITY / "002-mixed-dispositions" / "expected.report.json"
BASIC = PARITY / "001-basic-accepted-selected" / "expected.report.json"


def reworded() -> bytes:
    """The example bundle a day later: p-ruff-format comes back under a new id with a new rationale."""
    doc = json.loads(EXAMPLE.read_bytes())
    doc["run"]["id"] = "run-2026-11-30-b"
    (proposal,) = [p for p in doc["proposals"] if p["id"] == "p-ruff-format"]
    proposal["id"] = "p-format-with-ruff"
    proposal["rationale"] = "Ruff sorts imports too; run it before committing."
    return canon(seal_bundle(doc))


def scored(ledger: Path, bundle: bytes) -> dict[str, Any]:
    """``bundle`` ranked and recorded in ``ledger`` with it, as ``score --ledger`` does; the report."""
    result = rank(load_bundle(bundle))
    with Ledger.open(ledger) as opened:
        record_run(opened, result, bundle=bundle)
    return result.report


def two_runs(tmp_path: Path) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    ledger = tmp_path / "ledger.db"
    return ledger, scored(ledger, EXAMPLE.read_bytes()), scored(ledger, reworded())


def added(ledger: Path, *reports: Path) -> list[bool]:
    """Each report accepted, then added to ``ledger``, as ``ledger add`` does: whether each was new."""
    accepted = [accept(report.read_bytes()) for report in reports]
    with Ledger.open(ledger) as opened:
        return [opened.add_report(a) for a in accepted]


def exported(ledger: Path) -> list[Any]:
    with Ledger.open(ledger, read_only=True) as opened:
        return list(opened.export())


def audited(ledger: Path) -> tuple[tuple[int, int, int], list[str]]:
    with Ledger.open(ledger, read_only=True) as opened:
        counts, findings = opened.audit()
    return counts, [str(f) for f in findings]


def merged(into: Path, *others: Path) -> list[tuple[int, int]]:
    with Ledger.open(into) as target:
        added = []
        for other in others:
            with Ledger.open(other, read_only=True) as source:
                added.append(target.merge(source))
    return added


def test_adding_the_same_report_twice_adds_nothing(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    assert added(ledger, MIXED) == [True]
    first = exported(ledger)

    assert added(ledger, MIXED, MIXED) == [False, False]

    assert exported(ledger) == first
    assert len(first) == 6


def test_a_tampered_report_is_refused_before_it_reaches_a_ledger(tmp_path: Path) -> None:
    doc = json.loads(MIXED.read_bytes())
    doc["proposals"][0]["rationale"] = "rewritten after sealing"
    with pytest.raises(InvariantError) as caught:
        accept(canon(doc))
    assert (caught.value.code, caught.value.pointer) == ("invariant.sealed", "/digest")


def test_the_audit_of_an_untouched_ledger_finds_nothing_and_counts_what_it_checked(tmp_path: Path) -> None:
    ledger, _, _ = two_runs(tmp_path)
    assert audited(ledger) == ((2, 6, 0), [])


def test_a_row_edited_with_sqlite3_is_caught_and_named_by_the_audit(tmp_path: Path) -> None:
    ledger, _, second = two_runs(tmp_path)
    with sqlite3.connect(ledger) as db:
        db.execute("UPDATE decisions SET disposition = 'selected' WHERE proposal = 'p-format-with-ruff'")

    assert audited(ledger)[1] == [
        f"{second['digest']} at '/proposals/0/disposition': row 0 (p-format-with-ruff) says "
        "disposition = 'selected', the report says 'rejected'"
    ]


def test_a_stored_report_altered_in_the_database_is_caught_by_the_audit(tmp_path: Path) -> None:
    ledger, _, _ = two_runs(tmp_path)
    with sqlite3.connect(ledger) as db:
        (body,) = db.execute("SELECT body FROM reports WHERE run = 'run-2026-11-29-a'").fetchone()
        altered = body.replace(b"Written against an older memory.", b"Written against the current memory.")
        db.execute("UPDATE reports SET body = ? WHERE run = 'run-2026-11-29-a'", (altered,))

    assert any("the stored report is not sealed and valid: invariant.sealed" in f for f in audited(ledger)[1])


def test_a_deleted_row_is_caught_by_the_audit(tmp_path: Path) -> None:
    ledger, _, _ = two_runs(tmp_path)
    with sqlite3.connect(ledger) as db:
        db.execute("DELETE FROM decisions WHERE proposal = 'p-make-test' AND run = 'run-2026-11-30-b'")

    assert any("at '/proposals/1': its decision row is missing" in f for f in audited(ledger)[1])


def test_a_row_added_with_sqlite3_is_caught_by_the_audit(tmp_path: Path) -> None:
    ledger, _, _ = two_runs(tmp_path)
    with sqlite3.connect(ledger) as db:
        db.execute("INSERT INTO decisions SELECT * FROM decisions WHERE proposal = 'p-make-test' LIMIT 1")
        db.execute(
            "INSERT INTO decisions SELECT 99, * FROM (SELECT report, position, run, proposal, fingerprint, "
            "lesson, validation, disposition, reasons, score, superseded_by, rationale FROM decisions LIMIT 1)"
        )

    findings = audited(ledger)[1]
    assert any(": two rows claim the same entry of the report" in f for f in findings)
    assert "decisions: rows of report_seq 99 belong to no report" in findings


def test_merge_in_either_order_gives_the_same_ledger(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    added(a, MIXED, BASIC)
    scored(b, EXAMPLE.read_bytes())
    added(b, BASIC)  # in both
    merged(a_then_b := tmp_path / "ab.db", a, b)
    merged(b_then_a := tmp_path / "ba.db", b, a)

    union = exported(a_then_b)
    assert exported(b_then_a) == union
    assert len(union) == 6 + 1 + 3
    # Merging into one of the two is the same union.
    merged(a, b)
    merged(b, a)
    assert exported(a) == exported(b) == union
    assert audited(a)[1] == []


def test_merge_refuses_a_tampered_report_in_the_other_ledger_and_adds_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    added(b, MIXED)
    with sqlite3.connect(b) as db:
        (body,) = db.execute("SELECT body FROM reports").fetchone()
        edited = body.replace(b'"disposition":"deferred"', b'"disposition":"selected"', 1)
        db.execute("UPDATE reports SET body = ?", (edited,))

    with pytest.raises(InvariantError, match=re.escape(f"{b}: report sha256:")) as caught:
        merged(a, b)

    assert (caught.value.code, caught.value.pointer) == ("invariant.sealed", "/digest")
    assert exported(a) == []


def test_merge_refuses_a_stored_report_that_is_not_json(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    added(b, MIXED)
    with sqlite3.connect(b) as db:
        db.execute("UPDATE reports SET body = CAST('{' AS BLOB)")

    with pytest.raises(TamperError) as caught:
        merged(a, b)

    assert (caught.value.code, caught.value.pointer) == ("report.tampered", "")


def test_a_ledger_of_a_newer_schema_is_refused_as_a_usage_error(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    added(ledger, BASIC)
    with sqlite3.connect(ledger) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")

    with pytest.raises(ConfigError, match=f"a ledger of schema {SCHEMA_VERSION + 1};") as caught:
        Ledger.open(ledger, read_only=True)

    assert (caught.value.code, caught.value.exit_code) == ("ledger.version", 2)


def test_reading_a_ledger_that_does_not_exist_is_a_usage_error_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such ledger") as caught:
        Ledger.open(tmp_path / "missing.db", read_only=True)

    assert caught.value.code == "usage.unreadable"
    assert not (tmp_path / "missing.db").exists()


def test_an_sqlite_file_that_is_not_a_ledger_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")

    with pytest.raises(ConfigError, match=r"ledger\.not_a_ledger: an SQLite file, but not a ledger$") as caught:
        Ledger.open(other)

    assert (caught.value.code, caught.value.exit_code, caught.value.source) == ("ledger.not_a_ledger", 2, str(other))


def test_a_report_scored_and_recorded_is_exported_with_its_own_values(tmp_path: Path) -> None:
    ledger, first, _ = two_runs(tmp_path)
    (selected,) = [d for d, _ in exported(ledger) if d.proposal == "p-make-test" and d.run == "run-2026-11-29-a"]
    assert (selected.score, selected.report) == (81, parse_json(canon(first))["digest"])
