"""The replay check (docs/transcripts.md, "Replay"): a bundle's evidence against the logs it was
read from, each step at its line and each digest equal; every way it can differ, found."""

from __future__ import annotations

import json

import pytest

from curator_io import BundleBuilder
from curator_io.canonical import canon
from curator_io.errors import InputError
from curator_io.sealing import seal_bundle
from curator_io.transcripts.reader import read_transcript
from ranking import replay_transcripts
from tests.conftest import REPO

LOGS = [REPO / "tests" / "data" / "transcripts" / f"session-{n}.jsonl" for n in "ab"]


def _logs():  # type: ignore[no-untyped-def]
    return [read_transcript([p.read_bytes()], source=p.name) for p in LOGS]


def _bundle() -> bytes:
    b = BundleBuilder(memory_version=0, curator="c", frozen_at="2026-12-02T09:00:00Z")
    for log in _logs():
        b.transcript(log, repository="acme/shop")
    b.evidence(
        "ev-by-hand",
        trace="claude:5b0c1d9e-6a3f-4c2e-9d41-7e2a0f3b8c11",
        step=0,
        signal="observable",
        observed_at="2026-12-02T08:00:00Z",
        summary="a person watched it",
    )
    return b.build("run-1").canonical


def _edited(raw: bytes, edit) -> bytes:  # type: ignore[no-untyped-def]
    document = json.loads(raw)
    edit(document)
    return canon(seal_bundle(document))


def test_a_bundle_built_from_its_logs_replays_every_evidence_item_from_them() -> None:
    replay = replay_transcripts(_bundle(), _logs())
    assert replay.ok and (replay.checked, replay.other) == (14, 1)


def test_a_log_not_given_is_missing() -> None:
    replay = replay_transcripts(_bundle(), _logs()[:1])
    assert {f.code for f in replay.findings} == {"transcript.missing"} and len(replay.findings) == 6


def test_a_log_changed_after_the_bundle_was_built_is_not_the_one_its_evidence_names() -> None:
    changed = read_transcript([LOGS[0].read_bytes().replace(b"make test", b"make check")], source="a")
    replay = replay_transcripts(_bundle(), [changed, _logs()[1]])
    assert {f.code for f in replay.findings} == {"transcript.missing"}


@pytest.mark.parametrize(
    ("member", "value", "code"),
    [
        ("step", 3, "transcript.evidence_differs"),
        ("signal", "user", "transcript.evidence_differs"),
        ("observed_at", "2026-12-01T00:00:00Z", "transcript.evidence_differs"),
        ("id", "claude:5b0c1d9e-6a3f-4c2e-9d41-7e2a0f3b8c11:step9", "transcript.no_such_evidence"),
    ],
)
def test_an_evidence_item_edited_and_resealed_is_found(member: str, value: object, code: str) -> None:
    def edit(document):  # type: ignore[no-untyped-def]
        item = next(e for e in document["evidence"] if e["id"].endswith(":step4"))
        item[member] = value

    (finding,) = replay_transcripts(_edited(_bundle(), edit), _logs()).findings
    assert finding.code == code


def test_a_summary_that_moves_its_step_to_another_line_is_found() -> None:
    def edit(document):  # type: ignore[no-untyped-def]
        item = next(e for e in document["evidence"] if e["id"].endswith(":step4"))
        item["summary"] = item["summary"].replace(" line 14: ", " line 13: ")

    (finding,) = replay_transcripts(_edited(_bundle(), edit), _logs()).findings
    assert finding.code == "transcript.evidence_differs" and "its summary" in finding.detail


def test_a_trace_whose_sealed_step_is_not_the_logs_is_found() -> None:
    def edit(document):  # type: ignore[no-untyped-def]
        document["traces"][0]["step_digests"][4] = "sha256:" + "0" * 64

    findings = replay_transcripts(_edited(_bundle(), edit), _logs()).findings
    # Step 4 is the last make test; the model's last message is at it too.
    assert [(f.evidence.rsplit(":", 1)[1], f.code) for f in findings] == [
        ("step4", "transcript.step_differs"),
        ("line15", "transcript.step_differs"),
    ]


def test_a_bundle_that_is_not_one_is_refused_as_every_command_refuses_it() -> None:
    with pytest.raises(InputError) as e:
        replay_transcripts(b"{}", _logs())
    assert e.value.code == "input.schema"
