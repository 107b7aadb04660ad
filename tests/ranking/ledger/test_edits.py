"""The edit behind each fingerprint (ledger schema 3): recorded where the bundle is at hand, named
in the notes, checked by ``ledger verify`` and by ``merge`` against its fingerprint (SPEC §3.6)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from curator_io import canon, digest, seal
from curator_io.errors import TamperError
from ranking.cli import main
from ranking.ledger import read_notes
from tests.conftest import FIXTURES, PARITY, run_main

EXAMPLE = FIXTURES / "example.json"
MIXED = PARITY / "002-mixed-dispositions"


def _scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    ledger = tmp_path / "ledger.db"
    assert run_main(capsys, "score", EXAMPLE, "--out-dir", tmp_path / "out", "--ledger", ledger, "-q")[0] == 0
    return ledger


def _edits(ledger: Path) -> dict[str, bytes]:
    db = sqlite3.connect(ledger)
    try:
        return dict(db.execute("SELECT fingerprint, edit FROM edits"))
    finally:
        db.close()


def test_score_records_the_edit_of_every_fingerprint_as_the_digest_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _scored(tmp_path, capsys)
    report = json.loads((tmp_path / "out" / "report.json").read_bytes())
    fingerprints = {e["fingerprint"] for e in report["proposals"] if e["fingerprint"] is not None}
    edits = _edits(ledger)
    assert set(edits) == fingerprints
    for fingerprint, edit in edits.items():
        value = json.loads(edit)
        assert canon(value) == edit and digest(value) == fingerprint
        assert set(value) == {"scope", "operations"}


def test_notes_fall_back_to_the_rationale_for_a_report_recorded_without_its_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "ledger.db"
    assert run_main(capsys, "ledger", "add", ledger, MIXED / "expected.report.json")[0] == 0
    assert _edits(ledger) == {}
    notes = read_notes(ledger)
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    refused = [e for e in report["proposals"] if e["disposition"] in ("rejected", "superseded", "deferred")]
    assert any(e["rationale"] and e["rationale"][:40] in "\n".join(n.line for n in notes) for e in refused)
    assert all(n.edit is None and n.line.split(": ", 1)[1].startswith(f"proposal {n.proposal}") for n in notes)


def test_verify_names_an_edit_that_is_not_its_fingerprints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = _scored(tmp_path, capsys)
    (fingerprint, edit), *_ = _edits(ledger).items()
    removal = {"action": "remove", "key": "ci.timeout", "expected_digest": "sha256:" + "0" * 64}
    forged = canon({**json.loads(edit), "operations": [removal]})
    db = sqlite3.connect(ledger)
    db.execute("UPDATE edits SET edit = ? WHERE fingerprint = ?", (forged, fingerprint))
    db.commit()
    db.close()

    rc, out, _ = run_main(capsys, "ledger", "verify", ledger)
    assert rc == 4
    assert f"tampered: edits row {fingerprint}: the edit's digest is not its fingerprint" in out.splitlines()
    # A forged edit is never shown as what was refused.
    assert 'remove "ci.timeout"' not in "\n".join(n.line for n in read_notes(ledger))


def test_merge_copies_the_edits_and_refuses_a_forged_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = _scored(tmp_path, capsys)
    target = tmp_path / "target.db"
    assert main(["ledger", "merge", str(target), str(other)]) == 0
    assert _edits(target) == _edits(other)

    (fingerprint, edit), *_ = _edits(other).items()
    db = sqlite3.connect(other)
    db.execute("UPDATE edits SET edit = ? WHERE fingerprint = ?", (edit + b" ", fingerprint))
    db.commit()
    db.close()
    fresh = tmp_path / "fresh.db"
    rc, _, err = run_main(capsys, "ledger", "merge", fresh, other)
    assert rc == 4
    assert f"ledger.tampered: edits row {fingerprint}: the edit is not canonical JSON" in err


def _crafted_ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: bytes) -> tuple[Path, str]:
    """A ledger holding a sealed report one of whose refused entries has the fingerprint of
    ``edit`` (anyone can seal a report), and ``edit`` stored as that fingerprint's edit: correctly
    digested and canonical, so only its shape is wrong."""
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    fingerprint = "sha256:" + hashlib.sha256(edit).hexdigest()
    (entry, *_) = [e for e in report["proposals"] if e["disposition"] == "rejected" and e["fingerprint"]]
    entry["fingerprint"] = fingerprint
    path = tmp_path / "crafted.report.json"
    path.write_bytes(canon(seal(report)))
    ledger = tmp_path / "crafted.db"
    assert run_main(capsys, "ledger", "add", ledger, path)[0] == 0
    db = sqlite3.connect(ledger)
    db.execute("INSERT INTO edits (fingerprint, edit) VALUES (?, ?)", (fingerprint, edit))
    db.commit()
    db.close()
    return ledger, fingerprint


@pytest.mark.parametrize("edit", [b"[1]", b'{"operations":[],"scope":{"level":"global"}}', b"7"])
def test_an_edits_row_that_is_not_an_edit_is_damaged_for_every_reader_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: bytes
) -> None:
    ledger, fingerprint = _crafted_ledger(tmp_path, capsys, edit)
    expected = f"ledger.damaged: edits row {fingerprint}: edit is not an edit"

    for command in (["verify"], ["notes"], ["render", "--out", str(tmp_path / "page.html")]):
        rc, _, err = run_main(capsys, "ledger", command[0], ledger, *command[1:])
        assert (rc, expected in err) == (4, True), command
    rc, _, err = run_main(capsys, "ledger", "merge", tmp_path / "into.db", ledger)
    assert (rc, expected in err) == (4, True)
    assert not (tmp_path / "into.db").exists() or read_notes(tmp_path / "into.db") == ()
    with pytest.raises(TamperError, match="edit is not an edit"):
        read_notes(ledger)
