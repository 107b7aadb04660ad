"""Who signed the bundle a report was ranked from, in the ledger (issue 26; ledger schema 2).

A signer is an attestation recorded beside a report (docs/ledger.md, "Signers"):
``score --trust --ledger`` and the agentdescent policy record it, ``history``,
``export`` and ``notes`` show it, ``merge`` adds it as a union and refuses one
whose form is wrong, and a schema 1 ledger is read as it is and migrated to write.
These are the commands' tests; the ledger's rules are tests/ranking/ledger/test_signers.py's.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from ranking.integrations.agentdescent import EvidenceRankingAcceptance
from ranking.ledger import Ledger
from ranking.ledger.connection import expected_schema
from ranking.ledger.records import decisions_of
from ranking.ledger.schema import APPLICATION_ID, MIGRATIONS
from ranking.ledger.store import SCHEMA_VERSION
from ranking.signing.signers import MAX_NAME_CHARS
from tests.conftest import FIXTURES, run_main
from tests.ranking.integrations.agentdescent_support import bundle_path, report_path
from tests.ranking.ledger.crafted import BASIC, MIXED, edited
from tests.signing import envelope, key_pem, signing_key, trust_file

CURATOR, ROTATED = signing_key("curator"), signing_key("curator-2026")


def _export(capsys: pytest.CaptureFixture[str], ledger: Path) -> list[dict[str, object]]:
    rc, out, err = run_main(capsys, "ledger", "export", ledger)
    assert (rc, err) == (0, "")
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def ci(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The shipped example signed by the Curator (BUNDLE.intoto.json) and by the rotated key
    (rotated.intoto.json), and a trust file listing both keys with their names."""
    (tmp_path / "curator.key").write_bytes(key_pem("curator"))
    (tmp_path / "rotated.key").write_bytes(key_pem("curator-2026"))
    (tmp_path / "trusted-signers").write_bytes(trust_file((CURATOR, "Curator CI"), (ROTATED, "Curator 2026")))
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes((FIXTURES / "example.json").read_bytes())
    assert run_main(capsys, "sign", bundle, "--key", tmp_path / "curator.key")[0] == 0
    rotated = tmp_path / "rotated.intoto.json"
    assert run_main(capsys, "sign", bundle, "--key", tmp_path / "rotated.key", "--out", rotated)[0] == 0
    return tmp_path


def _score(capsys: pytest.CaptureFixture[str], ci: Path, ledger: Path, *extra: str | Path) -> str:
    rc, out, err = run_main(capsys, "score", ci / "bundle.json", "--out-dir", ci / "out", "--ledger", ledger, *extra)
    assert (rc, err) == (0, "")
    return out


def _signed_score(capsys: pytest.CaptureFixture[str], ci: Path, ledger: Path, rotated: bool = False) -> str:
    signature = ("--signature", ci / "rotated.intoto.json") if rotated else ()
    return _score(capsys, ci, ledger, "--trust", ci / "trusted-signers", *signature)


# -- recording ------------------------------------------------------------------------------------


def test_score_with_trust_records_the_signers_key_id_and_name(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = ci / "ledger.db"
    _signed_score(capsys, ci, ledger)

    lines = _export(capsys, ledger)
    wanted = {"keyid": CURATOR.public.keyid, "name": "Curator CI"}
    assert lines and all(line["signer"] == wanted and line["signers"] == [wanted] for line in lines)
    report = json.loads((ci / "out" / "report.json").read_bytes())
    with Ledger.open(ledger, read_only=True) as opened:
        assert {r: [s.to_json() for s in signers] for r, signers in opened.signers_of().items()} == {
            report["digest"]: [wanted]
        }


def test_score_without_trust_records_no_signer(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = ci / "ledger.db"
    _score(capsys, ci, ledger)

    lines = _export(capsys, ledger)
    assert lines and all(line["signer"] is None and line["signers"] == [] for line in lines)


def test_a_report_recorded_unsigned_gains_its_signer_when_scored_again_with_trust(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = ci / "ledger.db"
    _score(capsys, ci, ledger)
    _signed_score(capsys, ci, ledger)
    _signed_score(capsys, ci, ledger)  # the same signer again adds nothing

    with Ledger.open(ledger, read_only=True) as opened:
        (signers,) = opened.signers_of().values()
        assert [s.name for s in signers] == ["Curator CI"]
        assert len({d.report for d in opened.decisions()}) == 1


def test_history_names_the_signer_of_a_decisions_report_and_the_curators_notes_do_not(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = ci / "ledger.db"
    _signed_score(capsys, ci, ledger)
    shown = f"signed by Curator CI ({CURATOR.public.keyid})"

    rc, out, _ = run_main(capsys, "ledger", "history", ledger, "--proposal", "p-sleep-flaky")
    assert rc == 0 and [line.strip() for line in out.splitlines()].count(shown) == 1
    rc, out, _ = run_main(capsys, "ledger", "history", ledger, "--proposal", "p-sleep-flaky", "--format", "json")
    assert rc == 0 and json.loads(out)[0]["signer"] == {"keyid": CURATOR.public.keyid, "name": "Curator CI"}
    # A note is an instruction to the curator, the same from every host: who signed is for people.
    rc, out, _ = run_main(capsys, "ledger", "notes", ledger)
    notes = out.splitlines()
    assert rc == 0 and notes and not any("signed by" in line for line in notes)


def test_a_signers_name_is_shown_as_the_trust_file_gives_it_and_exported_as_json(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = 'Ops "release" \\ <CI> — ünïcode'
    (ci / "trusted-signers").write_bytes(trust_file((CURATOR, name)))
    ledger = ci / "ledger.db"
    _signed_score(capsys, ci, ledger)

    assert all(line["signer"] == {"keyid": CURATOR.public.keyid, "name": name} for line in _export(capsys, ledger))
    rc, out, _ = run_main(capsys, "ledger", "history", ledger, "--proposal", "p-sleep-flaky")
    assert rc == 0 and f"signed by {name} ({CURATOR.public.keyid})" in out


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


def test_merge_keeps_every_signer_of_a_report_and_gives_the_same_export_in_either_order(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = ci / "a.db", ci / "b.db"
    _signed_score(capsys, ci, a)
    assert run_main(capsys, "ledger", "add", a, BASIC)[0] == 0
    _signed_score(capsys, ci, b, rotated=True)
    assert run_main(capsys, "ledger", "add", b, MIXED)[0] == 0
    ab, ba = ci / "ab.db", ci / "ba.db"
    shutil.copy(a, ab)
    shutil.copy(b, ba)

    assert run_main(capsys, "ledger", "merge", ab, b)[0] == 0
    assert run_main(capsys, "ledger", "merge", ba, a)[0] == 0

    exported = [run_main(capsys, "ledger", "export", path)[1] for path in (ab, ba)]
    assert exported[0] == exported[1]
    both = sorted(
        [
            {"keyid": CURATOR.public.keyid, "name": "Curator CI"},
            {"keyid": ROTATED.public.keyid, "name": "Curator 2026"},
        ],
        key=lambda s: s["keyid"],
    )
    example = json.loads((ci / "out" / "report.json").read_bytes())["digest"]
    lines = [json.loads(line) for line in exported[0].splitlines()]
    assert {line["report"] for line in lines if line["signers"] == both} == {example}
    assert all(line["signer"] == both[0] for line in lines if line["report"] == example)
    assert all(line["signer"] is None for line in lines if line["report"] != example)


def _with_signer_row(tmp_path: Path, capsys: pytest.CaptureFixture[str], values: str, **bound: object) -> Path:
    """A good ledger of two reports with one more ``signers`` row, inserted by hand."""
    other = tmp_path / "other.db"
    assert run_main(capsys, "ledger", "add", other, MIXED, BASIC)[0] == 0
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
    tmp_path: Path, capsys: pytest.CaptureFixture[str], values: str, bound: dict[str, object], detail: str
) -> None:
    if values.startswith("x'00'"):  # no report digest to bind
        other = tmp_path / "other.db"
        assert run_main(capsys, "ledger", "add", other, MIXED)[0] == 0
        edited(other, f"INSERT INTO signers (report, keyid, name) VALUES ({values})", parameters=tuple(bound.values()))
    else:
        other = _with_signer_row(tmp_path, capsys, values, **bound)
    ledger = tmp_path / "ledger.db"

    rc, out, err = run_main(capsys, "ledger", "merge", ledger, other)

    assert rc == 4 and out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"evidence-rank: {other}: ledger.damaged: signers row 1: ") and detail in line
    assert len(line) < 400 and "\x1b" not in line
    assert run_main(capsys, "ledger", "export", ledger)[1] == ""  # refused before anything was written
    for command in ("export", "verify"):
        assert run_main(capsys, "ledger", command, other)[0] == 4  # every read checks the row


def test_merge_refuses_a_signer_of_a_report_the_other_ledger_does_not_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.db"
    assert run_main(capsys, "ledger", "add", other, MIXED)[0] == 0
    edited(other, f"INSERT INTO signers VALUES ('sha256:{'0' * 64}', '{GOOD_KEYID}', 'CI')")
    ledger = tmp_path / "ledger.db"
    assert run_main(capsys, "ledger", "add", ledger, BASIC)[0] == 0
    before = run_main(capsys, "ledger", "export", ledger)[1]

    rc, _, err = run_main(capsys, "ledger", "merge", ledger, other)

    assert rc == 4 and f"{other}: ledger.tampered: signers row 1: report sha256:{'0' * 64} is not in it" in err
    assert run_main(capsys, "ledger", "export", ledger)[1] == before
    rc, out, _ = run_main(capsys, "ledger", "verify", other)
    assert rc == 4 and f"tampered: signers row 1: it names report sha256:{'0' * 64}" in out


def test_verify_accepts_a_signer_it_cannot_check_the_truth_of(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = ci / "ledger.db"
    _score(capsys, ci, ledger)
    (digest,) = sqlite3.connect(ledger).execute("SELECT digest FROM reports").fetchone()
    edited(ledger, "INSERT INTO signers VALUES (?, ?, 'Someone Else')", parameters=(digest, GOOD_KEYID))

    assert run_main(capsys, "ledger", "verify", ledger)[0] == 0  # an attestation: its form holds


def test_a_trust_files_longest_name_can_be_recorded(ci: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "n" * MAX_NAME_CHARS
    (ci / "trusted-signers").write_bytes(trust_file((CURATOR, name)))
    _signed_score(capsys, ci, ci / "ledger.db")

    assert {line["signer"]["name"] for line in _export(capsys, ci / "ledger.db")} == {name}  # type: ignore[index]


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


def test_read_commands_read_a_schema_1_ledger_as_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = _v1_ledger(tmp_path / "v1.db")
    assert _version(ledger) == (1, expected_schema(1, MIGRATIONS))

    lines = _export(capsys, ledger)
    for command in (("verify",), ("notes",), ("history", "--proposal", "p-env-9")):
        assert run_main(capsys, "ledger", command[0], ledger, *command[1:])[0] == 0

    assert len(lines) == 1 + len(json.loads(MIXED.read_bytes())["proposals"])
    assert all(line["signer"] is None and line["signers"] == [] for line in lines)
    assert _version(ledger) == (1, expected_schema(1, MIGRATIONS))  # read-only: not migrated


def test_writing_migrates_a_schema_1_ledger_in_place_keeping_its_content(
    ci: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _v1_ledger(ci / "v1.db")
    before = run_main(capsys, "ledger", "export", ledger)[1]
    fresh = ci / "fresh.db"
    assert run_main(capsys, "ledger", "add", fresh, MIXED, BASIC)[0] == 0

    _signed_score(capsys, ci, ledger)

    assert _version(ledger) == (SCHEMA_VERSION, expected_schema(SCHEMA_VERSION, MIGRATIONS)) == _version(fresh)
    after = [json.loads(line) for line in run_main(capsys, "ledger", "export", ledger)[1].splitlines()]
    old = [json.loads(line) for line in before.splitlines()]
    assert [line for line in after if line["signer"] is None] == old
    assert {line["signer"]["name"] for line in after if line["signer"] is not None} == {"Curator CI"}  # type: ignore[index]
    assert run_main(capsys, "ledger", "verify", ledger)[0] == 0
