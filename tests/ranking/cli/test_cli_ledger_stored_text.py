"""What a ledger stores is someone else's text (issue 24): ``ledger verify`` prints it
escaped, so a stored ``x\\n::error::y`` cannot start a line of its own (a GitHub
runner reads ``::error::`` at the start of a line as an annotation), and a filter
that is not UTF-8 matches nothing rather than failing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from curator_io import parse_json
from ranking.cli import main
from ranking.ledger.records import Outcome
from tests.conftest import REPO
from tests.ranking.ledger.crafted import MIXED, add_outcome_row, edited, good_ledger

FORGED = "x\n::error::forged\x1b[2J\u202e"


def test_verify_prints_a_stored_key_and_stored_values_escaped(tmp_path: Path, capsys) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")
    edited(
        ledger,
        "INSERT INTO reports (digest, run, body) SELECT ?, run, body FROM reports WHERE seq = 1",
        "UPDATE decisions SET proposal = ? WHERE rowid = 1",
        parameters=(FORGED,),
    )
    capsys.readouterr()

    assert main(["ledger", "verify", str(ledger)]) == 4

    captured = capsys.readouterr()
    lines = captured.out.splitlines() + captured.err.splitlines()
    assert len(captured.err.splitlines()) == 1
    assert not [line for line in lines if not line.startswith(("tampered: ", "evidence-rank: "))], lines
    assert "\x1b" not in captured.out + captured.err and "\u202e" not in captured.out + captured.err
    assert (
        "tampered: x\\n::error::forged\\x1b[2J\\u202e at '/digest': the report stored under this key is" in captured.out
    )
    assert "says proposal = 'x\\n::error::forged\\x1b[2J\\u202e'" in captured.out


def test_history_for_a_proposal_that_is_not_utf8_matches_nothing(tmp_path: Path, capsys) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")
    capsys.readouterr()

    assert main(["ledger", "history", str(ledger), "--proposal", "p_hook-9\udcff"]) == 0
    assert capsys.readouterr().out == f"no decision in {ledger} matches\n"
    assert main(["ledger", "history", str(ledger), "--lesson", "\udcff", "--format", "json"]) == 0
    assert capsys.readouterr().out == "[]\n"


def test_history_from_a_real_command_line_of_invalid_utf8_matches_nothing(tmp_path: Path) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")

    done = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "ledger", "history", str(ledger), "--proposal", b"p_hook-9\xff"],
        cwd=REPO,
        capture_output=True,
    )

    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == f"no decision in {ledger} matches\n".encode()


def test_history_and_notes_print_stored_values_escaped(tmp_path: Path, capsys) -> None:
    ledger = good_ledger(tmp_path / "ledger.db")
    edited(ledger, "UPDATE decisions SET proposal = ?1, run = ?1, disposition = 'rejected'", parameters=(FORGED,))
    report = parse_json(MIXED.read_bytes())["digest"]
    add_outcome_row(ledger, Outcome(report, FORGED, None, "d", None, FORGED, None, None))
    capsys.readouterr()

    assert main(["ledger", "history", str(ledger), "--lesson", "les_lint-vendor-10"]) == 0
    assert main(["ledger", "notes", str(ledger)]) == 0

    out = capsys.readouterr().out
    assert "x\\n::error::forged" in out
    assert not [line for line in out.splitlines() if line.startswith("::")]
    assert "\x1b" not in out and "\u202e" not in out
