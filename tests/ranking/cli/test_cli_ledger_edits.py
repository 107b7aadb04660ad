"""The edits a ledger keeps, as the commands show them: ``score --ledger`` records them, and
``ledger verify``, ``notes``, ``render`` and ``merge`` refuse a forged or damaged one with exit 4
and the row named. The rules are tests/ranking/ledger/test_edits.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator_io import canon
from ranking.cli import main
from ranking.ledger import read_notes
from tests.conftest import FIXTURES, run_main
from tests.ranking.ledger.test_edits import NOT_EDITS, crafted_ledger, scored, set_edit, stored_edits

EXAMPLE = FIXTURES / "example.json"


def test_score_records_the_edit_of_every_fingerprint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = tmp_path / "ledger.db"
    assert run_main(capsys, "score", EXAMPLE, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q")[0] == 0
    report = json.loads((tmp_path / "out" / "report.json").read_bytes())
    fingerprints = {e["fingerprint"] for e in report["proposals"] if e["fingerprint"] is not None}
    assert set(stored_edits(ledger)) == fingerprints
    scored(tmp_path / "by-the-package.db")
    assert stored_edits(ledger) == stored_edits(tmp_path / "by-the-package.db")


def test_verify_prints_an_edit_that_is_not_its_fingerprints_and_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "ledger.db"
    scored(ledger)
    (fingerprint, edit), *_ = stored_edits(ledger).items()
    removal = {"action": "remove", "key": "ci.timeout", "expected_digest": "sha256:" + "0" * 64}
    set_edit(ledger, fingerprint, canon({**json.loads(edit), "operations": [removal]}))
    rc, out, _ = run_main(capsys, "ledger", "verify", ledger)
    assert rc == 4
    assert f"tampered: edits row {fingerprint}: the edit's digest is not its fingerprint" in out.splitlines()


def test_merge_copies_the_edits_and_refuses_a_forged_one_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.db"
    scored(other)
    target = tmp_path / "target.db"
    assert main(["ledger", "merge", str(target), str(other)]) == 0
    assert stored_edits(target) == stored_edits(other)

    (fingerprint, edit), *_ = stored_edits(other).items()
    set_edit(other, fingerprint, edit + b" ")
    rc, _, err = run_main(capsys, "ledger", "merge", tmp_path / "fresh.db", other)
    assert rc == 4
    assert f"ledger.tampered: edits row {fingerprint}: the edit is not canonical JSON" in err


@pytest.mark.parametrize("edit", NOT_EDITS)
def test_an_edits_row_that_is_not_an_edit_is_damaged_for_every_command_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: bytes
) -> None:
    ledger, fingerprint = crafted_ledger(tmp_path, edit)
    expected = f"ledger.damaged: edits row {fingerprint}: edit is not an edit"

    for command in (["verify"], ["notes"], ["render", "--out", str(tmp_path / "page.html")]):
        rc, _, err = run_main(capsys, "ledger", command[0], ledger, *command[1:])
        assert (rc, expected in err) == (4, True), command
    rc, _, err = run_main(capsys, "ledger", "merge", tmp_path / "into.db", ledger)
    assert (rc, expected in err) == (4, True)
    assert not (tmp_path / "into.db").exists() or read_notes(tmp_path / "into.db") == ()
