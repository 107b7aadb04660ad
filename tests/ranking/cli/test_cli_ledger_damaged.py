"""A damaged or crafted ledger is an input error (issue 24): every ledger command,
and ``score``/``batch --ledger``, ends in exit 2 or 4 with one line naming the file
and what is wrong; never a traceback, never exit 1. What the ledger itself refuses, and with
which code, is tests/ranking/ledger/test_damaged_ledgers.py's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ranking.cli import main
from tests.conftest import FIXTURES, PARITY
from tests.ranking.ledger.crafted import BASIC, DAMAGES, MIXED, edited, good_ledger, snapshot

EXAMPLE = FIXTURES / "example.json"
#: Damages of the file or its schema: refused when the ledger is opened, by every command.
FILE_DAMAGES = [
    "corrupted pages",
    "a missing table",
    "reports as a recursive view",
    "a trigger",
    "a negative schema version",
    "a text file",
]
#: Damages of one row: refused by every command that reads the row.
ROW_DAMAGES = ["reasons that are not JSON", "a report stored as TEXT"]


def _commands(ledger: Path, tmp: Path) -> dict[str, list[str]]:
    inbox = tmp / "inbox"
    inbox.mkdir(exist_ok=True)
    shutil.copy(PARITY / "002-mixed-dispositions" / "bundle.json", inbox / "mixed.json")
    good = good_ledger(tmp / "good.db") if not (tmp / "good.db").exists() else tmp / "good.db"
    return {
        "add": ["ledger", "add", str(ledger), str(BASIC)],
        "history": ["ledger", "history", str(ledger), "--proposal", "p-env-9"],
        "history --lesson": ["ledger", "history", str(ledger), "--lesson", "les_lint-vendor-10", "--format", "json"],
        "notes": ["ledger", "notes", str(ledger)],
        "export": ["ledger", "export", str(ledger)],
        "verify": ["ledger", "verify", str(ledger)],
        "render": ["ledger", "render", str(ledger), "--out", str(tmp / "page.html")],
        "merge into it": ["ledger", "merge", str(ledger), str(good)],
        "merge it in": ["ledger", "merge", str(good), str(ledger)],
        "score --ledger": ["score", str(EXAMPLE), "--out-dir", str(tmp / "out"), "--ledger", str(ledger)],
        "batch --ledger": ["batch", str(inbox), "--out-dir", str(tmp / "batch"), "--ledger", str(ledger)],
    }


#: (damage, command) where the command never reads the damaged row: merge derives the rows of
#: another ledger's reports instead of reading them, history, notes and export read no report.
UNREAD = {
    ("reasons that are not JSON", "merge it in"),
    *(("a report stored as TEXT", c) for c in ("history", "history --lesson", "notes", "export")),
}
READS = ["history", "history --lesson", "notes", "export", "verify", "render", "merge it in"]
WRITES = ["add", "merge into it", "score --ledger", "batch --ledger"]


def _damaged(tmp_path: Path, damage: str) -> Path:
    ledger = good_ledger(tmp_path / "ledger.db")
    DAMAGES[damage](ledger)
    return ledger


def _one_line_naming(err: str, ledger: Path) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"evidence-rank: {ledger}: "), err
    return lines[0]


@pytest.mark.parametrize("command", READS + WRITES)
@pytest.mark.parametrize("damage", FILE_DAMAGES)
def test_a_damaged_ledger_file_is_refused_by_every_command_in_one_line(
    tmp_path: Path, capsys, damage: str, command: str
) -> None:
    ledger = _damaged(tmp_path, damage)
    argv = _commands(ledger, tmp_path)[command]
    before = snapshot(ledger)
    capsys.readouterr()

    code = main(argv)

    line = _one_line_naming(capsys.readouterr().err, ledger)
    expected = (2, "ledger.not_a_ledger") if damage == "a text file" else (4, "ledger.damaged")
    assert (code, line.split(": ")[2]) == expected
    assert snapshot(ledger) == before
    assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize("command", READS)
@pytest.mark.parametrize("damage", ROW_DAMAGES)
def test_a_damaged_row_is_refused_by_every_command_that_reads_it(
    tmp_path: Path, capsys, damage: str, command: str
) -> None:
    ledger = _damaged(tmp_path, damage)
    argv = _commands(ledger, tmp_path)[command]
    capsys.readouterr()

    code = main(argv)

    captured = capsys.readouterr()
    if code == 0:  # this command does not read the damaged row: what it did is still right
        assert (damage, command) in UNREAD
        return
    line = _one_line_naming(captured.err, ledger)
    assert code == 4
    assert line.split(": ")[2] == "ledger.damaged"
    table = "decisions" if damage == "reasons that are not JSON" else "reports"
    assert f": {table} row " in line


@pytest.mark.parametrize("command", WRITES)
@pytest.mark.parametrize("damage", ROW_DAMAGES)
def test_a_write_command_on_a_damaged_row_ends_in_0_or_4_and_verify_still_names_it(
    tmp_path: Path, capsys, damage: str, command: str
) -> None:
    ledger = _damaged(tmp_path, damage)
    argv = _commands(ledger, tmp_path)[command]
    capsys.readouterr()

    code = main(argv)

    err = capsys.readouterr().err
    assert code in (0, 3, 4), err  # batch exits 3 for nothing here: every bundle of its inbox scores
    if code == 4:
        _one_line_naming(err, ledger)
    assert main(["ledger", "verify", str(ledger)]) == 4
    assert "ledger.damaged" in capsys.readouterr().err


@pytest.mark.parametrize("command", READS)
def test_an_empty_file_is_not_a_ledger_for_a_read_and_stays_empty(tmp_path: Path, capsys, command: str) -> None:
    ledger = _damaged(tmp_path, "an empty file")
    argv = _commands(ledger, tmp_path)[command]
    capsys.readouterr()

    assert main(argv) == 2

    line = _one_line_naming(capsys.readouterr().err, ledger)
    assert "ledger.not_a_ledger: an empty file, not a ledger" in line
    assert ledger.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ledger.db")) == ["ledger.db"]


def test_a_recursive_view_is_refused_before_it_is_queried(tmp_path: Path, capsys) -> None:
    ledger = _damaged(tmp_path, "reports as a recursive view")

    assert main(["ledger", "verify", str(ledger)]) == 4

    assert capsys.readouterr().err == (
        f"evidence-rank: {ledger}: ledger.damaged: not the schema of a ledger: "
        "'reports' is a view, where evidence-rank defines a table\n"
    )


def test_a_column_of_another_type_is_refused_naming_its_table(tmp_path: Path, capsys) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")
    edited(
        ledger,
        "UPDATE sqlite_schema SET sql = replace(sql, 'p_improve REAL', 'p_improve TEXT') WHERE name = 'outcomes'",
    )

    assert main(["ledger", "export", str(ledger)]) == 4

    assert capsys.readouterr().err == (
        f"evidence-rank: {ledger}: ledger.damaged: not the schema of a ledger: "
        "the table 'outcomes' is not defined as evidence-rank defines it\n"
    )


def test_a_trigger_is_refused_and_never_fires(tmp_path: Path, capsys) -> None:
    ledger = _damaged(tmp_path, "a trigger")

    before = snapshot(ledger)

    assert main(["ledger", "add", str(ledger), str(MIXED)]) == 4
    assert main(["ledger", "merge", str(tmp_path / "new.db"), str(ledger)]) == 4

    assert snapshot(ledger) == before
    err = capsys.readouterr().err.splitlines()
    assert err[0] == err[1]
    assert err[0].endswith(
        "ledger.damaged: not the schema of a ledger: it has a trigger 'wipe' that evidence-rank does not define"
    )
    assert not (tmp_path / "new.db").exists()


def test_a_stored_text_that_is_not_utf8_is_damage_not_a_crash(tmp_path: Path, capsys) -> None:
    # Found by the cli-ledger fuzz target: Python's sqlite3 decodes TEXT when it reads it.
    ledger = good_ledger(tmp_path / "ledger.db")
    edited(ledger, "UPDATE decisions SET rationale = CAST(x'ff0a3a3a6572726f723a3a' AS TEXT)")  # \xff\n::error::
    capsys.readouterr()

    assert main(["ledger", "notes", str(ledger)]) == 4

    err = capsys.readouterr().err
    assert err.startswith(f"evidence-rank: {ledger}: ledger.damaged: SQLite refuses it: Could not decode to UTF-8")
    assert err.count("\n") == 1 and "\\n::error::" in err


@pytest.mark.parametrize("where", [b"CREATE TABLE outcomes", b"p_improve REAL"])
def test_a_schema_text_that_is_not_utf8_is_damage_not_a_crash(tmp_path: Path, capsys, where: bytes) -> None:
    # Found by the cli-ledger fuzz target: a byte overwritten in the schema's own text.
    ledger = good_ledger(tmp_path / "ledger.db")
    data = ledger.read_bytes()
    at = data.index(where) + 2
    ledger.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    capsys.readouterr()

    assert main(["ledger", "verify", str(ledger)]) == 4

    line = _one_line_naming(capsys.readouterr().err, ledger)
    assert line.split(": ")[2] == "ledger.damaged"


@pytest.mark.parametrize("command", READS)
@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a folder"])
def test_a_ledger_that_is_not_a_regular_file_is_named_so_by_every_read(
    tmp_path: Path, capsys, command: str, kind: str
) -> None:
    ledger = tmp_path / "ledger.db"
    if kind == "a FIFO":
        os.mkfifo(ledger)
    elif kind == "a folder":
        ledger.mkdir()
    else:
        ledger.symlink_to("/dev/zero")
    argv = _commands(ledger, tmp_path)[command]
    capsys.readouterr()

    assert main(argv) == 2

    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == f"evidence-rank: usage.unreadable: cannot read {str(ledger)!r}: not a regular file"
