"""The ledger's SQLite file: schema, migrations, transactions. The one module of
the ledger that touches a file.

SQLite through the standard library: a real database with no server. The file
is in WAL mode with a busy timeout, so several processes (parallel CI jobs,
``batch --workers``) can write one ledger at once and each waits its turn
rather than failing. ``PRAGMA user_version`` is the schema version; opening a
ledger migrates it to :data:`SCHEMA_VERSION` in one transaction.

Each report is recorded in one ``BEGIN IMMEDIATE`` transaction: its bytes and
its decision rows land together or not at all. ``synchronous=NORMAL`` (WAL):
a process that crashes loses nothing it committed; a power cut may lose the
last commits, never leave half of one.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import groupby
from pathlib import Path
from typing import Any

from curator_io.errors import ConfigError, EvidenceRankError, InputError, TamperError
from curator_io.jsonio import parse_json
from ranking.ledger.audit import Finding, audit_outcome, audit_report
from ranking.ledger.records import Decision, Outcome, Recording, checked_report, outcome_key, recording_of

__all__ = ["SCHEMA_VERSION", "APPLICATION_ID", "Ledger"]

SCHEMA_VERSION = 1
APPLICATION_ID = 0x45524C47  # "ERLG": tells an evidence-rank ledger from any other SQLite file
_BUSY_TIMEOUT_S = 60.0
_MAX_PARAMETERS = 500  # well under SQLite's limit on bound parameters in one statement

# One tuple of statements per version: _MIGRATIONS[v - 1] takes a ledger from v - 1 to v.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        # seq: insertion order, the ledger's only notion of "older" (reports carry no time).
        "CREATE TABLE reports (seq INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, run TEXT NOT NULL,"
        " body BLOB NOT NULL)",
        # No key beyond the rowid and one index: each index is pages a commit rewrites, and
        # recording is on batch's serial path. (report_seq, position) is unique by
        # construction, and `ledger verify` finds a row added by hand; history by proposal or
        # lesson reads the table through, as export does.
        "CREATE TABLE decisions (report_seq INTEGER NOT NULL REFERENCES reports(seq), report TEXT NOT NULL,"
        " position INTEGER NOT NULL, run TEXT NOT NULL, proposal TEXT NOT NULL, fingerprint TEXT, lesson TEXT,"
        " validation TEXT NOT NULL, disposition TEXT NOT NULL, reasons TEXT NOT NULL, score NUMERIC,"
        " superseded_by TEXT, rationale TEXT NOT NULL)",
        "CREATE INDEX decisions_fingerprint ON decisions (fingerprint)",
        "CREATE TABLE outcomes (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, report TEXT NOT NULL,"
        " proposal TEXT NOT NULL, fingerprint TEXT, diff TEXT NOT NULL, version INTEGER, category TEXT NOT NULL,"
        " p_improve REAL, observed_delta REAL)",
        "CREATE INDEX outcomes_decision ON outcomes (report, proposal)",
    ),
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

_DECISION_COLUMNS = ", ".join(Decision._fields)
_OUTCOME_COLUMNS = ", ".join(Outcome._fields)
_INSERT_DECISION = f"INSERT INTO decisions (report_seq, {_DECISION_COLUMNS}) VALUES (?{', ?' * len(Decision._fields)})"


class Ledger:
    """An open ledger. Use as a context manager; :meth:`open` creates or migrates it."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = True, read_only: bool = False) -> Ledger:
        """Open the ledger at ``path``; create it (when ``create``) and migrate it to the current schema.

        A missing file (without ``create``), a file that is not a ledger, or a
        ledger of a newer schema is a usage error (exit 2).
        """
        shown = os.fspath(path)
        if not create and not Path(path).is_file():
            raise ConfigError("usage.unreadable", f"cannot read {shown!r}: no such ledger")
        mode = "ro" if read_only else "rwc" if create else "rw"
        try:
            db = sqlite3.connect(
                f"{Path(path).absolute().as_uri()}?mode={mode}",
                uri=True,
                timeout=_BUSY_TIMEOUT_S,
                isolation_level=None,  # transactions are ours: BEGIN IMMEDIATE ... COMMIT
            )
        except sqlite3.Error as e:
            raise ConfigError("usage.unreadable", f"cannot open ledger {shown!r}: {e}") from e
        ledger = cls(db, shown)
        try:
            ledger._prepare(read_only)
        except BaseException:
            db.close()
            raise
        return ledger

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------

    def add_report(self, document: Mapping[str, Any]) -> bool:
        """Verify a report (SPEC §7) and record it with its decisions; False when it was already there.

        Raises ``invariant.<name>`` (exit 4) for a report that is tampered or invalid.
        """
        body = checked_report(document)
        return self.add_produced([recording_of(document, body)]) == 1

    def add_produced(self, recordings: Sequence[Recording]) -> int:
        """Record reports this process's pipeline has just produced; how many were new.

        One transaction for them all, so each report lands whole with its rows
        (``batch --ledger`` groups a few, docs/ledger.md). Not verified again:
        SPEC §7's checks guard reports that come from elsewhere, and these come
        from ``rank`` here (``score``, ``batch``). ``ledger verify`` still
        checks them like any other.
        """
        with self._transaction():
            return sum(self._insert(*r) for r in recordings)

    def add_outcome(self, outcome: Outcome) -> bool:
        """Record what the acceptance test did with a backed diff; False when already recorded."""
        with self._transaction():
            return self._insert_outcome(outcome_key(outcome), outcome)

    def merge(self, other: Ledger) -> tuple[int, int]:
        """Add every report and outcome of ``other`` this ledger lacks: (reports, outcomes) added.

        Each report is verified again (SPEC §7) and its rows derived here, never
        copied: ``other``'s rows are not trusted. New reports are added in order
        of (run, digest), so which ledger came first does not change the content.
        All of ``other`` goes in one transaction.
        """
        have = {digest for (digest,) in self._db.execute("SELECT digest FROM reports")}
        incoming = []
        for digest, body in other._db.execute("SELECT digest, body FROM reports ORDER BY run, digest"):
            if digest in have:
                continue
            document, canonical = _checked(other.path, digest, body)
            incoming.append(recording_of(document, canonical))
        outcomes = [
            (key, Outcome(*row))
            for key, *row in other._db.execute(f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes ORDER BY key")
        ]
        with self._transaction():
            reports = sum(self._insert(*item) for item in incoming)
            added = sum(self._insert_outcome(key, o) for key, o in outcomes if outcome_key(o) == key)
        return reports, added

    # --- reading ------------------------------------------------------------------

    def decisions(
        self, *, fingerprint: str | None = None, proposal: str | None = None, lesson: str | None = None
    ) -> list[Decision]:
        """Decisions matching every filter given, oldest first (insertion order, then report order)."""
        where, values = [], []
        for column, value in (("fingerprint", fingerprint), ("proposal", proposal), ("lesson", lesson)):
            if value is not None:
                where.append(f"{column} = ?")
                values.append(value)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._db.execute(
            f"SELECT {_DECISION_COLUMNS} FROM decisions {clause} ORDER BY report_seq, position", values
        )
        return [Decision(*row) for row in rows]

    def on_fingerprints(self, fingerprints: Iterable[str]) -> list[Decision]:
        """Every decision on these fingerprints, oldest first (for score's "refused before" marks)."""
        wanted = sorted(set(fingerprints))
        found: list[tuple[int, Decision]] = []
        for start in range(0, len(wanted), _MAX_PARAMETERS):
            chunk = wanted[start : start + _MAX_PARAMETERS]
            rows = self._db.execute(
                f"SELECT report_seq, {_DECISION_COLUMNS} FROM decisions"
                f" WHERE fingerprint IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            found += [(seq, Decision(*row)) for seq, *row in rows]
        found.sort(key=lambda item: (item[0], item[1].position))
        return [d for _, d in found]

    def outcomes_of(self, decisions: Iterable[Decision]) -> dict[tuple[str, str], list[Outcome]]:
        """The outcomes recorded against each (report, proposal), in the order they were recorded."""
        out: dict[tuple[str, str], list[Outcome]] = {}
        for d in decisions:
            if (d.report, d.proposal) in out:
                continue
            rows = self._db.execute(
                f"SELECT {_OUTCOME_COLUMNS} FROM outcomes WHERE report = ? AND proposal = ? ORDER BY seq",
                (d.report, d.proposal),
            )
            out[(d.report, d.proposal)] = [Outcome(*row) for row in rows]
        return out

    def export(self) -> Iterator[tuple[Decision, list[Outcome]]]:
        """Every decision with its outcomes, in an order that depends on the content alone:
        (run, report digest, position); outcomes by key."""
        outcomes: dict[tuple[str, str], list[Outcome]] = {}
        for row in self._db.execute(f"SELECT {_OUTCOME_COLUMNS} FROM outcomes ORDER BY key"):
            o = Outcome(*row)
            outcomes.setdefault((o.report, o.proposal), []).append(o)
        for row in self._db.execute(f"SELECT {_DECISION_COLUMNS} FROM decisions ORDER BY run, report, position"):
            d = Decision(*row)
            yield d, outcomes.get((d.report, d.proposal), [])

    def audit(self) -> tuple[tuple[int, int, int], list[Finding]]:
        """Check every report's seal and invariants and every row against its report;
        ((reports, decisions, outcomes) checked, findings)."""
        findings: list[Finding] = []
        reports = decisions = 0
        # One pass over each table, joined here: the decisions have no index on their report.
        rows = self._db.execute(f"SELECT report_seq, {_DECISION_COLUMNS} FROM decisions ORDER BY report_seq, position")
        grouped = groupby(rows, key=lambda row: row[0])
        group = next(grouped, None)
        for seq, digest, body in self._db.execute("SELECT seq, digest, body FROM reports ORDER BY seq"):
            while group is not None and group[0] < seq:
                findings.append(Finding("decisions", None, f"rows of report_seq {group[0]} belong to no report"))
                group = next(grouped, None)
            stored = [Decision(*row[1:]) for row in group[1]] if group is not None and group[0] == seq else []
            if stored:
                group = next(grouped, None)
            findings += audit_report(digest, bytes(body), stored)
            reports += 1
            decisions += len(stored)
        while group is not None:
            findings.append(Finding("decisions", None, f"rows of report_seq {group[0]} belong to no report"))
            group = next(grouped, None)
        outcomes = 0
        for key, *row in self._db.execute(f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes ORDER BY seq"):
            findings += audit_outcome(key, Outcome(*row))
            outcomes += 1
        return (reports, decisions, outcomes), findings

    # --- internals ----------------------------------------------------------------

    def _insert(self, digest: str, run: str, body: bytes, decisions: Sequence[Decision]) -> bool:
        cursor = self._db.execute(
            "INSERT INTO reports (digest, run, body) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING",
            (digest, run, body),
        )
        if cursor.rowcount != 1:
            return False  # recording the same report twice adds nothing
        seq = cursor.lastrowid
        self._db.executemany(_INSERT_DECISION, [(seq, *d) for d in decisions])
        return True

    def _insert_outcome(self, key: str, outcome: Outcome) -> bool:
        cursor = self._db.execute(
            f"INSERT INTO outcomes (key, {_OUTCOME_COLUMNS}) VALUES (?{', ?' * len(Outcome._fields)})"
            " ON CONFLICT (key) DO NOTHING",
            (key, *outcome),
        )
        return cursor.rowcount == 1

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise ConfigError("usage.unwritable", f"cannot write ledger {self.path!r}: {e}") from e
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _prepare(self, read_only: bool) -> None:
        """WAL mode and the schema version; migrate an older ledger in one transaction."""
        try:
            if read_only:
                self._check_version(allow_older=False)
                return
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            with self._transaction():
                version = self._check_version(allow_older=True)
                for statements in _MIGRATIONS[version:]:
                    for statement in statements:
                        self._db.execute(statement)
                if version < SCHEMA_VERSION:
                    self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        except sqlite3.Error as e:
            raise ConfigError("usage.unreadable", f"cannot open ledger {self.path!r}: {e}") from e

    def _check_version(self, *, allow_older: bool) -> int:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        (app,) = self._db.execute("PRAGMA application_id").fetchone()
        (tables,) = self._db.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        if (version > 0 and app != APPLICATION_ID) or (version == 0 and tables):
            raise ConfigError("ledger.not_a_ledger", f"{self.path!r} is an SQLite file but not a ledger")
        if version > SCHEMA_VERSION:
            raise ConfigError(
                "ledger.version",
                f"{self.path!r} is a ledger of schema {version}; this evidence-rank reads up to {SCHEMA_VERSION}",
            )
        if version < SCHEMA_VERSION and not allow_older:
            raise ConfigError("ledger.version", f"{self.path!r} is a ledger of schema {version}; open it to write")
        return int(version)  # sqlite3 returns a PRAGMA's value untyped


def _checked(path: str, digest: str, body: bytes) -> tuple[Mapping[str, Any], bytes]:
    """A report stored in another ledger, verified as ``ledger add`` verifies a file; errors name it."""
    try:
        document = parse_json(bytes(body))
    except InputError as e:
        # A ledger holds canonical bytes only: anything else was put there by hand.
        raise TamperError("report.tampered", f"{path}: report {digest}: {e.detail}", pointer=e.pointer) from e
    try:
        canonical = checked_report(document)
    except EvidenceRankError as e:
        raise type(e)(e.code, f"{path}: report {digest}: {e.detail}", pointer=e.pointer) from e
    if document["digest"] != digest:
        raise TamperError("report.tampered", f"{path}: the report stored as {digest} is {document['digest']}")
    return document, canonical
