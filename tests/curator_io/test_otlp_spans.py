"""OTLP JSON spans under the GenAI semantic conventions read as evidence, rule by rule
(docs/transcripts.md, "OTLP JSON")."""

from __future__ import annotations

import json

import pytest

from curator_io.errors import InputError
from curator_io.transcripts.model import Transcript
from curator_io.transcripts.otlp_spans import timestamp_of
from curator_io.transcripts.reader import read_transcript
from tests.conftest import REPO
from tests.curator_io.transcript_records import TRACE_ID, export, kv, span

TOOL = kv("gen_ai.operation.name", "execute_tool")
CONVERSATION = kv("gen_ai.conversation.id", "conv-7")


def _read(*lines: object) -> Transcript:
    raw = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
    return read_transcript([raw], source="spans.jsonl")


def test_the_fixtures_tool_executions_are_steps_and_other_spans_are_not() -> None:
    transcript = read_transcript(
        [(REPO / "tests" / "data" / "transcripts" / "spans.otlp.jsonl").read_bytes()], source="spans"
    )
    assert transcript.form == "otlp-json" and transcript.skipped == {"unknown_type": 2}
    (session,) = transcript.sessions
    assert (session.trace, session.repository, session.revision) == (
        "otlp:conv-2026-12-01-a",
        "acme/shop",
        "4f2c1e9a7b",
    )
    assert [(s.tool, s.outcome, s.exit_status, s.command) for s in session.steps] == [
        ("shell", "failed", 1, "pytest -q"),
        ("shell", "succeeded", 0, "make test"),
        ("read_file", "succeeded", None, None),
    ]
    assert [o.signal for o in session.observations] == ["deterministic", "deterministic", "tool"]
    assert session.observations[1].observed_at == "2026-12-01T09:00:31.250000000Z"


def test_an_error_status_is_a_failed_step_and_a_span_without_a_conversation_is_its_traces_session() -> None:
    (session,) = _read(
        export(span("00f067aa0ba902b7", TOOL, kv("gen_ai.tool.name", "fetch"), status={"code": 2}))
    ).sessions
    assert session.trace == f"otlp:{TRACE_ID}" and session.steps[0].outcome == "failed"


def test_a_conversation_id_that_is_no_id_falls_back_to_the_trace_id() -> None:
    (session,) = _read(export(span("00f067aa0ba902b7", TOOL, kv("gen_ai.conversation.id", "a b c")))).sessions
    assert session.session == TRACE_ID


@pytest.mark.parametrize(
    "bad",
    [
        {"traceId": "xyz"},
        {"spanId": "short"},
        {"endTimeUnixNano": "soon"},
        {"endTimeUnixNano": "9" * 21},
        {"endTimeUnixNano": None},
    ],
)
def test_a_span_without_what_it_needs_is_malformed(bad: dict[str, object]) -> None:
    good = span("00f067aa0ba902b7", TOOL, CONVERSATION)
    transcript = _read(export({**span("00f067aa0ba902b8", TOOL, CONVERSATION), **bad}, good))
    assert transcript.skipped == {"malformed": 1} and len(transcript.sessions[0].steps) == 1


def test_a_span_read_twice_is_a_duplicate_and_a_line_that_is_not_an_export_is_not_a_record() -> None:
    one = export(span("00f067aa0ba902b7", TOOL, CONVERSATION))
    transcript = _read(one, one, {"resourceSpans": "no"}, b"{not json")
    assert transcript.skipped == {"duplicate": 1, "not_a_record": 1, "not_json": 1}


def test_a_secret_in_a_command_line_is_redacted() -> None:
    command = kv("process.command_line", "curl -u admin:pw https://x -H 'Authorization: Bearer abcdefgh1234'")
    (session,) = _read(export(span("00f067aa0ba902b7", TOOL, command))).sessions
    assert session.steps[0].command == "curl -u admin:pw https://x -H 'Authorization: [REDACTED]'"


def test_spans_out_of_order_are_counted() -> None:
    late, early = (
        span("00f067aa0ba902b7", TOOL, CONVERSATION, end=2_000_000_000_000_000_000),
        span("00f067aa0ba902b8", TOOL, CONVERSATION, end=1_000_000_000_000_000_000),
    )
    assert _read(export(late, early)).out_of_order == 1


def test_nanoseconds_are_written_as_a_spec_timestamp() -> None:
    assert timestamp_of(0) == "1970-01-01T00:00:00.000000000Z"
    assert timestamp_of(1796115631_250000001) == "2026-12-01T09:00:31.250000001Z"


def test_the_form_can_be_said_instead_of_read_from_the_first_record() -> None:
    with pytest.raises(InputError, match=r"input\.transcript_empty"):
        read_transcript([json.dumps(export(span("00f067aa0ba902b7", TOOL))).encode()], source="s", form="claude-code")
