"""The ledger's schema: what each version creates, and how a file opened is checked against it
and migrated (docs/ledger.md, "Storage"). On :class:`~ranking.ledger.connection.Connection`;
:mod:`ranking.ledger.store` calls :func:`prepare` on every open.

``PRAGMA user_version`` is the schema version. A ledger opened to write is migrated to
:data:`SCHEMA_VERSION` in one transaction; a ledger opened to read is read at the version it
has, since reading must not write (schema 1 has no signers, schema 2 no edits, schema 3 no pool).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from curator_io.errors import ConfigError, TamperError
from ranking.ledger.connection import Connection, expected_schema

__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "prepare", "transaction"]

SCHEMA_VERSION = 4
APPLICATION_ID = 0x45524C47  # "ERLG": tells an evidence-rank ledger from any other SQLite file

# One tuple of statements per version: MIGRATIONS[v - 1] takes a ledger from v - 1 to v.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
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
    (
        # Who signed the bundle a report was ranked from (issue 26): an attestation, not derivable
        # from the report, so a table of its own beside it. A set: one row per (report, keyid,
        # name) however often it is recorded, so merge is a union in any order. name is null when
        # the trust file gives none; ifnull makes two such rows the same row.
        "CREATE TABLE signers (report TEXT NOT NULL, keyid TEXT NOT NULL, name TEXT)",
        "CREATE UNIQUE INDEX signers_once ON signers (report, keyid, ifnull(name, ''))",
    ),
    (
        # The edit each fingerprint stands for (issue 41): SPEC §3.6's preimage, {"scope",
        # "operations"}, as canonical JSON, so a note can name what was refused. Not in the report,
        # but checkable: its digest is its fingerprint. Recorded where the bundle is known.
        "CREATE TABLE edits (fingerprint TEXT NOT NULL PRIMARY KEY, edit BLOB NOT NULL) WITHOUT ROWID",
    ),
    (
        # The memory each run was ranked against (issue 53): its version and digest, and the document
        # itself when it is small enough (ranking/ledger/pool.py, MEMORY_BYTES). Keyed by the report.
        "CREATE TABLE memories (report TEXT NOT NULL PRIMARY KEY, version INTEGER NOT NULL, digest TEXT NOT NULL,"
        " document BLOB) WITHOUT ROWID",
        # The pool (issue 53): the closure of each edit a report deferred or left unselected, until it is
        # admitted, waits too long or makes room; a set keyed by (report, fingerprint), so merge is a union.
        "CREATE TABLE pool (report TEXT NOT NULL, fingerprint TEXT NOT NULL, run TEXT NOT NULL,"
        " closure BLOB NOT NULL, PRIMARY KEY (report, fingerprint)) WITHOUT ROWID",
        # What left the pool without being carried, and why: a tombstone, so a note can say so.
        "CREATE TABLE pool_dropped (report TEXT NOT NULL, fingerprint TEXT NOT NULL, run TEXT NOT NULL,"
        " why TEXT NOT NULL, dropped_in TEXT, PRIMARY KEY (report, fingerprint)) WITHOUT ROWID",
    ),
)
assert len(MIGRATIONS) == SCHEMA_VERSION


@contextmanager
def transaction(db: Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception."""
    db.run("BEGIN IMMEDIATE")
    try:
        yield
        db.run("COMMIT")
    except BaseException:
        db.rollback()
        raise


def prepare(db: Connection, *, read_only: bool) -> int:
    """Check the file before anything runs on it; then, to write, WAL mode and the current
    schema (an older ledger migrated in one transaction). The version it is read at."""
    version = _check_version(db, allow_empty=not read_only)
    if read_only or version == SCHEMA_VERSION:
        if not read_only:
            db.run("PRAGMA synchronous = NORMAL")
        return version
    # Only now, on a file known to be a ledger (or empty), is anything written to it.
    db.run("PRAGMA journal_mode = WAL")
    db.run("PRAGMA synchronous = NORMAL")
    with transaction(db):
        version = _check_version(db, allow_empty=True)  # another process may have migrated it meanwhile
        for statements in MIGRATIONS[version:]:
            for statement in statements:
                db.run(statement)
        if version < SCHEMA_VERSION:
            db.run(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.run(f"PRAGMA application_id = {APPLICATION_ID}")
    return SCHEMA_VERSION


def _check_version(db: Connection, *, allow_empty: bool) -> int:
    """The file's schema version, once its header and ``sqlite_schema`` say it is a ledger
    (of that version: an older one is read as it is, or migrated to write)."""
    if db.in_transaction:
        return _read_version(db, allow_empty=allow_empty)
    # One snapshot: another process may migrate the file between two reads of it.
    db.run("BEGIN")
    try:
        return _read_version(db, allow_empty=allow_empty)
    finally:
        db.rollback()


def _read_version(db: Connection, *, allow_empty: bool) -> int:
    (version,) = db.one("PRAGMA user_version")
    (app,) = db.one("PRAGMA application_id")
    if version < 0:  # never written by evidence-rank; as a slice of the migrations it would pick the last
        raise TamperError("ledger.damaged", f"its schema version (user_version) is {version}", source=db.path)
    (tables,) = db.one("SELECT count(*) FROM sqlite_schema")
    if (version > 0 and app != APPLICATION_ID) or (version == 0 and tables):
        raise ConfigError("ledger.not_a_ledger", "an SQLite file, but not a ledger", source=db.path)
    if version > SCHEMA_VERSION:
        raise ConfigError(
            "ledger.version",
            f"a ledger of schema {version}; this evidence-rank reads up to {SCHEMA_VERSION}",
            source=db.path,
        )
    if version == 0 and not allow_empty:
        raise ConfigError("ledger.not_a_ledger", "an empty file, not a ledger", source=db.path)
    db.check_schema(expected_schema(int(version), MIGRATIONS))  # before any query of ours
    return int(version)  # sqlite3 returns a PRAGMA's value untyped
