"""The pool and the runs' memories as the commands show them (ledger schema 4, docs/ledger.md "The
pool"): ``ledger verify``, ``merge``, ``carry`` and ``export --pool``'s exit codes and lines, and
``batch --ledger`` recording the pool. The rules are tests/ranking/ledger/test_pool.py's."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from curator_io import canon, parse_json
from curator_io.builder import Add
from curator_io.errors import TamperError
from ranking.ledger import Ledger
from ranking.ledger.pool import ADMITTED, WAIT_RUNS, pooled_of
from tests.conftest import run_main
from tests.ranking.ledger.pooled import builder, proposed, recorded
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


def test_a_hand_edited_pool_row_is_damaged_or_tampered_naming_it(tmp_path: Path, capsys) -> None:
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
    bundle = tmp_path / "next.json"
    bundle.write_bytes(builder(2).build("run-2").canonical)
    rc, _, err = run_main(capsys, "ledger", "carry", bad_run, bundle, "--out", tmp_path / "o.json")
    assert rc == 4
    assert "ledger.damaged: pool row sha" in err and "run is the text 'not an id!', not an ID (a run id)" in err
    assert not (tmp_path / "o.json").exists()

    # An evidence summary edited: the artifact is no longer sealed. verify names it; merge refuses it.
    forged = tmp_path / "forged.db"
    shutil.copy(ledger, forged)
    closure = dict(entry.closure)
    closure["evidence"] = [{**closure["evidence"][0], "summary": "it always passes"}]
    _edit(forged, "UPDATE pool SET closure = ?", canon(closure))
    rc, out, _ = run_main(capsys, "ledger", "verify", forged)
    assert rc == 4
    assert f"tampered: {where}: an artifact of its closure is not sealed (SPEC §0)" in out.splitlines()
    rc, _, err = run_main(capsys, "ledger", "merge", tmp_path / "into.db", forged)
    assert rc == 4 and "ledger.tampered" in err and where in err
    assert not (tmp_path / "into.db").exists() or _pool_size(tmp_path / "into.db") == 0


def _pool_size(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT count(*) FROM pool").fetchone()[0])
    finally:
        db.close()


def test_verify_refuses_a_pool_row_its_report_did_not_defer(tmp_path: Path, capsys) -> None:
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
    rc, out, _ = run_main(capsys, "ledger", "verify", ledger)
    assert rc == 4
    assert (
        f"tampered: pool row {pooled.fingerprint} (report {report}): its report did not defer it or leave it unselected"
        in (out.splitlines())
    )


def test_a_hand_edited_memory_row_is_named(tmp_path: Path, capsys) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    _edit(ledger, "UPDATE memories SET version = 8")
    rc, out, _ = run_main(capsys, "ledger", "verify", ledger)
    assert rc == 4 and "the memory's version is 7, the row says 8" in out
    _edit(ledger, "UPDATE memories SET version = 'seven'")
    with Ledger.open(ledger, read_only=True) as opened, pytest.raises(TamperError, match="memories row") as caught:
        opened.latest_memory()
    assert caught.value.code == "ledger.damaged"


def test_merge_is_a_union_of_pools_in_either_order(tmp_path: Path, capsys) -> None:
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
    assert run_main(capsys, "ledger", "merge", ab, b)[0] == 0
    assert run_main(capsys, "ledger", "merge", ba, a)[0] == 0
    for args in ((), ("--pool",)):
        rc_ab, out_ab, _ = run_main(capsys, "ledger", "export", ab, *args)
        rc_ba, out_ba, _ = run_main(capsys, "ledger", "export", ba, *args)
        assert rc_ab == rc_ba == 0 and out_ab == out_ba and out_ab
    lines = [parse_json(line.encode()) for line in out_ab.splitlines()]
    assert [next(iter(line)) for line in lines].count("memory") == 5 + WAIT_RUNS + 1
    assert [line["pool"]["run"] for line in lines if "pool" in line] == ["run-a2"]
    dropped = [line["dropped"] for line in lines if "dropped" in line]
    assert {(d["run"], d["why"]) for d in dropped} == {
        ("run-a1", ADMITTED),
        ("run-b1", ADMITTED),
        ("run-shared", ADMITTED),
    }
    assert run_main(capsys, "ledger", "verify", ab)[0] == 0


def test_batch_and_agentdescent_record_the_memory_and_the_pool_of_the_bundle_they_ranked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ranking.integrations.agentdescent import EvidenceRankingAcceptance
    from tests.conftest import FIXTURES

    example = FIXTURES / "example.json"
    batched = tmp_path / "batch.db"
    assert run_main(capsys, "batch", example, "--out-dir", tmp_path / "b", "--ledger", batched, "-q")[0] == 0
    assert run_main(capsys, "score", example, "--out-dir", tmp_path / "s", "-q")[0] == 0
    policy = tmp_path / "policy.db"
    EvidenceRankingAcceptance(tmp_path / "s" / "report.json", bundle=example, ledger=policy)
    document = parse_json(example.read_bytes())
    for ledger in (batched, policy):
        with Ledger.open(ledger, read_only=True) as opened:
            assert opened.latest_memory() == document["memory"]
            assert [e.proposal for e in opened.pool()] == ["p-sleep-flaky"]  # deferred: one lineage


def test_export_pool_writes_each_memory_entry_and_tombstone_as_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "l.db"
    _pooled_run(ledger, "run-1", ["task-a"])
    _pooled_run(ledger, "run-2", ["task-a", "task-b"])  # admits it: a tombstone
    _pooled_run(ledger, "run-3", ["task-c"], ident="p-later")  # admitted already: not pooled
    b = builder(1)
    proposed(b, ["task-d"], operations=[Add("test.other", "Another rule.")])
    recorded(ledger, b, "run-4")
    rc, out, _ = run_main(capsys, "ledger", "export", ledger, "--pool")
    assert rc == 0
    lines = out.splitlines()
    assert all(canon(parse_json(line.encode())) == line.encode() for line in lines)  # canonical JSON
    parsed = [parse_json(line.encode()) for line in lines]
    assert [next(iter(p)) for p in parsed] == ["memory"] * 4 + ["pool", "dropped"]
    assert all(sorted(p["memory"]) == ["digest", "document", "report", "version"] for p in parsed[:4])
    assert [p["memory"]["report"] for p in parsed[:4]] == sorted(p["memory"]["report"] for p in parsed[:4])
    entry, tomb = parsed[4]["pool"], parsed[5]["dropped"]
    assert sorted(entry) == ["closure", "fingerprint", "report", "run"] and entry["run"] == "run-4"
    assert sorted(tomb) == ["dropped_in", "fingerprint", "report", "run", "why"]
    assert (tomb["run"], tomb["why"], tomb["dropped_in"]) == ("run-1", "admitted", "run-2")
