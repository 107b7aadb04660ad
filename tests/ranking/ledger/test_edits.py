"""The edit behind each fingerprint (ledger schema 3): recorded where the bundle is at hand, named
in the notes, checked by the ledger's audit and by ``merge`` against its fingerprint (SPEC §3.6).
What the commands print and exit with is tests/ranking/cli/test_cli_ledger_edits.py's."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, digest, load_bundle, seal
from curator_io.errors import TamperError
from ranking.checking.acceptance import accept
from ranking.ledger import Ledger, read_notes
from ranking.ledger.curator import record_run
from ranking.pipeline import rank
from tests.conftest import FIXTURES, PARITY

EXAMPLE = FIXTURES / "example.json"
MIXED = PARITY / "002-mixed-dispositions"


def scored(ledger: Path) -> dict[str, Any]:
    """``ledger`` with the example's run recorded with its bundle, as ``score --ledger`` records it; the report."""
    raw = EXAMPLE.read_bytes()
    result = rank(load_bundle(raw))
    with Ledger.open(ledger) as opened:
        record_run(opened, result, bundle=raw)
    return result.report


def added(ledger: Path, report: Path) -> Path:
    """``ledger`` with ``report`` added, as ``ledger add`` adds it (no bundle: no edits)."""
    with Ledger.open(ledger) as opened:
        opened.add_report(accept(report.read_bytes()))
    return ledger


def stored_edits(ledger: Path) -> dict[str, bytes]:
    db = sqlite3.connect(ledger)
    try:
        return dict(db.execute("SELECT fingerprint, edit FROM edits"))
    finally:
        db.close()


def set_edit(ledger: Path, fingerprint: str, edit: bytes) -> None:
    db = sqlite3.connect(ledger)
    db.execute("UPDATE edits SET edit = ? WHERE fingerprint = ?", (edit, fingerprint))
    db.commit()
    db.close()


def test_a_run_recorded_with_its_bundle_records_the_edit_of_every_fingerprint_as_the_digest_it_is(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger.db"
    report = scored(ledger)
    fingerprints = {e["fingerprint"] for e in report["proposals"] if e["fingerprint"] is not None}
    edits = stored_edits(ledger)
    assert set(edits) == fingerprints
    for fingerprint, edit in edits.items():
        value = json.loads(edit)
        assert canon(value) == edit and digest(value) == fingerprint
        assert set(value) == {"scope", "operations"}


def test_notes_fall_back_to_the_rationale_for_a_report_recorded_without_its_bundle(tmp_path: Path) -> None:
    ledger = added(tmp_path / "ledger.db", MIXED / "expected.report.json")
    assert stored_edits(ledger) == {}
    notes = read_notes(ledger)
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    refused = [e for e in report["proposals"] if e["disposition"] in ("rejected", "superseded", "deferred")]
    assert any(e["rationale"] and e["rationale"][:40] in "\n".join(n.line for n in notes) for e in refused)
    assert all(n.edit is None and n.line.split(": ", 1)[1].startswith(f"proposal {n.proposal}") for n in notes)


def test_the_audit_names_an_edit_that_is_not_its_fingerprints(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    scored(ledger)
    (fingerprint, edit), *_ = stored_edits(ledger).items()
    removal = {"action": "remove", "key": "ci.timeout", "expected_digest": "sha256:" + "0" * 64}
    set_edit(ledger, fingerprint, canon({**json.loads(edit), "operations": [removal]}))

    with Ledger.open(ledger, read_only=True) as opened:
        _, findings = opened.audit()
    assert f"edits row {fingerprint}: the edit's digest is not its fingerprint" in [str(f) for f in findings]
    # A forged edit is never shown as what was refused.
    assert 'remove "ci.timeout"' not in "\n".join(n.line for n in read_notes(ledger))


def test_merge_copies_the_edits_and_refuses_a_forged_one(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    scored(other)
    target = tmp_path / "target.db"
    with Ledger.open(target) as into, Ledger.open(other, read_only=True) as source:
        into.merge(source)
    assert stored_edits(target) == stored_edits(other)

    (fingerprint, edit), *_ = stored_edits(other).items()
    set_edit(other, fingerprint, edit + b" ")
    with (
        Ledger.open(tmp_path / "fresh.db") as into,
        Ledger.open(other, read_only=True) as source,
        pytest.raises(TamperError, match=f"edits row {fingerprint}: the edit is not canonical JSON") as caught,
    ):
        into.merge(source)
    assert caught.value.code == "ledger.tampered"


def crafted_ledger(tmp_path: Path, edit: bytes) -> tuple[Path, str]:
    """A ledger holding a sealed report one of whose refused entries has the fingerprint of
    ``edit`` (anyone can seal a report), and ``edit`` stored as that fingerprint's edit: correctly
    digested and canonical, so only its shape is wrong."""
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    fingerprint = "sha256:" + hashlib.sha256(edit).hexdigest()
    (entry, *_) = [e for e in report["proposals"] if e["disposition"] == "rejected" and e["fingerprint"]]
    entry["fingerprint"] = fingerprint
    path = tmp_path / "crafted.report.json"
    path.write_bytes(canon(seal(report)))
    ledger = added(tmp_path / "crafted.db", path)
    db = sqlite3.connect(ledger)
    db.execute("INSERT INTO edits (fingerprint, edit) VALUES (?, ?)", (fingerprint, edit))
    db.commit()
    db.close()
    return ledger, fingerprint


#: The shapes a digested, canonical edit may have that are not an edit.
NOT_EDITS = [b"[1]", b'{"operations":[],"scope":{"level":"global"}}', b"7"]


@pytest.mark.parametrize("edit", NOT_EDITS)
def test_an_edits_row_that_is_not_an_edit_is_damaged_for_every_reader(tmp_path: Path, edit: bytes) -> None:
    ledger, fingerprint = crafted_ledger(tmp_path, edit)
    expected = f"edits row {fingerprint}: edit is not an edit"

    def audit() -> object:
        with Ledger.open(ledger, read_only=True) as opened:
            return opened.audit()

    def edits() -> object:
        with Ledger.open(ledger, read_only=True) as opened:
            return opened.edits_of([fingerprint])

    def merge() -> object:
        with Ledger.open(tmp_path / "into.db") as into, Ledger.open(ledger, read_only=True) as source:
            return into.merge(source)

    for reader in (audit, edits, lambda: read_notes(ledger), merge):
        with pytest.raises(TamperError, match=expected) as caught:
            reader()
        assert caught.value.code == "ledger.damaged"
    assert read_notes(tmp_path / "into.db") == ()
