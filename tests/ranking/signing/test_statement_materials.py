"""A bundle's agents' logs listed in its signed statement (docs/transcripts.md, "Into a bundle";
docs/provenance.md): ``sign --transcript`` lists each log as a material with its digest once the
bundle's evidence replays against them, and a statement's materials are read back exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator_io import BundleBuilder
from curator_io.errors import SignatureError
from curator_io.transcripts.reader import read_transcript
from ranking.signing.envelope import make_statement, parse_envelope, parse_statement
from tests.conftest import REPO, run_main
from tests.signing import key_pem, payload_of, resigned, signing_key

LOGS = [REPO / "tests" / "data" / "transcripts" / f"session-{n}.jsonl" for n in "ab"]


def _bundle(tmp_path: Path) -> Path:
    b = BundleBuilder(memory_version=0, curator="c", frozen_at="2026-12-02T09:00:00Z")
    for log in LOGS:
        b.transcript(read_transcript([log.read_bytes()], source=log.name), repository="acme/shop")
    path = tmp_path / "bundle.json"
    path.write_bytes(b.build("run-1").canonical)
    (tmp_path / "key.pem").write_bytes(key_pem("curator"))
    return path


def test_sign_lists_each_transcript_as_a_material_with_its_digest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bundle = _bundle(tmp_path)
    argv = ["sign", bundle, "--key", tmp_path / "key.pem", "--transcript", LOGS[0], "--transcript", LOGS[1]]
    code, _, err = run_main(capsys, *argv)
    assert (code, err) == (0, "")
    signed = (tmp_path / "bundle.json.intoto.json").read_bytes()
    digests = [read_transcript([p.read_bytes()], source=p.name).digest for p in LOGS]
    assert payload_of(signed)["predicate"]["materials"] == [
        {"name": p.name, "digest": {"sha256": d.removeprefix("sha256:")}} for p, d in zip(LOGS, digests, strict=True)
    ]
    statement = parse_statement(parse_envelope(signed).payload)
    assert statement.materials == tuple((p.name, d) for p, d in zip(LOGS, digests, strict=True))


def test_sign_refuses_transcripts_the_bundles_evidence_does_not_replay_against(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bundle = _bundle(tmp_path)
    code, _, err = run_main(capsys, "sign", bundle, "--key", tmp_path / "key.pem", "--transcript", LOGS[0])
    assert code == 2 and not (tmp_path / "bundle.json.intoto.json").exists()
    assert err.startswith("evidence-rank: usage.invalid_option: --transcript: the bundle's evidence is not as ")
    assert ": transcript.missing: " in err and "(and 5 more)" in err


def test_without_transcripts_a_statement_is_as_before() -> None:
    statement = make_statement("bundle", "b.json", "sha256:" + "a" * 64, "t")
    assert statement["predicate"] == {"kind": "bundle", "tool": "t"}


@pytest.mark.parametrize(
    ("materials", "detail"),
    [("no", "the predicate's materials are 'no', not a bundle's list"),
     ([{"name": "a"}], "a material has no 'digest' member"),
     ([{"name": 7, "digest": {"sha256": "a" * 64}}], "a material's name is 7, not a string"),
     ([{"name": "a", "digest": {"sha256": "A" * 64}}], "a material's sha256 is"),
     ([{"name": "a", "digest": {"sha256": "a" * 64}, "uri": "x"}], "a material has a member evidence-rank does not")],
)  # fmt: skip
def test_a_statement_whose_materials_are_not_as_evidence_rank_writes_them_is_malformed(
    materials: object, detail: str
) -> None:
    key = signing_key("curator")
    statement = make_statement("bundle", "b.json", "sha256:" + "a" * 64, "t", (("a", "sha256:" + "b" * 64),))
    statement["predicate"]["materials"] = materials
    with pytest.raises(SignatureError) as e:
        parse_statement(parse_envelope(resigned(statement, key)).payload)
    assert e.value.code == "signature.malformed" and detail in e.value.detail


def test_a_reports_statement_holds_no_materials() -> None:
    statement = make_statement("report", "r.json", "sha256:" + "a" * 64, "t")
    statement["predicate"]["materials"] = [{"name": "a", "digest": {"sha256": "b" * 64}}]
    with pytest.raises(SignatureError, match="not a bundle's list"):
        parse_statement(json.dumps(statement).encode())
