"""Who signed the bundle a report was ranked from, in the ledger (issue 26; ledger schema 2).

A signer is an attestation recorded beside a report (docs/ledger.md, "Signers"):
a run accepted with a trust file (``score --trust --ledger``) and the agentdescent
policy record it, the history and the export show it, the notes do not, ``merge`` adds
it as a union and refuses one whose form is wrong, and a schema 1 ledger is read as
it is and migrated to write. The commands' own tests are
tests/ranking/cli/test_cli_ledger_signers.py.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from curator_io import canon, load_bundle
from curator_io.errors import TamperError
from ranking.checking.acceptance import accept, accept_bundle
from ranking.integrations.agentdescent import EvidenceRankingAcceptance
from ranking.ledger import Ledger, read_notes
from ranking.ledger.connection import expected_schema
from ranking.ledger.curator import record_run
from ranking.ledger.history import render_history
from ranking.ledger.records import decision_json, decisions_of
from ranking.ledger.schema import APPLICATION_ID, MIGRATIONS
from ranking.ledger.store import SCHEMA_VERSION
from ranking.pipeline import rank
from ranking.signing.signers import MAX_NAME_CHARS
from tests.conftest import FIXTURES
from tests.ranking.integrations.agentdescent_support import bundle_path, report_path
from tests.ranking.ledger.crafted import BASIC, MIXED, edited
from tests.signing import envelope, signing_key, trust_file

CURATOR, ROTATED = signing_key("curator"), signing_key("curator-2026")


def _export(ledger: Path) -> list[dict[str, object]]:
    """What ``ledger export`` writes, a line a dict: each decision with its outcomes and signers."""
    with Ledger.open(ledger, read_only=True) as opened:
        signers = opened.signers_of()
        return [json.loads(canon(decision_json(d, tuple(o), signers.get(d.report, ())))) for d, o in opened.export()]


@pytest.fixture
def ci(tmp_path: Path) -> Path:
    """The shipped example signed by the Curator (bundle.json.intoto.json) and by the rotated key
    (rotated.intoto.json), and a trust file listing both keys with their names."""
    (tmp_path / "trusted-signers").write_bytes(trust_file((CURATOR, "Curator CI"), (ROTATED, "Curator 2026")))
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes((FIXTURES / "example.json").read_bytes())
    digest = json.loads(bundle.read_bytes())["frozen"]["digest"]
    (tmp_path / "bundle.json.intoto.json").write_bytes(envelope(CURATOR, "bundle", digest))
    (tmp_path / "rotated.intoto.json").write_bytes(envelope(ROTATED, "bundle", digest))
    return tmp_path


def _score(ci: Path, ledger: Path, signature: str | None = None) -> dict[str, Any]:
    """The bundle ranked and recorded in ``ledger``, as ``score --ledger`` does: with ``signature``,
    accepted first against the trust file, its signer recorded too. The report."""
    raw = (ci / "bundle.json").read_bytes()
    signer = None
    if signature is not None:
        trust = (ci / "trusted-signers").read_bytes()
        signer = accept_bundle(raw, trust=trust, signature=(ci / signature).read_bytes()).signer
    result = rank(load_bundle(raw))
    with Ledger.open(ledger) as opened:
        record_run(opened, result, signer, bundle=raw)
    return result.report


def _signed_score(ci: Path, ledger: Path, rotated: bool = False) -> dict[str, Any]:
    return _score(ci, ledger, "rotated.intoto.json" if rotated else "bundle.json.intoto.json")


def _added(ledger: Path, *reports: Path) -> None:
    """Each report accepted, then added, as ``ledger add`` does."""
    accepted = [accept(report.read_bytes()) for report in reports]
    with Ledger.open(ledger) as opened:
        for a in accepted:
            opened.add_report(a)


def _history(ledger: Path, proposal: str) -> tuple[list[str], list[dict[str, object]]]:
    """What ``ledger history --proposal`` shows: its lines, and its JSON."""
    with Ledger.open(ledger, read_only=True) as opened:
        found = opened.same_edit_as(proposal)
        outcomes = opened.outcomes_of(found)
        signers = opened.signers_of({d.report for d in found})
    entries = [(d, outcomes[(d.report, d.proposal)]) for d in found]
    lines = render_history(entries, signers, proposal=proposal)
    return lines, [decision_json(d, tuple(o), signers.get(d.report, ())) for d, o in entries]


def _merged(into: Path, other: Path) -> None:
    with Ledger.open(into) as target, Ledger.open(other, read_only=True) as source:
        target.merge(source)


def _findings(ledger: Path) -> list[str]:
    with Ledger.open(ledger, read_only=True) as opened:
        return [str(f) for f in opened.audit()[1]]


# -- recording ------------------------------------------------------------------------------------


def test_a_run_accepted_with_trust_records_the_signers_key_id_and_name(ci: Path) -> None:
    ledger = ci / "ledger.db"
    report = _signed_score(ci, ledger)

    lines = _export(ledger)
    wanted = {"keyid": CURATOR.public.keyid, "name": "Curator CI"}
    assert lines and all(line["signer"] == wanted and line["signers"] == [wanted] for line in lines)
    with Ledger.open(ledger, read_only=True) as opened:
        assert {r: [s.to_json() for s in signers] for r, signers in opened.signers_of().items()} == {
            report["digest"]: [wanted]
        }


def test_a_run_recorded_without_trust_records_no_signer(ci: Path) -> None:
    ledger = ci / "ledger.db"
    _score(ci, ledger)

    lines = _export(ledger)
    assert lines and all(line["signer"] is None and line["signers"] == [] for line in lines)


def test_a_report_recorded_unsigned_gains_its_signer_when_recorded_again_with_trust(ci: Path) -> None:
    ledger = ci / "ledger.db"
    _score(ci, ledger)
    _signed_score(ci, ledger)
    _signed_score(ci, ledger)  # the same signer again adds nothing

    with Ledger.open(ledger, read_only=True) as opened:
        (signers,) = opened.signers_of().values()
        assert [s.name for s in signers] == ["Curator CI"]
        assert len({d.report for d in opened.decisions()}) == 1


def test_history_names_the_signer_of_a_decisions_report_and_the_curators_notes_do_not(ci: Path) -> None:
    ledger = ci / "ledger.db"
    _signed_score(ci, ledger)
    shown = f"signed by Curator CI ({CURATOR.public.keyid})"

    lines, as_json = _history(ledger, "p-sleep-flaky")
    assert [line.strip() for line in lines].count(shown) == 1
    assert as_json[0]["signer"] == {"keyid": CURATOR.public.keyid, "name": "Curator CI"}
    # A note is an instruction to the curator, the same from every host: who signed is for people.
    notes = [n.line for n in read_notes(ledger)]
    assert notes and not any("signed by" in line for line in notes)


def test_a_signers_name_is_shown_as_the_trust_file_gives_it_and_exported_as_json(ci: Path) -> None:
    name = 'Ops "release" \\ <CI> — ünïcode'
    (ci / "trusted-signers").write_bytes(trust_file((CURATOR, name)))
    ledger = ci / "ledger.db"
    _signed_score(ci, ledger)

    assert all(line["signer"] == {"keyid": CURATOR.public.keyid, "name": name} for line in _export(ledger))
    assert f"signed by {name} ({CURATOR.public.keyid})" in "\n".join(_history(ledger, "p-sleep-flaky")[0])


def test_the_agentdescent_policy_records_who_signed_the_bundle(tmp_path: Path) -> None:
    case = "001-basic-accepted-selected"
    shutil.copy(bundle_path(case), tmp_path / "bundle.json")
    digest = json.loads(bundle_path(case).read_bytes())["frozen"]["digest"]
    (tmp_path / "bundle.json.intoto.json").write_bytes(envelope(CURATOR, "bundle", digest))
    ledger = tmp_path / "ledger.db"

    policy = EvidenceRankingAcceptance(
        report_path(case),
        bundle=tmp_path / "bundle.json",
        trust=trust_file((CURATOR, "Curator CI")),
        ledger=ledger,
    )

    with Ledger.open(ledger, read_only=True) as opened:
        assert {r: [(s.keyid, s.name) for s in v] for r, v in opened.signers_of().items()} == {
            policy.digest: [(CURATOR.public.keyid, "Curator CI")]
        }


# -- merge ----------------------------------------------------------------------------------------


def test_merge_keeps_every_signer_of_a_report_and_gives_the_same_export_in_either_order(ci: Path) -> None:
    a, b = ci / "a.db", ci / "b.db"
    example = _signed_score(ci, a)["digest"]
    _added(a, BASIC)
    _signed_score(ci, b, rotated=True)
    _added(b, MIXED)
    ab, ba = ci / "ab.db", ci / "ba.db"
    shutil.copy(a, ab)
    shutil.copy(b, ba)

    _merged(ab, b)
    _merged(ba, a)

    exported = [_export(path) for path in (ab, ba)]
    assert exported[0] == exported[1]
    both = sorted(
        [
            {"keyid": CURATOR.public.keyid, "name": "Curator CI"},
            {"keyid": ROTATED.public.keyid, "name": "Curator 2026"},
        ],
        key=lambda s: s["keyid"],
    )
    lines = exported[0]
    assert {line["report"] for line in lines if line["signers"] == both} == {example}
    assert all(line["signer"] == both[0] for line in lines if line["report"] == example)
    assert all(line["signer"] is None for line in lines if line["report"] != example)


def _with_signer_row(tmp_path: Path, values: str, **bound: object) -> Path:
    """A good ledger of two reports with one more ``signers`` row, inserted by hand."""
    other = tmp_path / "other.db"
    _added(other, MIXED, BASIC)
    (digest,) = sqlite3.connect(other).execute("SELECT digest FROM reports ORDER BY seq LIMIT 1").fetchone()
    edited(other, f"INSERT INTO signers (report, keyid, name) VALUES ({values})", parameters=(digest, *bound.values()))
    return other


GOOD_KEYID = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    ("values", "bound", "detail"),
    [
        ("?, ?, 'CI'", {"keyid": b"\x00" * 8}, "the key id is not sha256:<64 hex digits>: keyid is a BLOB of 8 bytes"),
        ("?, 'md5:00', 'CI'", {}, "the key id is not sha256:<64 hex digits>: keyid is the text"),
        ("?, ?, ?", {"keyid": GOOD_KEYID, "name": "n" * 10_240}, "the name is 10240 characters long, more than 200"),
        (
            "?, ?, ?",
            {"keyid": GOOD_KEYID, "name": "CI\x1b[2J\n::error::x"},
            "holds a character a terminal would act on",
        ),
        ("?, ?, ?", {"keyid": GOOD_KEYID, "name": b"CI"}, "the name is not text, or null"),
        ("?, ?, ''", {"keyid": GOOD_KEYID}, "the name is not text, or null"),
        ("x'00', ?, NULL", {"keyid": GOOD_KEYID}, "report is a BLOB of 1 bytes, not text"),
    ],
)
def test_merge_refuses_a_crafted_signer_naming_its_row(
    tmp_path: Path, values: str, bound: dict[str, object], detail: str
) -> None:
    if values.startswith("x'00'"):  # no report digest to bind
        other = tmp_path / "other.db"
        _added(other, MIXED)
        edited(other, f"INSERT INTO signers (report, keyid, name) VALUES ({values})", parameters=tuple(bound.values()))
    else:
        other = _with_signer_row(tmp_path, values, **bound)
    ledger = tmp_path / "ledger.db"

    with pytest.raises(TamperError) as caught:
        _merged(ledger, other)

    said = str(caught.value)
    assert (caught.value.code, caught.value.source) == ("ledger.damaged", str(other))
    assert said.startswith("ledger.damaged: signers row 1: ") and detail in said
    assert len(said) < 400 and "\x1b" not in said
    assert _export(ledger) == []  # refused before anything was written
    for read in (_export, _findings):  # every read checks the row
        with pytest.raises(TamperError, match="signers row 1: ") as caught:
            read(other)
        assert caught.value.code == "ledger.damaged"


def test_merge_refuses_a_signer_of_a_report_the_other_ledger_does_not_hold(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    _added(other, MIXED)
    edited(other, f"INSERT INTO signers VALUES ('sha256:{'0' * 64}', '{GOOD_KEYID}', 'CI')")
    ledger = tmp_path / "ledger.db"
    _added(ledger, BASIC)
    before = _export(ledger)

    with pytest.raises(TamperError) as caught:
        _merged(ledger, other)

    assert (caught.value.code, caught.value.source) == ("ledger.tampered", str(other))
    assert str(caught.value) == f"ledger.tampered: signers row 1: report sha256:{'0' * 64} is not in it"
    assert _export(ledger) == before
    assert any(f.startswith(f"signers row 1: it names report sha256:{'0' * 64}") for f in _findings(other))


def test_the_audit_accepts_a_signer_it_cannot_check_the_truth_of(ci: Path) -> None:
    ledger = ci / "ledger.db"
    _score(ci, ledger)
    (digest,) = sqlite3.connect(ledger).execute("SELECT digest FROM reports").fetchone()
    edited(ledger, "INSERT INTO signers VALUES (?, ?, 'Someone Else')", parameters=(digest, GOOD_KEYID))

    assert _findings(ledger) == []  # an attestation: its form holds


def test_a_trust_files_longest_name_can_be_recorded(ci: Path) -> None:
    name = "n" * MAX_NAME_CHARS
    (ci / "trusted-signers").write_bytes(trust_file((CURATOR, name)))
    _signed_score(ci, ci / "ledger.db")

    assert {line["signer"]["name"] for line in _export(ci / "ledger.db")} == {name}  # type: ignore[index]


# -- schema 1 -------------------------------------------------------------------------------------


def _v1_ledger(path: Path) -> Path:
    """A ledger as evidence-rank 0.1.0 wrote it: the schema 1 statements and two reports."""
    db = sqlite3.connect(path, isolation_level=None)
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    for seq, report in enumerate((MIXED, BASIC), 1):
        body = report.read_bytes()
        document = json.loads(body)
        db.execute("INSERT INTO reports VALUES (?, ?, ?, ?)", (seq, document["digest"], document["run"], body))
        db.executemany(
            "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(seq, *d) for d in decisions_of(document)],
        )
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 1")
    db.close()
    return path


def _version(path: Path) -> tuple[int, frozenset[tuple[object, ...]]]:
    db = sqlite3.connect(path)
    try:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        return version, frozenset(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema"))
    finally:
        db.close()


def test_a_schema_1_ledger_is_read_as_it_is(tmp_path: Path) -> None:
    ledger = _v1_ledger(tmp_path / "v1.db")
    assert _version(ledger) == (1, expected_schema(1, MIGRATIONS))

    lines = _export(ledger)
    assert _findings(ledger) == []
    assert read_notes(ledger)
    assert _history(ledger, "p-env-9")[1]

    assert len(lines) == 1 + len(json.loads(MIXED.read_bytes())["proposals"])
    assert all(line["signer"] is None and line["signers"] == [] for line in lines)
    assert _version(ledger) == (1, expected_schema(1, MIGRATIONS))  # read-only: not migrated


def test_writing_migrates_a_schema_1_ledger_in_place_keeping_its_content(ci: Path) -> None:
    ledger = _v1_ledger(ci / "v1.db")
    old = _export(ledger)
    fresh = ci / "fresh.db"
    _added(fresh, MIXED, BASIC)

    _signed_score(ci, ledger)

    assert _version(ledger) == (SCHEMA_VERSION, expected_schema(SCHEMA_VERSION, MIGRATIONS)) == _version(fresh)
    after = _export(ledger)
    assert [line for line in after if line["signer"] is None] == old
    assert {line["signer"]["name"] for line in after if line["signer"] is not None} == {"Curator CI"}  # type: ignore[index]
    assert _findings(ledger) == []
