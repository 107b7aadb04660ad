"""The pool and the runs' memories (ledger schema 4, docs/ledger.md "The pool"): what is pooled and
when it leaves, the bounds over 1,000 runs, rows checked on read, the audit and merge, the export.
The commands' exit codes and lines are tests/ranking/cli/test_cli_ledger_pool.py's."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from curator_io import canon, parse_json
from curator_io.builder import Add
from curator_io.errors import TamperError
from ranking.ledger import Ledger, pool_store
from ranking.ledger.pool import ADMITTED, POOL_FULL, WAIT_RUNS, WAITED, export_lines, pooled_of
from ranking.ledger.records import recording_of_run
from ranking.ledger.schema import APPLICATION_ID, MIGRATIONS
from tests.ranking.ledger.pooled import COMMAND, SCOPE, builder, disposition, proposed, recorded, run_of
from validator.proposal import proposals_of


def _pooled_run(ledger: Path, run: str, lineages: list[str], **kw: object) -> None:
    b = builder(1)
    proposed(b, lineages, **kw)  # type: ignore[arg-type]
    recorded(ledger, b, run)


def _edit(path: Path, statement: str, *parameters: object) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute(statement, parameters)
    finally:
        db.close()


def test_a_deferred_edit_is_pooled_with_its_closure_and_the_memory_of_its_run(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    with Ledger.open(ledger, read_only=True) as opened:
        (entry,) = opened.pool()
        memory = opened.latest_memory()
        assert opened.pool_dropped() == ()
    assert (entry.run, entry.proposal, entry.lesson, entry.lineages, entry.runs_waited) == (
        "run-1",
        "p-retry",
        "les-orders",
        ("task-a",),
        0,
    )
    assert sorted(entry.closure) == ["evidence", "instructions", "lesson", "materializations", "proposal", "traces"]
    assert [e["id"] for e in entry.closure["evidence"]] == ["ev-1"]
    assert entry.closure["instructions"] == []  # an add cites no instruction
    assert memory is not None and memory["version"] == 7
    assert [i["text"] for i in memory["instructions"]] == [COMMAND]


def test_an_edit_admitted_later_leaves_the_pool_as_a_tombstone_and_is_not_pooled_again(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    _pooled_run(ledger, "run-2", ["task-a", "task-b"])  # two lineages: selected
    _pooled_run(ledger, "run-3", ["task-c"])  # deferred again, but admitted already: not pooled
    with Ledger.open(ledger, read_only=True) as opened:
        assert opened.pool() == ()
        (dropped,) = opened.pool_dropped()
    assert (dropped.run, dropped.why, dropped.dropped_in) == ("run-1", ADMITTED, "run-2")


def test_a_rejected_edit_is_not_pooled(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    b = builder(1)
    proposed(b, ["task-a", "task-b"])
    duplicate = Add("test.again", COMMAND)  # the text of test.command: instruction.duplicate
    b.propose(
        "p-dup", lesson="les-orders", scope=SCOPE, confidence=0.5, operations=[duplicate], support=["ev-1", "ev-2"]
    )
    result = recorded(ledger, b, "run-1")
    assert disposition(result, "p-dup") == "rejected"
    with Ledger.open(ledger, read_only=True) as opened:
        assert opened.pool() == ()


def test_an_entry_falls_out_after_the_runs_it_may_wait(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-0", ["task-a"])
    for n in range(1, WAIT_RUNS):
        b = builder(1)
        recorded(ledger, b, f"run-{n}")  # runs that propose nothing
    with Ledger.open(ledger, read_only=True) as opened:
        (entry,) = opened.pool()
        assert entry.runs_waited == WAIT_RUNS - 1
    recorded(ledger, builder(1), "run-last")
    with Ledger.open(ledger, read_only=True) as opened:
        assert opened.pool() == ()
        (dropped,) = opened.pool_dropped()
    assert (dropped.why, dropped.run, dropped.dropped_in) == (WAITED, "run-0", "run-last")


def test_a_thousand_runs_keep_the_pool_and_its_tombstones_within_their_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bounds small enough for the runs to reach them: each closure is over 1 kB.
    monkeypatch.setattr(pool_store, "POOL_BYTES", 6000)
    monkeypatch.setattr(pool_store, "DROPPED_MOST", 100)
    ledger = tmp_path / "l.db"
    with Ledger.open(ledger) as opened:
        for n in range(1000):
            b = builder(1)
            proposed(b, [f"task-{n}"], operations=[Add(f"test.k{n}", f"Rule {n}.")])
            sealed, result = run_of(b, f"run-{n:04d}")
            opened.add_produced([recording_of_run(result, bundle=sealed.canonical)])
            if n % 97 == 0 or n == 999:
                size = sum(len(canon(e.closure)) for e in opened.pool())
                assert size <= 6000
                assert len(opened.pool_dropped()) <= 100
        pool = opened.pool()
        dropped = opened.pool_dropped()
    # What stays is the newest runs; what fell out made room, the oldest first, and of the
    # tombstones the newest are kept.
    assert 1 <= len(pool) < WAIT_RUNS
    kept = 1000 - len(pool)
    assert sorted(e.run for e in pool) == [f"run-{n:04d}" for n in range(kept, 1000)]
    assert {d.why for d in dropped} == {POOL_FULL}  # the byte bound is reached before the wait
    assert [d.run for d in dropped] == [f"run-{n:04d}" for n in range(kept - 100, kept)]


def test_a_hand_edited_pool_row_is_damaged_or_tampered_naming_it(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    with Ledger.open(ledger, read_only=True) as opened:
        (entry,) = opened.pool()
    where = f"pool row {entry.fingerprint} (report {entry.report})"

    not_json = tmp_path / "not-json.db"
    shutil.copy(ledger, not_json)
    _edit(not_json, "UPDATE pool SET closure = ?", b"[1")
    with Ledger.open(not_json, read_only=True) as opened, pytest.raises(TamperError, match=re.escape(where)) as caught:
        opened.pool()
    assert caught.value.code == "ledger.damaged"

    bad_run = tmp_path / "bad-run.db"
    shutil.copy(ledger, bad_run)
    _edit(bad_run, "UPDATE pool SET run = 'not an id!'")
    said = "run is the text 'not an id!', not an ID (a run id)"
    with Ledger.open(bad_run, read_only=True) as opened, pytest.raises(TamperError, match=re.escape(said)) as caught:
        opened.pool()  # what carry reads
    assert caught.value.code == "ledger.damaged" and "pool row sha" in str(caught.value)

    # An evidence summary edited: the artifact is no longer sealed. The audit names it; merge refuses it.
    forged = tmp_path / "forged.db"
    shutil.copy(ledger, forged)
    closure = dict(entry.closure)
    closure["evidence"] = [{**closure["evidence"][0], "summary": "it always passes"}]
    _edit(forged, "UPDATE pool SET closure = ?", canon(closure))
    assert f"{where}: an artifact of its closure is not sealed (SPEC §0)" in _findings(forged)
    with (
        pytest.raises(TamperError, match=re.escape(where)) as caught,
        Ledger.open(tmp_path / "into.db") as into,
        Ledger.open(forged, read_only=True) as source,
    ):
        into.merge(source)
    assert caught.value.code == "ledger.tampered"
    assert _pool_size(tmp_path / "into.db") == 0


def _findings(ledger: Path) -> list[str]:
    """The audit's findings (what ``ledger verify`` prints after ``tampered:``)."""
    with Ledger.open(ledger, read_only=True) as opened:
        return [str(f) for f in opened.audit()[1]]


def _pool_size(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT count(*) FROM pool").fetchone()[0])
    finally:
        db.close()


def test_the_audit_refuses_a_pool_row_its_report_did_not_defer(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    _pooled_run(ledger, "run-2", ["task-a", "task-b"])  # selected: the run-1 entry left as admitted
    db = sqlite3.connect(ledger)
    (report,) = db.execute("SELECT digest FROM reports WHERE run = 'run-2'").fetchone()
    db.close()
    with Ledger.open(ledger, read_only=True) as opened:
        (tomb,) = opened.pool_dropped()
    # The closure run-2's bundle has of the edit it selected, put in the pool by hand.
    b = builder(1)
    proposed(b, ["task-a", "task-b"])
    sealed = b.build("run-2")
    proposals = proposals_of(sealed.bundle)
    said = {"proposals": [{"id": "p-retry", "fingerprint": tomb.fingerprint, "disposition": "deferred"}]}
    (pooled,) = pooled_of(sealed.document, said, proposals)
    _edit(ledger, "INSERT INTO pool VALUES (?, ?, 'run-2', ?)", report, pooled.fingerprint, pooled.closure)
    assert (
        f"pool row {pooled.fingerprint} (report {report}): its report did not defer it or leave it unselected"
        in _findings(ledger)
    )


def test_a_hand_edited_memory_row_is_named(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    _edit(ledger, "UPDATE memories SET version = 8")
    assert any("the memory's version is 7, the row says 8" in finding for finding in _findings(ledger))
    _edit(ledger, "UPDATE memories SET version = 'seven'")
    with Ledger.open(ledger, read_only=True) as opened, pytest.raises(TamperError, match="memories row") as caught:
        opened.latest_memory()
    assert caught.value.code == "ledger.damaged"


def test_merge_is_a_union_of_pools_in_either_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    _pooled_run(a, "run-a1", ["task-a"])
    _pooled_run(a, "run-shared", ["task-s"])
    _pooled_run(b, "run-shared", ["task-s"])
    _pooled_run(b, "run-b1", ["task-b"], ident="p-retry-again")
    _pooled_run(b, "run-b2", ["task-a", "task-b"])  # selects the edit a's run-a1 pooled
    _pooled_run(a, "run-a2", ["task-x"], operations=[Add("test.x", "Another rule.")])
    for n in range(WAIT_RUNS + 1):  # more runs than an entry waits, on one side only: a merge does not age
        recorded(b, builder(1), f"run-b-quiet-{n:02d}")
    ab, ba = tmp_path / "ab.db", tmp_path / "ba.db"
    shutil.copy(a, ab)
    shutil.copy(b, ba)
    for into, other in ((ab, b), (ba, a)):
        with Ledger.open(into) as target, Ledger.open(other, read_only=True) as source:
            target.merge(source)
    assert _decisions(ab) == _decisions(ba) and _decisions(ab)
    lines = _pool_lines(ab)
    assert lines == _pool_lines(ba)
    assert [next(iter(line)) for line in lines].count("memory") == 5 + WAIT_RUNS + 1
    assert [line["pool"]["run"] for line in lines if "pool" in line] == ["run-a2"]
    dropped = [line["dropped"] for line in lines if "dropped" in line]
    assert {(d["run"], d["why"]) for d in dropped} == {
        ("run-a1", ADMITTED),
        ("run-b1", ADMITTED),
        ("run-shared", ADMITTED),
    }
    assert _findings(ab) == []


def _decisions(ledger: Path) -> list[object]:
    with Ledger.open(ledger, read_only=True) as opened:
        return list(opened.export())


def _pool_lines(ledger: Path) -> list[dict[str, object]]:
    """What ``ledger export --pool`` writes, a line a dict."""
    with Ledger.open(ledger, read_only=True) as opened:
        return export_lines(opened.memories(), opened.pool(), opened.pool_dropped())


def test_a_schema_3_ledger_is_read_as_it_is_and_migrated_to_write(tmp_path: Path) -> None:
    ledger = tmp_path / "old.db"
    db = sqlite3.connect(ledger, isolation_level=None)
    for statements in MIGRATIONS[:3]:
        for statement in statements:
            db.execute(statement)
    db.execute("PRAGMA user_version = 3")
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.close()
    with Ledger.open(ledger, read_only=True) as opened:
        assert (opened.version, opened.pool(), opened.pool_dropped(), opened.latest_memory()) == (3, (), (), None)
    _pooled_run(ledger, "run-1", ["task-a"])
    with Ledger.open(ledger, read_only=True) as opened:
        assert opened.version == 4 and len(opened.pool()) == 1


def test_the_pools_export_gives_each_memory_entry_and_tombstone_as_documented(tmp_path: Path) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    _pooled_run(ledger, "run-2", ["task-a", "task-b"])  # admits it: a tombstone
    _pooled_run(ledger, "run-3", ["task-c"], ident="p-later")  # admitted already: not pooled
    b = builder(1)
    proposed(b, ["task-d"], operations=[Add("test.other", "Another rule.")])
    recorded(ledger, b, "run-4")
    parsed = _pool_lines(ledger)
    assert all(parse_json(canon(p)) == p for p in parsed)  # each a JSON value, as canonical bytes
    assert [next(iter(p)) for p in parsed] == ["memory"] * 4 + ["pool", "dropped"]
    assert all(sorted(p["memory"]) == ["digest", "document", "report", "version"] for p in parsed[:4])
    assert [p["memory"]["report"] for p in parsed[:4]] == sorted(p["memory"]["report"] for p in parsed[:4])
    entry, tomb = parsed[4]["pool"], parsed[5]["dropped"]
    assert sorted(entry) == ["closure", "fingerprint", "report", "run"] and entry["run"] == "run-4"
    assert sorted(tomb) == ["dropped_in", "fingerprint", "report", "run", "why"]
    assert (tomb["run"], tomb["why"], tomb["dropped_in"]) == ("run-1", "admitted", "run-2")


def test_a_closure_over_its_bound_is_not_pooled_but_said_and_a_large_memory_keeps_its_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ranking.ledger import pool

    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])  # its memory document kept
    monkeypatch.setattr(pool_store, "ENTRY_BYTES", 100)
    monkeypatch.setattr(pool, "MEMORY_BYTES", 100)
    _pooled_run(ledger, "run-2", ["task-b"], ident="p-again", operations=[Add("test.big", "A rule.")])
    with Ledger.open(ledger, read_only=True) as opened:
        assert [e.run for e in opened.pool()] == ["run-1"]
        (dropped,) = opened.pool_dropped()
        memories = opened.memories()
        latest = opened.latest_memory()
    assert (dropped.run, dropped.why, dropped.dropped_in) == ("run-2", "too-large", "run-2")
    assert sorted((m.version, m.document is None) for m in memories.values()) == [(7, False), (7, True)]
    assert latest is not None and latest["version"] == 7  # run-1's: run-2 kept only its version and digest
