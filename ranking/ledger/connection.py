"""The SQLite connection under a ledger: the one place a ledger file is opened and
queried, and where what SQLite says becomes one of our errors.

A ledger is an input like any other (someone else's file, merged in; a file
damaged on disk), so nothing SQLite raises leaves this module as it is:

- a file that is not SQLite, or an SQLite file that is not a ledger:
  ``ledger.not_a_ledger`` (exit 2);
- a ledger whose schema is not the one evidence-rank writes (a table missing, a
  column of another type, a view or a trigger), a corrupted page, a value of
  the wrong type: ``ledger.damaged`` (exit 4), naming the file and what is wrong;
- a file or folder that cannot be written (read-only, a full disk):
  ``usage.unwritable`` (exit 2) with SQLite's own words, and the transaction
  rolled back, so the ledger is as it was; one that cannot be read: ``usage.unreadable``.

**The schema is checked before any query runs** (:meth:`Connection.check_schema`):
``sqlite_schema`` must hold exactly what the migrations create, statement for
statement, so no view, trigger or default that someone else defined ever runs
here (a ``reports`` that is an endless recursive view is refused, not queried).
``trusted_schema`` is off as a second line.

**Waiting never blocks a signal.** SQLite's own busy handler sleeps inside C,
where Python cannot run the SIGTERM or Ctrl-C handler; a ledger another process
holds would keep the command for the whole busy timeout. The busy timeout is
therefore 0 and :meth:`Connection.run` waits in short Python sleeps instead,
which a signal interrupts at once (README, "Signals").
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from curator_io.errors import ConfigError, EvidenceRankError, TamperError

__all__ = ["BUSY_TIMEOUT_S", "Connection", "expected_schema", "remove_if_empty", "storable"]

BUSY_TIMEOUT_S = 60.0
_POLL_S = (0.005, 0.01, 0.02, 0.05)  # the waits between attempts on a busy ledger, then the last one again
_PROGRESS_EVERY = 1000  # SQLite virtual-machine steps between two calls of the progress handler

# SQLite's primary result codes (https://sqlite.org/rescode.html) we tell apart.
_PERM, _BUSY, _LOCKED, _READONLY, _INTERRUPT, _IOERR = 3, 5, 6, 8, 9, 10
_FULL, _CANTOPEN, _NOLFS, _AUTH, _NOTADB = 13, 14, 22, 23, 26
_READONLY_DIRECTORY = 1544
_CANNOT_WRITE = frozenset({_PERM, _READONLY, _IOERR, _FULL, _CANTOPEN, _NOLFS})


def _top_level_only(action: int, arg1: str | None, arg2: str | None, database: str | None, inner: str | None) -> int:
    """SQLite's authorizer: ``inner`` names the trigger or view an access comes from (SQLite's
    sixth argument); only our own statements, which use neither, may run."""
    return sqlite3.SQLITE_OK if inner is None else sqlite3.SQLITE_DENY


def _primary(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


@functools.cache
def expected_schema(version: int, migrations: tuple[tuple[str, ...], ...]) -> frozenset[tuple[Any, ...]]:
    """``sqlite_schema`` as the first ``version`` migrations leave it, derived by running them."""
    db = sqlite3.connect(":memory:")
    try:
        for statements in migrations[:version]:
            for statement in statements:
                db.execute(statement)
        return frozenset(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema"))
    finally:
        db.close()


class Connection:
    """One SQLite connection to the ledger at ``path``; every query goes through :meth:`run`."""

    def __init__(self, db: sqlite3.Connection, path: str, *, writable: bool) -> None:
        self._db = db
        self.path = path
        self.writable = writable
        #: Seconds :meth:`run` waits for a busy ledger before it gives up.
        self.busy_timeout = BUSY_TIMEOUT_S
        self._steps_left: int | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, mode: str) -> Connection:
        """Open ``path`` with SQLite's ``mode`` (``ro``, ``rw`` or ``rwc``); nothing is read yet.

        ``ro`` is a promise that nothing is written through the connection. Where
        the file and its folder are writable it is kept by the callers, not by
        SQLite (``mode=rw``): the last connection to close a WAL ledger then
        removes the ``-wal`` and ``-shm`` files, as a writer would, instead of
        leaving them beside the ledger after every read.

        A ledger in a folder this process cannot write is read with ``immutable=1``:
        SQLite cannot create the ``-wal`` and ``-shm`` files that WAL mode reads
        through there, and no one can write a WAL ledger without them, so it cannot
        change while it is read. A ``-wal`` file beside it without its ``-shm``
        (commits not yet checkpointed, which ``immutable`` would ignore) is refused.
        """
        shown = os.fspath(path)
        target = Path(path).absolute()
        opened = mode
        if mode == "ro" and os.access(target.parent, os.W_OK) and os.access(target, os.W_OK):
            opened = "rw"
        uri = f"{target.as_uri()}?mode={opened}"
        if opened == "ro" and not os.access(target.parent, os.W_OK):
            if Path(f"{target}-wal").exists() and not Path(f"{target}-shm").exists():
                raise ConfigError(
                    "usage.unreadable",
                    "cannot read the ledger: it has a -wal file and no -shm file, in a folder this process "
                    "cannot write",
                    source=shown,
                )
            if not Path(f"{target}-wal").exists():
                uri += "&immutable=1"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=0, isolation_level=None)  # transactions are ours
        except sqlite3.Error as e:
            what = "unreadable" if mode == "ro" else "unwritable"
            raise ConfigError(f"usage.{what}", f"cannot open the ledger: {e}", source=shown) from e
        # The backstop behind check_schema: nothing a view or trigger of the file asks for is allowed.
        db.set_authorizer(_top_level_only)
        connection = cls(db, shown, writable=mode != "ro")
        try:
            connection.run("PRAGMA trusted_schema = OFF")  # no function a schema names runs with our rights
            connection.run("PRAGMA cell_size_check = ON")  # a corrupted page is an error, not a wrong row
        except BaseException:
            db.close()
            raise
        return connection

    def close(self) -> None:
        self._db.close()

    def limit_steps(self, steps: int | None) -> None:
        """Refuse (``ledger.damaged``) any query that runs more than about ``steps`` thousand
        SQLite steps: a bound on a crafted file for the fuzzer; None lifts it."""
        self._steps_left = steps
        self._db.set_progress_handler(None if steps is None else self._on_progress, _PROGRESS_EVERY)

    def _on_progress(self) -> int:
        if self._steps_left is None:
            return 0
        self._steps_left -= 1
        return 1 if self._steps_left < 0 else 0

    # --- queries -------------------------------------------------------------------

    def run(self, sql: str, parameters: Sequence[object] = ()) -> sqlite3.Cursor:
        """Execute one statement; a busy ledger is waited for in short sleeps that a signal ends."""
        deadline = None
        attempt = 0
        while True:
            try:
                return self._db.execute(sql, parameters)
            except UnicodeDecodeError as e:  # the first row is read here
                raise self.not_utf8() from e
            except sqlite3.Error as e:
                if _primary(e) not in (_BUSY, _LOCKED):
                    raise self.failure(e) from e
                now = time.monotonic()
                deadline = now + self.busy_timeout if deadline is None else deadline
                if now >= deadline:
                    raise self.failure(e) from e
            time.sleep(_POLL_S[min(attempt, len(_POLL_S) - 1)])  # SIGTERM and Ctrl-C are handled here
            attempt += 1

    def rows(self, sql: str, parameters: Sequence[object] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, as they are read; an error while reading them is ours too."""
        cursor = self.run(sql, parameters)
        while True:
            try:
                row = next(cursor, None)
            except UnicodeDecodeError as e:
                raise self.not_utf8() from e
            except sqlite3.Error as e:
                raise self.failure(e) from e
            if row is None:
                return
            yield row

    def one(self, sql: str) -> tuple[Any, ...]:
        row = next(self.rows(sql), None)
        if row is None:  # pragma: no cover - every statement given here returns a row
            raise TamperError("ledger.damaged", f"{sql!r} returned nothing", source=self.path)
        return tuple(row)

    def many(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        try:
            self._db.executemany(sql, rows)
        except sqlite3.Error as e:
            raise self.failure(e) from e

    @property
    def in_transaction(self) -> bool:
        return self._db.in_transaction

    def rollback(self) -> None:
        """Roll back what is open, if anything is: after a full disk SQLite may have rolled back
        already, and "cannot rollback" must not hide the error that brought us here."""
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error being raised says what went wrong; the file is as it was or rolls back on open

    # --- the schema ------------------------------------------------------------------

    def check_schema(self, expected: frozenset[tuple[Any, ...]]) -> None:
        """Refuse a file whose ``sqlite_schema`` is not exactly ``expected`` (``ledger.damaged``);
        ``sqlite_stat*`` tables (written by ``ANALYZE``) are allowed."""
        rows = self.rows("SELECT type, name, tbl_name, sql FROM sqlite_schema")
        found = {row for row in rows if not (row[0] == "table" and str(row[1]).startswith("sqlite_stat"))}
        # Tables first: a table that is missing or changed says more than its index does.
        missing = sorted(((str(r[0]), str(r[1])) for r in expected - found), key=lambda r: (r[0] != "table", r))
        extra = sorted(((str(r[0]), str(r[1])) for r in found - expected), key=lambda r: (r[0] != "table", r))
        if not missing and not extra:
            return
        ours = {name: kind for kind, name in missing}
        if not extra:
            what = "its {} {!r} is missing".format(*missing[0])
        else:
            kind, name = extra[0]
            if name not in ours:
                what = f"it has a {kind} {name!r} that evidence-rank does not define"
            elif ours[name] != kind:
                what = f"{name!r} is a {kind}, where evidence-rank defines a {ours[name]}"
            else:
                what = f"the {kind} {name!r} is not defined as evidence-rank defines it"
        raise TamperError("ledger.damaged", f"not the schema of a ledger: {what}", source=self.path)

    # --- errors ----------------------------------------------------------------------

    def not_utf8(self) -> TamperError:
        # SQLite keeps the bytes it was given; Python's sqlite3 decodes TEXT as UTF-8 when it reads it.
        return TamperError("ledger.damaged", "a stored text is not UTF-8", source=self.path)

    def failure(self, error: sqlite3.Error) -> EvidenceRankError:
        """What an SQLite error means for this ledger, as one of our errors naming the file."""
        code = _primary(error)
        said = str(error)  # SQLite's message may quote what the file holds
        if code == _NOTADB:
            return ConfigError("ledger.not_a_ledger", f"not an SQLite file: {said}", source=self.path)
        if code in (_BUSY, _LOCKED):
            doing = "write" if self.writable else "read"
            what = f"cannot {doing} the ledger: another process held it for {self.busy_timeout:g} s: {said}"
            return ConfigError(f"usage.un{doing}able", what, source=self.path)
        if code in _CANNOT_WRITE or getattr(error, "sqlite_errorcode", None) == _READONLY_DIRECTORY:
            if self.writable:
                return ConfigError("usage.unwritable", f"cannot write the ledger: {said}", source=self.path)
            return ConfigError("usage.unreadable", f"cannot read the ledger: {said}", source=self.path)
        if code == _AUTH:
            return TamperError("ledger.damaged", "it defines a view or trigger, which is not run", source=self.path)
        if code == _INTERRUPT:
            return TamperError("ledger.damaged", "a query ran past its bound", source=self.path)
        return TamperError("ledger.damaged", f"SQLite refuses it: {said}", source=self.path)


def storable(text: str) -> bool:
    """Text SQLite can be given: UTF-8 (argv's undecodable bytes are lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def remove_if_empty(path: Path) -> None:
    """Remove a ledger file this process created and could not write anything to (a full disk)."""
    with contextlib.suppress(OSError):
        wal = Path(f"{path}-wal")
        if path.stat().st_size == 0 and (not wal.exists() or wal.stat().st_size == 0):
            for p in (path, wal, Path(f"{path}-shm")):
                p.unlink(missing_ok=True)
