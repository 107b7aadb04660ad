"""The ledger's SQLite file: recording, reading, merging. With
:mod:`ranking.ledger.connection`, which opens and queries it, and
:mod:`ranking.ledger.schema`, which checks and migrates it on every open, the only
modules of the ledger that touch a file; every row read here passes
:mod:`ranking.ledger.rows`.

SQLite through the standard library: a real database with no server. The file
is in WAL mode with a busy timeout, so several processes (parallel CI jobs,
``batch --workers``) can write one ledger at once and each waits its turn
rather than failing.

Each report is recorded in one ``BEGIN IMMEDIATE`` transaction: its bytes and
its decision rows land together or not at all. ``synchronous=NORMAL`` (WAL):
a process that crashes loses nothing it committed; a power cut may lose the
last commits, never leave half of one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator_io.errors import ConfigError, TamperError
from curator_io.jsonio import parse_json
from ranking.ledger import pool_store
from ranking.ledger.audit import AuditFinding, audit_ledger, edit_fault, stored_report, unbacked_outcome
from ranking.ledger.carry import Pool
from ranking.ledger.connection import Connection, remove_if_empty, storable
from ranking.ledger.pool import Dropped, Memory, Pooled, PoolEntry
from ranking.ledger.records import (
    DecisionRow,
    Edit,
    Outcome,
    Recording,
    outcome_key,
    recording_of,
    recording_of_run,
)
from ranking.ledger.rows import RowError, decision_row, edit_row, outcome_row, report_row, signer_row
from ranking.ledger.schema import APPLICATION_ID, SCHEMA_VERSION, prepare, transaction
from ranking.signing.signers import Signer

if TYPE_CHECKING:
    from ranking.checking.acceptance import Accepted

__all__ = ["SCHEMA_VERSION", "APPLICATION_ID", "Ledger", "record_outcome"]

_MAX_PARAMETERS = 500  # well under SQLite's limit on bound parameters in one statement

_DECISION_COLUMNS = ", ".join(DecisionRow._fields)
_OUTCOME_COLUMNS = ", ".join(Outcome._fields)
_INSERT_DECISION = (
    f"INSERT INTO decisions (report_seq, {_DECISION_COLUMNS}) VALUES (?{', ?' * len(DecisionRow._fields)})"
)


class Ledger:
    """An open ledger. Use as a context manager; :meth:`open` creates or migrates it.

    Every query goes through :class:`~ranking.ledger.connection.Connection` (SQLite's
    errors become ours, naming the file) and every row read through
    :mod:`ranking.ledger.rows` (checked for type and range before it is used).
    """

    #: A bound on every query, in thousands of SQLite steps (``ledger.damaged`` past it); None: no
    #: bound. The schema check leaves nothing endless to run; the fuzzer sets one all the same.
    step_limit: int | None = None

    def __init__(self, connection: Connection) -> None:
        self._db = connection
        self.path = connection.path
        #: The file's schema version: SCHEMA_VERSION, or an older one opened read-only.
        self.version = SCHEMA_VERSION

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = True, read_only: bool = False) -> Ledger:
        """Open the ledger at ``path``; create it (when ``create``) and migrate it to the current schema.

        ``read_only`` opens an existing ledger for reading and never writes to the
        file: not even an empty file becomes a ledger. A missing file (without
        ``create``, or ``read_only``), a file that is not a ledger, or a ledger of
        a newer schema is a usage error (exit 2); a ledger whose schema is not
        ours is ``ledger.damaged`` (exit 4). A file this call created is removed
        again when it fails before writing anything to it.
        """
        shown = os.fspath(path)
        target = Path(path)
        if (read_only or not create) and not target.is_file():
            # A FIFO, a device or a folder is there, but is no ledger: say which, not "no such".
            why = "not a regular file" if os.path.lexists(target) and target.exists() else "no such ledger"
            raise ConfigError("usage.unreadable", f"cannot read {shown!r}: {why}")
        created = not target.exists()
        if not created and not target.is_file():
            # A folder, or a FIFO or device SQLite would wait on for ever in a read() no signal ends.
            raise ConfigError("usage.unwritable", "cannot write the ledger: not a regular file", source=shown)
        connection = Connection.open(path, mode="ro" if read_only else "rwc" if create else "rw")
        ledger = cls(connection)
        try:
            connection.limit_steps(cls.step_limit)
            ledger._prepare(read_only)
        except BaseException:
            connection.close()
            if created:
                remove_if_empty(target)
            raise
        return ledger

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def busy_timeout(self) -> float:
        """Seconds a query waits for a ledger another process holds (default 60)."""
        return self._db.busy_timeout

    @busy_timeout.setter
    def busy_timeout(self, seconds: float) -> None:
        self._db.busy_timeout = seconds

    # --- writing ------------------------------------------------------------------

    def add_report(self, accepted: Accepted, *, bundle: bytes | Mapping[str, Any] | None = None) -> bool:
        """Record an accepted report (:func:`ranking.checking.acceptance.accept`) with its decisions,
        who signed it when a trust file said, and the edits of its bundle when it was replayed from
        one (and, given that bundle's bytes or document, its memory and its pool); False when the
        report was already there."""
        from ranking.checking.acceptance import Replayed  # loaded already: an Accepted is in hand

        if isinstance(accepted, Replayed):
            recording = recording_of_run(accepted.result, accepted.signer, bundle)
        else:
            recording = recording_of(accepted.document, accepted.canonical, accepted.signer)
        return self.add_produced([recording]) == 1

    def add_produced(self, recordings: Sequence[Recording]) -> int:
        """Record reports this process's pipeline has just produced; how many were new.

        One transaction for them all, so each report lands whole with its rows
        (``batch --ledger`` groups a few, docs/ledger.md). Not verified again:
        SPEC §7's checks guard reports that come from elsewhere, and these come
        from ``rank`` here (``score``, ``batch``). ``ledger verify`` still
        checks them like any other.
        """
        if not recordings:
            return 0
        with self._transaction():
            return sum(self._insert(*r) for r in recordings)

    def add_outcome(self, outcome: Outcome) -> bool:
        """Record what the acceptance test did with a backed diff; False when already recorded."""
        with self._transaction():
            return self._insert_outcome(outcome_key(outcome), outcome)

    def merge(self, other: Ledger) -> tuple[int, int]:
        """Add every report and outcome of ``other`` this ledger lacks: (reports, outcomes) added.

        Each report is verified again (SPEC §7) and its rows derived here, never
        copied: ``other``'s rows are not trusted. Its outcomes are checked for type
        and range, and each must belong to a decision (a ``committed`` one to a
        selected decision); anything else refuses the whole merge (exit 4),
        naming the row, before anything is written. New reports are added in
        order of (run, digest), so which ledger came first does not change the
        content. Every signer of ``other`` is added too (a union: a report may
        have several), checked for its form and refused unless ``other`` holds
        its report; so is every edit, refused unless its digest is its
        fingerprint. All of ``other`` goes in one transaction.
        """
        have = {self._digest(seq, digest) for seq, digest in self._db.rows("SELECT seq, digest FROM reports")}
        incoming = []
        theirs = set()
        for seq, digest, body in other._db.rows("SELECT seq, digest, body FROM reports ORDER BY run, digest"):
            digest, body = other._report(seq, digest, body)
            theirs.add(digest)
            if digest in have:
                continue
            accepted = stored_report(other.path, digest, body)
            incoming.append(recording_of(accepted.document, accepted.canonical))
        decided = {(d.report, d.proposal): d.disposition for r in incoming for d in r.decisions}
        outcomes = []
        for key, *row in other._db.rows(f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes ORDER BY key"):
            outcome = other._outcome(key, row)
            if outcome_key(outcome) != key:
                continue  # an edited outcome is not one the acceptance test recorded (ledger verify names it)
            disposition = decided.get((outcome.report, outcome.proposal)) or self._disposition(outcome)
            problem = unbacked_outcome(outcome, disposition)
            if problem is not None:
                raise TamperError("ledger.tampered", f"outcomes row {key}: {problem}", source=other.path)
            outcomes.append((key, outcome))
        signers = []
        for rowid, report, signer in other._signer_rows():
            if report not in theirs:
                shown = report
                raise TamperError(
                    "ledger.tampered", f"signers row {rowid}: report {shown} is not in it", source=other.path
                )
            signers.append((report, signer))
        edits = []
        for fingerprint, edit in other._edit_rows():
            fault = edit_fault(fingerprint, edit)
            if fault is not None:
                raise TamperError("ledger.tampered", f"edits row {fingerprint}: {fault}", source=other.path)
            edits.append((fingerprint, edit))
        derived: dict[tuple[str, str | None], list[str]] = {}
        for recording in incoming:
            for d in recording.decisions:
                derived.setdefault((d.report, d.fingerprint), []).append(d.disposition)

        def dispositions(report: str, fingerprint: str) -> list[str]:
            if report in have:  # the same report as this ledger's, whose rows are this ledger's
                return [d.disposition for d in self.decisions(fingerprint=fingerprint) if d.report == report]
            return derived.get((report, fingerprint), [])

        empty = pool_store.PoolRows([], [], [])  # a ledger older than schema 4 has no pool
        pooled = pool_store.other_pool(other._db, theirs, dispositions) if other.version >= 4 else empty
        with self._transaction():
            # Not settled report by report: the pool of a merge is settled by content alone (merge_pool).
            reports = sum(self._insert(*item, settle=False) for item in incoming)
            added = sum(self._insert_outcome(key, o) for key, o in outcomes)
            for report, signer in signers:
                self._insert_signer(report, signer)
            self._insert_edits(edits)
            pool_store.merge_pool(self._db, pooled)
        return reports, added

    # --- reading ------------------------------------------------------------------

    def decisions(
        self, *, fingerprint: str | None = None, proposal: str | None = None, lesson: str | None = None
    ) -> list[DecisionRow]:
        """Decisions matching every filter given, oldest first (insertion order, then report order).
        ``fingerprint`` is a whole one or its first hex digits (at least 8), as tables show it."""
        where, values = [], []
        for column, value in (("fingerprint", fingerprint), ("proposal", proposal), ("lesson", lesson)):
            if value is not None:
                if not storable(value):
                    return []  # not UTF-8 (a file name's bytes from argv): no stored text is equal to it
                prefix = _hex_prefix(value) if column == "fingerprint" else None
                where.append(f"{column} = ?" if prefix is None else f"substr({column}, 1, {len(prefix)}) = ?")
                values.append(value if prefix is None else prefix)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._db.rows(
            f"SELECT rowid, {_DECISION_COLUMNS} FROM decisions {clause} ORDER BY report_seq, position", values
        )
        return [self._decision(rowid, row) for rowid, *row in rows]

    def same_edit_as(self, proposal: str, *, lesson: str | None = None) -> list[DecisionRow]:
        """The decisions on ``proposal``, and every decision on the same edit (its fingerprint,
        SPEC §3.6) under another id: a reworded re-proposal. Oldest first; ``lesson`` filters."""
        if not storable(proposal) or (lesson is not None and not storable(lesson)):
            return []
        where = (
            "(proposal = ? OR fingerprint IN"
            " (SELECT fingerprint FROM decisions WHERE proposal = ? AND fingerprint IS NOT NULL))"
        )
        values: list[str] = [proposal, proposal]
        if lesson is not None:
            where += " AND lesson = ?"
            values.append(lesson)
        query = f"SELECT rowid, {_DECISION_COLUMNS} FROM decisions WHERE {where} ORDER BY report_seq, position"
        return [self._decision(rowid, row) for rowid, *row in self._db.rows(query, values)]

    def on_fingerprints(self, fingerprints: Iterable[str]) -> list[DecisionRow]:
        """Every decision on these fingerprints, oldest first (for score's "refused before" marks)."""
        wanted = sorted(f for f in set(fingerprints) if storable(f))
        found: list[tuple[int, DecisionRow]] = []
        for start in range(0, len(wanted), _MAX_PARAMETERS):
            chunk = wanted[start : start + _MAX_PARAMETERS]
            rows = self._db.rows(
                f"SELECT rowid, report_seq, {_DECISION_COLUMNS} FROM decisions"
                f" WHERE fingerprint IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            found += [(self._seq(rowid, seq), self._decision(rowid, row)) for rowid, seq, *row in rows]
        found.sort(key=lambda item: (item[0], item[1].position))
        return [d for _, d in found]

    def outcomes_of(self, decisions: Iterable[DecisionRow]) -> dict[tuple[str, str], list[Outcome]]:
        """The outcomes recorded against each (report, proposal), in the order they were recorded."""
        out: dict[tuple[str, str], list[Outcome]] = {}
        for d in decisions:
            if (d.report, d.proposal) in out:
                continue
            rows = self._db.rows(
                f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes WHERE report = ? AND proposal = ? ORDER BY seq",
                (d.report, d.proposal),
            )
            out[(d.report, d.proposal)] = [self._outcome(key, row) for key, *row in rows]
        return out

    def signers_of(self, reports: Iterable[str] | None = None) -> dict[str, tuple[Signer, ...]]:
        """Who signed the bundle of each report (of ``reports``, or of every report), in (key id,
        name) order; a report without a recorded signer is not in the answer."""
        wanted = None if reports is None else set(reports)
        found: dict[str, list[Signer]] = {}
        for _, report, signer in self._signer_rows():
            if wanted is None or report in wanted:
                found.setdefault(report, []).append(signer)
        return {r: tuple(sorted(s, key=_signer_order)) for r, s in found.items()}

    def edits_of(self, fingerprints: Iterable[str]) -> dict[str, Any]:
        """The edit (SPEC §3.6: ``{"scope", "operations"}``) behind each of ``fingerprints`` the ledger
        knows and that is its fingerprint's; a fingerprint without one is not in the answer."""
        return {f: parse_json(e) for f, e in self._edit_rows(fingerprints) if edit_fault(f, e) is None}

    def pool(self) -> tuple[PoolEntry, ...]:
        """Every edit waiting in the pool (docs/ledger.md, "The pool"), by fingerprint, then oldest
        first: one entry per report that deferred it or left it unselected. None before schema 4."""
        return pool_store.entries(self._db) if self.version >= 4 else ()

    def carrier(self) -> Pool:
        """The pool as it is now, to carry into a bundle (:meth:`curator_io.BundleBuilder.carry`)."""
        return Pool(self.pool())

    def pool_dropped(self) -> tuple[Dropped, ...]:
        """What left the pool without being carried, and why (a tombstone each), oldest first."""
        return pool_store.dropped(self._db) if self.version >= 4 else ()

    def latest_memory(self) -> Mapping[str, Any] | None:
        """The memory document of the most recently recorded run that has one kept (SPEC §1's
        ``memory`` object, as its bundle held it); None without."""
        found = self.latest_ranked_memory()
        return None if found is None else found[1]

    def latest_ranked_memory(self) -> tuple[str, Mapping[str, Any]] | None:
        """The most recently recorded run that has its memory kept: its report's digest and the
        memory document it was ranked against; None without."""
        return pool_store.latest_memory(self._db) if self.version >= 4 else None

    def memories(self) -> dict[str, Memory]:
        """The memory each report was ranked against, by report digest, where it was recorded."""
        return dict(pool_store.memories(self._db)) if self.version >= 4 else {}

    def report_body(self, digest: str) -> bytes:
        """The stored bytes of report ``digest`` (canonical JSON); ``ledger.damaged`` when a decision
        names a report the ledger does not hold."""
        for seq, found, body in self._db.rows("SELECT seq, digest, body FROM reports WHERE digest = ?", (digest,)):
            return self._report(seq, found, body)[1]
        raise TamperError("ledger.damaged", f"decisions name report {digest}, which is not stored", source=self.path)

    def outcome_categories(self) -> list[tuple[str, str, str]]:
        """(report, fingerprint, category) of every acceptance outcome recorded against an edit, in
        recording order: what :func:`ranking.ledger.fate.admitted` reads."""
        found = []
        for key, *row in self._db.rows(f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes ORDER BY seq"):
            o = self._outcome(key, row)
            if o.fingerprint is not None:
                found.append((o.report, o.fingerprint, o.category))
        return found

    def export(self) -> Iterator[tuple[DecisionRow, list[Outcome]]]:
        """Every decision with its outcomes, in an order that depends on the content alone:
        (run, report digest, position); outcomes by key."""
        outcomes: dict[tuple[str, str], list[Outcome]] = {}
        for key, *row in self._db.rows(f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes ORDER BY key"):
            o = self._outcome(key, row)
            outcomes.setdefault((o.report, o.proposal), []).append(o)
        query = f"SELECT rowid, {_DECISION_COLUMNS} FROM decisions ORDER BY run, report, position"
        for rowid, *row in self._db.rows(query):
            d = self._decision(rowid, row)
            yield d, outcomes.get((d.report, d.proposal), [])

    def audit(self) -> tuple[tuple[int, int, int], list[AuditFinding]]:
        """Check the file (SQLite's quick_check), every report's seal and invariants, every row
        against its report, and every outcome against its key and its decision;
        ((reports, decisions, outcomes) checked, findings)."""
        (integrity,) = self._db.one("PRAGMA quick_check(1)")
        if integrity != "ok":
            raise TamperError("ledger.damaged", f"SQLite's quick_check: {integrity!s}", source=self.path)
        # One pass over each table, joined in audit_ledger: the decisions have no index on their report.
        query = f"SELECT rowid, report_seq, {_DECISION_COLUMNS} FROM decisions ORDER BY report_seq, position"
        decisions = ((self._seq(rowid, seq), self._decision(rowid, row)) for rowid, seq, *row in self._db.rows(query))
        reports = (
            (seq, *self._report(seq, digest, body))
            for seq, digest, body in self._db.rows("SELECT seq, digest, body FROM reports ORDER BY seq")
        )
        query = f"SELECT key, {_OUTCOME_COLUMNS} FROM outcomes ORDER BY seq"
        outcomes = ((key, self._outcome(key, row)) for key, *row in self._db.rows(query))
        counts, findings = audit_ledger(reports, decisions, outcomes, self._signer_rows(), self._edit_rows())
        if self.version >= 4:
            stored = {self._digest(seq, d) for seq, d in self._db.rows("SELECT seq, digest FROM reports")}
            findings += pool_store.audit_pool(self._db, stored)
        return counts, findings

    # --- internals ----------------------------------------------------------------

    def _decision(self, rowid: object, row: Sequence[object]) -> DecisionRow:
        try:
            return decision_row(rowid, row)
        except RowError as e:
            raise self._damaged(e) from e

    def _outcome(self, key: object, row: Sequence[object]) -> Outcome:
        try:
            if type(key) is not str:
                raise RowError("outcomes", key, "its key is not text")
            return outcome_row(key, row)
        except RowError as e:
            raise self._damaged(e) from e

    def _signer_rows(self) -> Iterator[tuple[int, str, Signer]]:
        """Every ``signers`` row checked, as (rowid, report, signer); none in a schema 1 ledger."""
        if self.version < 2:
            return
        for rowid, *row in self._db.rows("SELECT rowid, report, keyid, name FROM signers ORDER BY rowid"):
            try:
                yield (rowid, *signer_row(rowid, row))
            except RowError as e:
                raise self._damaged(e) from e

    def _edit_rows(self, fingerprints: Iterable[str] | None = None) -> Iterator[tuple[str, bytes]]:
        """``edits`` rows checked for their form (of ``fingerprints``, or all), by fingerprint; none
        in a ledger older than schema 3."""
        if self.version < 3:
            return
        if fingerprints is None:
            rows: Iterable[Sequence[object]] = self._db.rows("SELECT fingerprint, edit FROM edits ORDER BY fingerprint")
        else:
            wanted = sorted(f for f in set(fingerprints) if storable(f))
            rows = []
            for start in range(0, len(wanted), _MAX_PARAMETERS):
                chunk = wanted[start : start + _MAX_PARAMETERS]
                query = f"SELECT fingerprint, edit FROM edits WHERE fingerprint IN ({', '.join('?' * len(chunk))})"
                rows += self._db.rows(query, chunk)
        for fingerprint, edit in rows:
            try:
                yield edit_row(fingerprint, edit)
            except RowError as e:
                raise self._damaged(e) from e

    def _report(self, seq: object, digest: object, body: object) -> tuple[str, bytes]:
        try:
            return report_row(seq, digest, body)
        except RowError as e:
            raise self._damaged(e) from e

    def _seq(self, rowid: object, seq: object) -> int:
        if type(seq) is not int:
            raise self._damaged(RowError("decisions", rowid, "report_seq is not an integer"))
        return seq

    def _digest(self, seq: object, digest: object) -> str:
        return self._report(seq, digest, b"")[0]

    def _damaged(self, error: RowError) -> TamperError:
        return TamperError("ledger.damaged", str(error), source=self.path)

    def _disposition(self, outcome: Outcome) -> str | None:
        """The disposition of the decision an outcome is about, in this ledger; None without one."""
        query = f"SELECT rowid, {_DECISION_COLUMNS} FROM decisions WHERE report = ? AND proposal = ? LIMIT 1"
        for rowid, *row in self._db.rows(query, (outcome.report, outcome.proposal)):
            return self._decision(rowid, row).disposition
        return None

    def _insert(
        self,
        digest: str,
        run: str,
        body: bytes,
        decisions: Sequence[DecisionRow],
        signer: Signer | None = None,
        edits: Sequence[Edit] = (),
        memory: Memory | None = None,
        pooled: Sequence[Pooled] = (),
        *,
        settle: bool = True,
    ) -> bool:
        if signer is not None:
            self._insert_signer(digest, signer)  # also when the report is there already: one more attestation
        if edits:  # also when the report is there already: recorded once without its bundle, say
            self._insert_edits(edits)
        pool_store.record_memory(self._db, digest, memory)  # likewise
        cursor = self._db.run(
            "INSERT INTO reports (digest, run, body) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING",
            (digest, run, body),
        )
        if cursor.rowcount != 1:
            return False  # recording the same report twice adds nothing
        seq = cursor.lastrowid
        assert seq is not None  # Cannot fail: the row was inserted.
        self._db.many(_INSERT_DECISION, [(seq, *d) for d in decisions])
        if settle:
            pool_store.record_pool(self._db, seq, digest, run, decisions, pooled)
        return True

    def _insert_signer(self, report: str, signer: Signer) -> None:
        self._db.run(
            "INSERT INTO signers (report, keyid, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (report, signer.keyid, signer.name),
        )

    def _insert_edits(self, edits: Sequence[Edit]) -> None:
        if edits:
            self._db.many("INSERT INTO edits (fingerprint, edit) VALUES (?, ?) ON CONFLICT DO NOTHING", edits)

    def _insert_outcome(self, key: str, outcome: Outcome) -> bool:
        cursor = self._db.run(
            f"INSERT INTO outcomes (key, {_OUTCOME_COLUMNS}) VALUES (?{', ?' * len(Outcome._fields)})"
            " ON CONFLICT (key) DO NOTHING",
            (key, *outcome),
        )
        return cursor.rowcount == 1

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with transaction(self._db):
            yield

    def _prepare(self, read_only: bool) -> None:
        self.version = prepare(self._db, read_only=read_only)


def _hex_prefix(given: str) -> str | None:
    """``sha256:`` and the hex digits of a fingerprint given by its hex digits (8 to 64 of them, with
    or without ``sha256:``, as tables and other tools show it); None for anything else."""
    digits = given.removeprefix("sha256:")
    if 8 <= len(digits) <= 64 and all(c in "0123456789abcdef" for c in digits):
        return "sha256:" + digits
    return None


def _signer_order(signer: Signer) -> tuple[str, str]:
    return signer.keyid, signer.name or ""


def record_outcome(ledger: str | os.PathLike[str], outcome: Outcome) -> bool:
    """Record what the acceptance test did with a backed diff; False when already recorded."""
    with Ledger.open(ledger) as opened:
        return opened.add_outcome(outcome)
