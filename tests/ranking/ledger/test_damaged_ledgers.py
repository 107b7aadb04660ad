"""A damaged or crafted ledger is refused by the ledger itself (issue 24): opening it, or reading
the damaged row, raises ``ledger.damaged`` (or, for what is no ledger at all, a usage error)
naming what is wrong, and changes nothing. That every command turns each into one line and exit
2 or 4 is tests/ranking/cli/test_cli_ledger_damaged.py's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator_io.errors import ConfigError, EvidenceRankError, TamperError
from ranking.checking.acceptance import accept
from ranking.ledger import Ledger, read_notes
from ranking.ledger.connection import Connection
from tests.ranking.ledger.crafted import DAMAGES, MIXED, edited, good_ledger, snapshot

#: Damages of the file or its schema: refused when the ledger is opened (or, for pages, first read).
FILE_DAMAGES = [
    "corrupted pages",
    "a missing table",
    "reports as a recursive view",
    "a trigger",
    "a negative schema version",
    "a text file",
]
#: Damages of one row, and the table it is in: refused when the row is read.
ROW_DAMAGES = {"reasons that are not JSON": "decisions", "a report stored as TEXT": "reports"}


def _damaged(tmp_path: Path, damage: str) -> Path:
    ledger = good_ledger(tmp_path / "ledger.db")
    DAMAGES[damage](ledger)
    return ledger


def _audit(ledger: Path) -> object:
    with Ledger.open(ledger, read_only=True) as opened:
        return opened.audit()


@pytest.mark.parametrize("read_only", [True, False], ids=["to read", "to write"])
@pytest.mark.parametrize("damage", FILE_DAMAGES)
def test_a_damaged_ledger_file_is_refused_when_it_is_opened_or_first_read_and_left_as_it_was(
    tmp_path: Path, damage: str, *, read_only: bool
) -> None:
    ledger = _damaged(tmp_path, damage)
    before = snapshot(ledger)

    with pytest.raises(EvidenceRankError) as caught, Ledger.open(ledger, read_only=read_only) as opened:
        opened.decisions()  # corrupted pages pass the schema check (its page is whole): the first read finds them

    expected = ("ledger.not_a_ledger", 2) if damage == "a text file" else ("ledger.damaged", 4)
    assert (caught.value.code, caught.value.exit_code) == expected
    assert caught.value.source == str(ledger)
    assert snapshot(ledger) == before


@pytest.mark.parametrize("damage", ROW_DAMAGES)
def test_a_damaged_row_is_refused_by_the_audit_naming_its_table(tmp_path: Path, damage: str) -> None:
    ledger = _damaged(tmp_path, damage)

    with pytest.raises(TamperError, match=f"{ROW_DAMAGES[damage]} row ") as caught:
        _audit(ledger)

    assert (caught.value.code, caught.value.source) == ("ledger.damaged", str(ledger))


def test_an_empty_file_is_not_a_ledger_for_a_read_and_stays_empty(tmp_path: Path) -> None:
    ledger = _damaged(tmp_path, "an empty file")

    with pytest.raises(ConfigError, match="an empty file, not a ledger") as caught:
        Ledger.open(ledger, read_only=True)

    assert caught.value.code == "ledger.not_a_ledger"
    assert ledger.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ledger.db")) == ["ledger.db"]


def test_a_recursive_view_is_refused_before_it_is_queried(tmp_path: Path) -> None:
    ledger = _damaged(tmp_path, "reports as a recursive view")

    with pytest.raises(TamperError) as caught:
        Ledger.open(ledger, read_only=True)

    assert str(caught.value) == (
        "ledger.damaged: not the schema of a ledger: 'reports' is a view, where evidence-rank defines a table"
    )


def test_a_column_of_another_type_is_refused_naming_its_table(tmp_path: Path) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")
    edited(
        ledger,
        "UPDATE sqlite_schema SET sql = replace(sql, 'p_improve REAL', 'p_improve TEXT') WHERE name = 'outcomes'",
    )

    with pytest.raises(TamperError) as caught:
        Ledger.open(ledger, read_only=True)

    assert str(caught.value) == (
        "ledger.damaged: not the schema of a ledger: the table 'outcomes' is not defined as evidence-rank defines it"
    )


def test_a_trigger_is_refused_and_never_fires(tmp_path: Path) -> None:
    ledger = _damaged(tmp_path, "a trigger")
    before = snapshot(ledger)
    said = "ledger.damaged: not the schema of a ledger: it has a trigger 'wipe' that evidence-rank does not define"

    with pytest.raises(TamperError) as caught, Ledger.open(ledger) as opened:
        opened.add_report(accept(MIXED.read_bytes()))
    assert str(caught.value) == said
    with pytest.raises(TamperError) as caught:
        Ledger.open(ledger, read_only=True)
    assert str(caught.value) == said

    assert snapshot(ledger) == before


def test_a_stored_text_that_is_not_utf8_is_damage_not_a_crash(tmp_path: Path) -> None:
    # Found by the cli-ledger fuzz target: Python's sqlite3 decodes TEXT when it reads it.
    ledger = good_ledger(tmp_path / "ledger.db")
    edited(ledger, "UPDATE decisions SET rationale = CAST(x'ff0a3a3a6572726f723a3a' AS TEXT)")  # \xff\n::error::

    with pytest.raises(TamperError, match=r"^ledger\.damaged: SQLite refuses it: Could not decode to UTF-8") as caught:
        read_notes(ledger)

    assert caught.value.source == str(ledger)


@pytest.mark.parametrize("where", [b"CREATE TABLE outcomes", b"p_improve REAL"])
def test_a_schema_text_that_is_not_utf8_is_damage_not_a_crash(tmp_path: Path, where: bytes) -> None:
    # Found by the cli-ledger fuzz target: a byte overwritten in the schema's own text.
    ledger = good_ledger(tmp_path / "ledger.db")
    data = ledger.read_bytes()
    at = data.index(where) + 2
    ledger.write_bytes(data[:at] + b"\xff" + data[at + 1 :])

    with pytest.raises(TamperError) as caught:
        _audit(ledger)

    assert (caught.value.code, caught.value.source) == ("ledger.damaged", str(ledger))


@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a folder"])
def test_a_ledger_that_is_not_a_regular_file_is_named_so_when_opened_to_read(tmp_path: Path, kind: str) -> None:
    ledger = tmp_path / "ledger.db"
    if kind == "a FIFO":
        os.mkfifo(ledger)
    elif kind == "a folder":
        ledger.mkdir()
    else:
        ledger.symlink_to("/dev/zero")

    with pytest.raises(ConfigError) as caught:
        Ledger.open(ledger, read_only=True)

    assert str(caught.value) == f"usage.unreadable: cannot read {str(ledger)!r}: not a regular file"


def test_behind_the_schema_check_a_view_or_trigger_is_never_run(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    edited(
        path,
        "CREATE TABLE t (x)",
        "CREATE VIEW endless AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n",
        "CREATE TRIGGER wipe AFTER INSERT ON t BEGIN DELETE FROM t; END",
    )
    connection = Connection.open(path, mode="rw")
    connection.limit_steps(10_000)  # were it run, the view would end in "ran past its bound", not hang the suite
    try:
        for statement in ("SELECT count(*) FROM endless", "INSERT INTO t VALUES (1)"):
            with pytest.raises(TamperError, match="it defines a view or trigger, which is not run"):
                connection.run(statement)
    finally:
        connection.close()
