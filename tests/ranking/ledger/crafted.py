"""Ledgers as someone else could hand them over: damaged on disk or crafted by hand
(issue 24). Each builder takes a good ledger and changes it with sqlite3 directly."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ranking.checking.acceptance import accept
from ranking.ledger.records import Outcome, outcome_key
from ranking.ledger.store import Ledger
from tests.conftest import PARITY

MIXED = PARITY / "002-mixed-dispositions" / "expected.report.json"
BASIC = PARITY / "001-basic-accepted-selected" / "expected.report.json"


def good_ledger(path: Path) -> Path:
    """A ledger of two parity reports, as ``ledger add`` writes it: each accepted, then added."""
    accepted = [accept(report.read_bytes()) for report in (MIXED, BASIC)]
    with Ledger.open(path) as ledger:
        assert all(ledger.add_report(a) for a in accepted)
    return path


#: Holds an exclusive lock on the ledger until it is killed: no other connection may even read.
HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode = EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
db.execute("INSERT INTO reports (digest, run, body) VALUES ('held', 'held', x'00')")
print("locked", flush=True)
time.sleep(120)
"""


@contextmanager
def held_ledger(path: Path) -> Iterator[Path]:
    """``path`` while another process holds an exclusive lock on it."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        yield path
    finally:
        holder.kill()
        holder.wait()


def edited(path: Path, *statements: str, parameters: tuple[object, ...] = ()) -> None:
    """Run statements on the file as a person with sqlite3 would (the schema writable too)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA writable_schema = ON")
        for statement in statements:
            db.execute(statement, parameters if "?" in statement else ())
    finally:
        db.close()


def corrupt_pages(path: Path) -> None:
    """Every page after the first (the schema) overwritten with garbage: the tables are unreadable."""
    size = path.stat().st_size
    page = 4096
    with path.open("r+b") as f:
        f.seek(page)
        f.write(bytes([0xA5]) * (size - page))


def drop_outcomes(path: Path) -> None:
    edited(path, "DROP TABLE outcomes")


def reasons_not_json(path: Path) -> None:
    edited(path, "UPDATE decisions SET reasons = 'not json'")


def report_as_text(path: Path) -> None:
    edited(path, "UPDATE reports SET body = CAST(body AS TEXT)")


def recursive_view(path: Path) -> None:
    """``reports`` replaced by a view that counts for ever."""
    edited(
        path,
        "DROP TABLE reports",
        "CREATE VIEW reports (seq, digest, run, body) AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
        "SELECT i + 1 FROM n) SELECT i, 'sha256:' || i, 'run', x'00' FROM n",
    )


def trigger(path: Path) -> None:
    edited(path, "CREATE TRIGGER wipe AFTER INSERT ON reports BEGIN DELETE FROM decisions; END")


def negative_version(path: Path) -> None:
    edited(path, "PRAGMA user_version = -1")  # no evidence-rank writes it; a slice [-1:] would take it


def text_file(path: Path) -> None:
    path.write_bytes(b"this is not a ledger\n" * 300)


def empty_file(path: Path) -> None:
    path.write_bytes(b"")


#: name -> what it does to a good ledger (or, for the last two, to the file).
DAMAGES: dict[str, Callable[[Path], None]] = {
    "corrupted pages": corrupt_pages,
    "a missing table": drop_outcomes,
    "reasons that are not JSON": reasons_not_json,
    "a report stored as TEXT": report_as_text,
    "reports as a recursive view": recursive_view,
    "a trigger": trigger,
    "a negative schema version": negative_version,
    "a text file": text_file,
    "an empty file": empty_file,
}


def add_outcome_row(path: Path, outcome: Outcome, *, key: str | None = None) -> str:
    """Insert an outcome row as a crafted ledger would hold it; its key is the outcome's own
    digest (so ``ledger verify`` of the day accepted it) unless given."""
    key = outcome_key(outcome) if key is None else key
    columns = ", ".join(Outcome._fields)
    edited(
        path,
        f"INSERT INTO outcomes (key, {columns}) VALUES (?{', ?' * len(Outcome._fields)})",
        parameters=(key, *outcome),
    )
    return key


def stored_digests(path: Path) -> list[tuple[str, str]]:
    """(digest, run) of each stored report, read with sqlite3."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(db.execute("SELECT digest, run FROM reports ORDER BY seq"))
    finally:
        db.close()


def snapshot(path: Path) -> dict[str, bytes]:
    """The ledger's content as bytes: the file and any commits in its -wal (an empty -wal and the
    -shm index, which a reader of a WAL file may leave behind, change nothing)."""
    wal = Path(f"{path}-wal")
    return {"db": path.read_bytes(), "wal": wal.read_bytes() if wal.exists() else b""}


__all__ = [
    "BASIC",
    "DAMAGES",
    "MIXED",
    "add_outcome_row",
    "corrupt_pages",
    "edited",
    "good_ledger",
    "held_ledger",
    "snapshot",
    "stored_digests",
]
