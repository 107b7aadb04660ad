"""The pool and the runs' memories in the ledger's file (schema 4; docs/ledger.md, "The pool"):
recording them with a report, keeping the pool within its bounds, reading them back checked,
checking them for ``ledger verify`` and taking another ledger's in ``ledger merge``. What a closure
or a memory is, and the bounds, are :mod:`ranking.ledger.pool`'s; this module only stores them.

Every row read passes :mod:`ranking.ledger.rows` (``ledger.damaged`` naming the row).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from curator_io.catalogue import SELECTED
from curator_io.errors import TamperError
from curator_io.jsonio import parse_json
from ranking.ledger.audit import AuditFinding
from ranking.ledger.connection import Connection
from ranking.ledger.pool import (
    ADMITTED,
    DROPPED_MOST,
    ENTRY_BYTES,
    POOL_BYTES,
    POOL_FULL,
    TOO_LARGE,
    WAIT_RUNS,
    WAITED,
    Dropped,
    Memory,
    Pooled,
    PoolEntry,
    closure_fault,
    lineages_of,
    memory_fault,
)
from ranking.ledger.records import DecisionRow
from ranking.ledger.rows import RowError, dropped_row, memory_row, pool_row

__all__ = [
    "PoolRows",
    "audit_pool",
    "dropped",
    "entries",
    "latest_memory",
    "merge_pool",
    "other_pool",
    "record_memory",
    "record_pool",
    "memories",
]

_TOMBSTONE = (
    "INSERT INTO pool_dropped (report, fingerprint, run, why, dropped_in) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (report, fingerprint) DO UPDATE SET why = excluded.why, dropped_in = excluded.dropped_in"
    " WHERE (excluded.why, ifnull(excluded.dropped_in, '')) < (why, ifnull(dropped_in, ''))"
)


def _damaged(db: Connection, error: RowError) -> TamperError:
    return TamperError("ledger.damaged", str(error), source=db.path)


# --- recording --------------------------------------------------------------------------


def record_pool(
    db: Connection,
    seq: int,
    digest: str,
    run: str,
    decisions: Sequence[DecisionRow],
    pooled: Sequence[Pooled],
) -> None:
    """With report ``digest`` of ``run`` just inserted as ``seq`` with ``decisions`` (in its
    transaction): its closures, and the pool kept within its bounds (docs/ledger.md,
    "The pool"). Every report recorded settles the pool, with a bundle or without (``ledger add``).
    The pool is read once; what leaves it is decided here and deleted row by row."""
    selected = {d.fingerprint for d in decisions if d.disposition == SELECTED and d.fingerprint is not None}
    kept: list[tuple[str, str, str, int, int]] = []
    # 1. An edit this report admits leaves the pool.
    for row in _sized(db):
        if row[1] in selected:
            _drop(db, row[0], row[1], row[2], ADMITTED, run)
        else:
            kept.append(row)
    # 2. Its own closures join, unless the edit was admitted already, or the closure alone is too large.
    admitted = _admitted(db, [p.fingerprint for p in pooled])
    for item in pooled:
        if item.fingerprint in admitted:
            continue
        if len(item.closure) > ENTRY_BYTES:
            db.run(_TOMBSTONE, (digest, item.fingerprint, run, TOO_LARGE, run))
            continue
        db.run(
            "INSERT INTO pool (report, fingerprint, run, closure) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (digest, item.fingerprint, run, item.closure),
        )
        kept.append((digest, item.fingerprint, run, len(item.closure), seq))
    # 3. An entry after which WAIT_RUNS reports were recorded leaves.
    after = _seqs_after(db, min((row[4] for row in kept), default=seq))
    waiting = []
    for row in kept:
        if len(after) - bisect.bisect_right(after, row[4]) >= WAIT_RUNS:
            _drop(db, row[0], row[1], row[2], WAITED, run)
        else:
            waiting.append(row)
    # 4. The oldest make room; 5. the oldest tombstones go.
    _make_room(db, waiting, run, key=lambda row: (row[4], row[1]))
    _bound_tombstones(db, order="r.seq, d.fingerprint")


def _seqs_after(db: Connection, seq: int) -> list[int]:
    """The seq of every report recorded after ``seq``, ascending (at most the runs an entry waits,
    and the group being recorded, once the pool is settled)."""
    return [int(s) for (s,) in db.rows("SELECT seq FROM reports WHERE seq > ? ORDER BY seq", (seq,))]


def record_memory(db: Connection, digest: str, memory: Memory | None) -> None:
    """The memory report ``digest`` was ranked against, once."""
    if memory is not None:
        db.run(
            "INSERT INTO memories (report, version, digest, document) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (digest, *memory),
        )


def _key(db: Connection, row: Sequence[object]) -> tuple[str, str, str]:
    report, fingerprint, run = row
    if not (type(report) is str and type(fingerprint) is str and type(run) is str):
        raise _damaged(db, RowError("pool", fingerprint, "its key is not text", report=report))
    return report, fingerprint, run


def _admitted(db: Connection, fingerprints: Iterable[str]) -> set[str]:
    """Those of ``fingerprints`` a stored report selected (docs/ledger.md, "admitted")."""
    found = set()
    for fingerprint in sorted(set(fingerprints)):
        query = "SELECT 1 FROM decisions WHERE fingerprint = ? AND disposition = ? LIMIT 1"
        if next(db.rows(query, (fingerprint, SELECTED)), None) is not None:
            found.add(fingerprint)
    return found


def _sized(db: Connection) -> list[tuple[str, str, str, int, int]]:
    """Every pool row as (report, fingerprint, run, closure bytes, the report's seq)."""
    query = (
        "SELECT p.report, p.fingerprint, p.run, length(p.closure), r.seq FROM pool p"
        " JOIN reports r ON r.digest = p.report"
    )
    return [(*_key(db, row[:3]), int(row[3]), int(row[4])) for row in db.rows(query)]


def _drop(db: Connection, report: str, fingerprint: str, run: str, why: str, dropped_in: str | None) -> None:
    db.run("DELETE FROM pool WHERE report = ? AND fingerprint = ?", (report, fingerprint))
    db.run(_TOMBSTONE, (report, fingerprint, run, why, dropped_in))


def _make_room(db: Connection, rows: list[tuple[str, str, str, int, Any]], run: str | None, *, key: Any) -> None:
    """Drop the first rows in ``key`` order until the pool is within POOL_BYTES."""
    total = sum(row[3] for row in rows)
    for report, fingerprint, entry_run, size, _ in sorted(rows, key=key):
        if total <= POOL_BYTES:
            return
        _drop(db, report, fingerprint, entry_run, POOL_FULL, run)
        total -= size


def _bound_tombstones(db: Connection, *, order: str) -> None:
    (count,) = next(db.rows("SELECT count(*) FROM pool_dropped"))
    if count <= DROPPED_MOST:
        return
    query = (
        "SELECT d.report, d.fingerprint FROM pool_dropped d JOIN reports r ON r.digest = d.report"
        f" ORDER BY {order} LIMIT ?"
    )
    for report, fingerprint in list(db.rows(query, (int(count) - DROPPED_MOST,))):
        db.run("DELETE FROM pool_dropped WHERE report = ? AND fingerprint = ?", (report, fingerprint))


# --- reading ----------------------------------------------------------------------------


def entries(db: Connection) -> tuple[PoolEntry, ...]:
    """Every edit in the pool, by fingerprint, then oldest first; each row checked."""
    query = (
        "SELECT p.report, p.fingerprint, p.run, p.closure, r.seq FROM pool p JOIN reports r ON r.digest = p.report"
        " ORDER BY p.fingerprint, r.seq"
    )
    rows = list(db.rows(query))
    after = _seqs_after(db, min((int(row[4]) for row in rows), default=0))
    found = []
    for *row, seq in rows:
        report, fingerprint, run, closure = _pool_row(db, row)
        fault = closure_fault(fingerprint, closure, _dispositions(db, report, fingerprint))
        if fault is not None:
            raise _damaged(db, RowError("pool", fingerprint, fault, report=report))
        value = parse_json(closure)
        proposal = value["proposal"]
        waited = len(after) - bisect.bisect_right(after, int(seq))
        found.append(
            PoolEntry(fingerprint, report, run, proposal["id"], proposal["lesson"], lineages_of(value), waited, value)
        )
    return tuple(found)


def _pool_row(db: Connection, row: Sequence[object]) -> tuple[str, str, str, bytes]:
    try:
        return pool_row(row)
    except RowError as e:
        raise _damaged(db, e) from e


def _dispositions(db: Connection, report: str, fingerprint: str) -> list[str]:
    query = "SELECT disposition FROM decisions WHERE report = ? AND fingerprint = ?"
    return [str(d) for (d,) in db.rows(query, (report, fingerprint))]


def dropped(db: Connection) -> tuple[Dropped, ...]:
    """Every tombstone, oldest first (by its report's recording, then fingerprint); each row checked."""
    query = (
        "SELECT d.report, d.fingerprint, d.run, d.why, d.dropped_in FROM pool_dropped d"
        " LEFT JOIN reports r ON r.digest = d.report ORDER BY r.seq, d.fingerprint"
    )
    found = []
    for row in db.rows(query):
        report, fingerprint, run, why, dropped_in = _dropped_row(db, row)
        found.append(Dropped(fingerprint, report, run, why, dropped_in))
    return tuple(found)


def _dropped_row(db: Connection, row: Sequence[object]) -> tuple[str, str, str, str, str | None]:
    try:
        return dropped_row(row)
    except RowError as e:
        raise _damaged(db, e) from e


def latest_memory(db: Connection) -> tuple[str, Mapping[str, Any]] | None:
    """The most recently recorded run that has its memory document kept: its report's digest and
    that document; None without."""
    query = (
        "SELECT m.report, m.version, m.digest, m.document FROM memories m JOIN reports r ON r.digest = m.report"
        " WHERE m.document IS NOT NULL ORDER BY r.seq DESC LIMIT 1"
    )
    for row in db.rows(query):
        report, memory = _memory_row(db, row)
        fault = memory_fault(*memory)
        if fault is not None:
            raise _damaged(db, RowError("memories", report, fault))
        assert memory.document is not None  # Cannot fail: the query asked for a document.
        value: Mapping[str, Any] = parse_json(memory.document)
        return report, value
    return None


def _memory_row(db: Connection, row: Sequence[object]) -> tuple[str, Memory]:
    try:
        return memory_row(row)
    except RowError as e:
        raise _damaged(db, e) from e


def memories(db: Connection) -> Iterator[tuple[str, Memory]]:
    """Every ``memories`` row checked for its form, by report digest."""
    query = "SELECT report, version, digest, document FROM memories ORDER BY report"
    for row in db.rows(query):
        yield _memory_row(db, row)


# --- verify and merge -----------------------------------------------------------------


def audit_pool(db: Connection, stored: set[str]) -> list[AuditFinding]:
    """``ledger verify`` of the pool, its tombstones and the memories; ``stored`` are the digests of
    the reports the ledger holds."""
    findings = []
    for row in db.rows("SELECT report, fingerprint, run, closure FROM pool ORDER BY report, fingerprint"):
        report, fingerprint, _, closure = _pool_row(db, row)
        where = f"pool row {fingerprint} (report {report})"
        fault = closure_fault(fingerprint, closure, _dispositions(db, report, fingerprint))
        if fault is not None:
            findings.append(AuditFinding(where, None, fault))
    for row in db.rows("SELECT report, fingerprint, run, why, dropped_in FROM pool_dropped ORDER BY report"):
        report, fingerprint, *_ = _dropped_row(db, row)
        if report not in stored:
            where = f"pool_dropped row {fingerprint} (report {report})"
            findings.append(AuditFinding(where, None, "its report is not held"))
    for report, memory in memories(db):
        fault = memory_fault(*memory) if report in stored else "its report is not held"
        if fault is not None:
            findings.append(AuditFinding(f"memories row {report}", None, fault))
    return findings


class PoolRows(NamedTuple):
    """What ``merge`` takes of another ledger, every row checked."""

    memories: list[tuple[str, Memory]]
    pool: list[tuple[str, str, str, bytes]]
    dropped: list[Sequence[Any]]


def other_pool(other: Connection, theirs: set[str], decided: Callable[[str, str], list[str]]) -> PoolRows:
    """Another ledger's memories, pool and tombstones for ``merge``, each checked as ``ledger verify``
    checks them (``ledger.tampered`` naming the first row that fails, before anything is written):
    ``theirs`` are the reports it holds, ``decided(report, fingerprint)`` the dispositions of an edit
    in a report, as derived from the report (never from the other ledger's rows)."""
    found_memories = []
    for report, memory in memories(other):
        fault = memory_fault(*memory) if report in theirs else "its report is not in it"
        if fault is not None:
            raise TamperError("ledger.tampered", f"memories row {report}: {fault}", source=other.path)
        found_memories.append((report, memory))
    rows = []
    for row in other.rows("SELECT report, fingerprint, run, closure FROM pool ORDER BY report, fingerprint"):
        report, fingerprint, run, closure = _pool_row(other, row)
        fault = closure_fault(fingerprint, closure, decided(report, fingerprint) if report in theirs else [])
        if fault is not None:
            where = f"pool row {fingerprint} (report {report})"
            raise TamperError("ledger.tampered", f"{where}: {fault}", source=other.path)
        rows.append((report, fingerprint, run, closure))
    tombstones: list[Sequence[Any]] = []
    for row in other.rows("SELECT report, fingerprint, run, why, dropped_in FROM pool_dropped ORDER BY report"):
        checked = _dropped_row(other, row)
        if checked[0] not in theirs:
            why = f"pool_dropped row {checked[1]} (report {checked[0]}): its report is not in it"
            raise TamperError("ledger.tampered", why, source=other.path)
        tombstones.append(checked)
    return PoolRows(found_memories, rows, tombstones)


def merge_pool(db: Connection, taken: PoolRows) -> None:
    """Add another ledger's checked memories, pool and tombstones (in ``merge``'s transaction): a
    union in which a tombstone wins, an edit a stored report selected leaves, and the pool is kept
    within POOL_BYTES in an order of its content alone (run, report, fingerprint), so that merging
    A into B and B into A give the same pool."""
    found_memories, rows, tombstones = taken
    for report, memory in found_memories:
        db.run(
            "INSERT INTO memories (report, version, digest, document) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (report, *memory),
        )
    for tombstone in tombstones:
        db.run(_TOMBSTONE, tuple(tombstone))
    for row in rows:
        db.run("INSERT INTO pool (report, fingerprint, run, closure) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", row)
    db.run("DELETE FROM pool WHERE (report, fingerprint) IN (SELECT report, fingerprint FROM pool_dropped)")
    sized = _sized(db)
    admitted = _admitted(db, [row[1] for row in sized])
    for report, fingerprint, run, _, _ in sized:
        if fingerprint in admitted:
            _drop(db, report, fingerprint, run, ADMITTED, _first_selecting_run(db, fingerprint))
    _make_room(db, _sized(db), None, key=lambda row: (row[2], row[0], row[1]))
    _bound_tombstones(db, order="d.run, d.report, d.fingerprint")


def _first_selecting_run(db: Connection, fingerprint: str) -> str:
    query = "SELECT min(run) FROM decisions WHERE fingerprint = ? AND disposition = ?"
    (run,) = next(db.rows(query, (fingerprint, SELECTED)))
    return str(run)
