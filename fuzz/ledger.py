"""The ledger target: crafted SQLite ledgers through every ledger command, in-process (issue 24).

A case's ``recipe`` slot seeds the crafting: one to four changes to a sound
ledger (two reports, an outcome and a signer), made with ``sqlite3`` as a person would
make them: a column retyped, a table dropped or replaced by a view (recursive
ones included), a trigger, a row's value replaced by text, a BLOB, an
infinity, a huge integer or a line break, rows duplicated or deleted, the
header's version or application id changed, pages overwritten or the file cut
short. A ``ledger`` slot, when a mutation makes one, is the file's bytes as they
are. Then ``verify``, ``export``, ``history``, ``notes``, ``render``, ``add``
(with the case's report) and ``merge`` (into a sound ledger) run on it.

The property: each exits 0, 2, 3 or 4 (2 and 4 for what is wrong with the
ledger, 3 for a report that is not I-JSON); no traceback; a refusal is one line
(and perhaps a hint) whose code is documented and exits as its family does;
``verify`` prints nothing a terminal acts on; and the ledger merged into still
verifies. Every query runs under a bound (``Ledger.step_limit``), so a crafted
file that made one run for ever would end in ``ledger.damaged``, not a hang.
"""

from __future__ import annotations

import ast
import functools
import random
import shutil
import sqlite3
import tempfile
from pathlib import Path

from curator_io.jsonio import parse_json
from fuzz.cli import _LINE, _SCRATCH, run_main
from fuzz.prop import CODES, Violation, exit_code_of
from fuzz.seeds import PARITY, Case
from fuzz.targets import Target
from ranking.ledger.records import Outcome, recording_of
from ranking.ledger.store import Ledger
from ranking.signing.signers import Signer

__all__ = ["LEDGER_TARGETS", "sound_ledger"]

_MIXED = PARITY / "002-mixed-dispositions" / "expected.report.json"
_BASIC = PARITY / "001-basic-accepted-selected" / "expected.report.json"
_COLUMNS = {
    "reports": ("seq", "digest", "run", "body"),
    "decisions": ("report_seq", "report", "position", "run", "proposal", "fingerprint", "lesson", "validation",
                  "disposition", "reasons", "score", "superseded_by", "rationale"),
    "outcomes": ("seq", "key", "report", "proposal", "fingerprint", "diff", "version", "category", "p_improve",
                 "observed_delta"),
    "signers": ("report", "keyid", "name"),
}  # fmt: skip
_VALUES: tuple[object, ...] = (
    None, "high", "", "x\n::error::y", "\x1b[2J", "[", '[{"code": 1}]', "[]", "committed", "selected",
    b"", b"\x00\xff", b"{}", 0, -1, 7, 2**63 - 1, -(2**63), 0.5, 1.5, -2.0, float("inf"), float("-inf"),
    1e308, "sha256:" + "0" * 64, "n" * 10_000,
)  # fmt: skip
_TYPES = ("TEXT", "BLOB", "ANY", "", "INTEGER", "REAL", "NUMERIC", "INTEGER PRIMARY KEY")
#: Steps (in thousands of SQLite virtual-machine steps) any one query may take: far above
#: what a ledger this small needs, far below a hang.
_STEP_LIMIT = 20_000


def _sql(db: sqlite3.Connection, rng: random.Random) -> None:
    """One change to the ledger, as sqlite3 would make it."""
    table = rng.choice(sorted(_COLUMNS))
    column = rng.choice(_COLUMNS[table])
    op = rng.randrange(10)
    if op == 0:  # a column retyped in the schema
        old = db.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()
        if old and old[0]:
            words = old[0].split(f"{column} ", 1)
            if len(words) == 2:
                rest = words[1].split(",", 1)
                new = f"{words[0]}{column} {rng.choice(_TYPES)}" + ("," + rest[1] if len(rest) == 2 else ")")
                db.execute("UPDATE sqlite_schema SET sql = ? WHERE name = ?", (new, table))
    elif op == 1:
        db.execute(f"DROP TABLE IF EXISTS {table}")
    elif op == 2:  # a table replaced by a view, perhaps an endless one
        db.execute(f"DROP TABLE IF EXISTS {table}")
        names = ", ".join(_COLUMNS[table])
        values = ", ".join(["n"] + ["'x'"] * (len(_COLUMNS[table]) - 1))
        limit = "" if rng.random() < 0.5 else " WHERE n < 5"
        db.execute(
            f"CREATE VIEW {table} ({names}) AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c{limit})"
            f" SELECT {values} FROM c"
        )
    elif op == 3:
        db.execute(
            f"CREATE TRIGGER IF NOT EXISTS t{rng.randrange(99)} AFTER INSERT ON reports BEGIN DELETE FROM {table}; END"
        )
    elif op in (4, 5, 6):  # a value of another type or range
        db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid IN (SELECT rowid FROM {table} LIMIT 1 OFFSET ?)",
                   (rng.choice(_VALUES), rng.randrange(3)))  # fmt: skip
    elif op == 7:
        db.execute(f"INSERT INTO {table} SELECT * FROM {table} LIMIT 1")
    elif op == 8:
        db.execute(
            f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} LIMIT 1 OFFSET ?)", (rng.randrange(3),)
        )
    else:
        pragma = rng.choice(("user_version", "application_id"))
        db.execute(f"PRAGMA {pragma} = {rng.choice((0, 1, 2, -1, 0x45524C47, 2**31 - 1))}")


def _crafted(path: Path, recipe: bytes) -> None:
    rng = random.Random(recipe)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA writable_schema = ON")
        for _ in range(rng.randint(1, 3)):
            try:
                _sql(db, rng)
            except sqlite3.Error:
                pass  # a change SQLite itself refuses: the ledger stays as it was
    finally:
        db.close()
    if rng.random() < 0.25:  # damaged on disk: pages overwritten, or the file cut short
        data = bytearray(path.read_bytes())
        if rng.random() < 0.3:
            del data[rng.randrange(len(data)) :]
        else:
            for _ in range(rng.randint(1, 8)):
                at = rng.randrange(len(data))
                data[at : at + rng.randint(1, 64)] = rng.randbytes(rng.randint(1, 64))
        path.write_bytes(bytes(data))


@functools.cache
def sound_ledger(which: str) -> bytes:
    """A sound ledger's bytes, in rollback-journal mode so that the file holds all of it:
    ``full`` (two reports, one of them signed, and an outcome of their selected edit), or
    ``target`` (one report)."""
    folder = Path(tempfile.mkdtemp(prefix="fuzz-ledger-", dir=_SCRATCH))
    try:
        path = folder / "ledger.db"
        with Ledger.open(path) as ledger:
            for report in (_MIXED, _BASIC) if which == "full" else (_BASIC,):
                signer = Signer("sha256:" + "ab" * 32, "Fuzz CI") if report is _MIXED else None
                ledger.add_produced([recording_of(parse_json(report.read_bytes()), report.read_bytes(), signer)])
            if which == "full":
                digest = parse_json(_MIXED.read_bytes())["digest"]
                ledger.add_outcome(Outcome(digest, "p_hook-9", None, "diff-1", 3, "committed", 0.97, 0.04))
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode = DELETE")
        db.close()
        return path.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _check(argv: list[str], rc: int, out: str, err: str) -> None:
    if rc not in (0, 2, 3, 4) or (rc == 3 and argv[1] != "add"):
        raise Violation(f"ledger {argv[1]}: exit code {rc}: {err[:300]!r}")
    if "Traceback" in err:
        raise Violation(f"ledger {argv[1]}: a traceback on stderr")
    lines = err.splitlines()
    if rc == 0:
        if lines:
            raise Violation(f"ledger {argv[1]}: exit 0 with stderr {err[:200]!r}")
        return
    if not 1 <= len(lines) <= 2 or (len(lines) == 2 and not lines[1].startswith("hint: ")):
        raise Violation(f"ledger {argv[1]}: exit {rc}: stderr is not one error line: {err[:300]!r}")
    m = _LINE.match(lines[0])
    if m is None or m["code"] not in CODES:
        raise Violation(f"ledger {argv[1]}: exit {rc}: not an error line with a known code: {lines[0][:200]!r}")
    if exit_code_of(m["code"]) != rc:
        raise Violation(f"{m['code']} exits {rc}, its family exits {exit_code_of(m['code'])}")
    pointer = ast.literal_eval(m["pointer"]) if m["pointer"] else None
    if pointer not in (None, "") and not pointer.startswith("/"):
        raise Violation(f"{m['code']}: not a JSON Pointer: {pointer!r}")
    if argv[1] == "verify" and any(not c.isprintable() for line in out.splitlines() for c in line):
        raise Violation("ledger verify printed a character a terminal acts on")


def _run_ledger(case: Case) -> None:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-ledger-", dir=_SCRATCH))
    saved = Ledger.step_limit
    Ledger.step_limit = _STEP_LIMIT
    try:
        ledger, target, report = folder / "ledger.db", folder / "target.db", folder / "report.json"
        if "ledger" in case:
            ledger.write_bytes(case["ledger"])
        else:
            ledger.write_bytes(sound_ledger("full"))
            _crafted(ledger, case.get("recipe") or case.get("report", b""))  # a report's mutations vary it too
        target.write_bytes(sound_ledger("target"))
        report.write_bytes(case.get("report", _MIXED.read_bytes()))
        rng = random.Random(case.get("recipe", b"") + b"/argv")
        which = rng.choice((("--proposal", "p_hook-9"), ("--lesson", "les/deploy-10"), ("--fingerprint", "sha256:")))
        commands: list[list[str]] = [
            ["ledger", "verify", str(ledger)],
            ["ledger", "export", str(ledger)],
            ["ledger", "history", str(ledger), *which, "--format", rng.choice(("text", "json"))],
            ["ledger", "notes", str(ledger), "--limit", "3"],
            ["ledger", "render", str(ledger), "--out", str(folder / "page.html")],
            ["ledger", "merge", str(target), str(ledger)],
            ["ledger", "add", str(ledger), str(report)],
        ]
        for argv in commands:
            _check(argv, *run_main(argv))
        rc, _, err = run_main(["ledger", "verify", str(target)])
        if rc != 0:
            raise Violation(f"the ledger merged into no longer verifies: {err[:300]!r}")
    finally:
        Ledger.step_limit = saved
        shutil.rmtree(folder, ignore_errors=True)


LEDGER_TARGETS = {"cli-ledger": Target(("recipe", "report", "ledger"), _run_ledger)}
