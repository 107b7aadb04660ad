"""Claude Code session logs read as evidence, rule by rule (docs/transcripts.md, "Claude Code"),
and every hostile log of issue 57: none a traceback, each skipped and counted by its rule."""

from __future__ import annotations

import hashlib

import pytest

from curator_io.errors import InputError
from curator_io.transcripts.model import Transcript
from curator_io.transcripts.reader import read_transcript
from tests.conftest import REPO
from tests.curator_io.transcript_records import (
    DIRECTORY,
    SESSION,
    bash_session,
    call,
    jsonl,
    prompt,
    record,
    result,
    said,
)

TRACE = f"claude:{SESSION}"


def _read(raw: bytes, **options: object) -> Transcript:
    return read_transcript([raw], source="session.jsonl", **options)  # type: ignore[arg-type]


def _only(raw: bytes):  # type: ignore[no-untyped-def]
    (session,) = _read(raw).sessions
    return session


def test_a_command_that_passes_is_a_deterministic_step_whose_evidence_names_the_logs_digest_and_line() -> None:
    raw = bash_session("make test")
    transcript = _read(raw)
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    assert transcript.digest == digest and transcript.lines == 3 and transcript.form == "claude-code"
    (session,) = transcript.sessions
    assert session.trace == TRACE and session.session == SESSION
    assert (session.directory, session.revision, session.version) == (DIRECTORY, "main", "2.1.3")
    (step,) = session.steps
    assert (step.index, step.line, step.tool, step.outcome, step.exit_status, step.command) == (
        0,
        3,
        "Bash",
        "succeeded",
        0,
        "make test",
    )
    command = next(o for o in session.observations if o.id == f"{TRACE}:step0")
    assert (command.step, command.signal, command.line) == (0, "deterministic", 3)
    assert command.summary == f"{digest} line 3: Bash exited 0: make test"
    assert command.observed_at == "2026-11-27T09:03:03.000Z"


def test_a_failed_commands_exit_status_is_the_one_its_result_starts_with() -> None:
    (step,) = _only(bash_session("pytest", status=2)).steps
    assert (step.outcome, step.exit_status) == ("failed", 2)


def test_a_failed_command_whose_result_names_no_exit_status_is_a_tool_outcome() -> None:
    raw = jsonl(
        record("assistant", 1, call("t1", "Bash", {"command": "sleep 900"})),
        record("user", 2, result("t1", [{"type": "text", "text": "Command timed out after 2m"}], error=True)),
    )
    session = _only(raw)
    assert (session.steps[0].outcome, session.steps[0].exit_status) == ("failed", None)
    assert [o.signal for o in session.observations] == ["tool"]


def test_a_tool_other_than_a_command_is_a_tool_outcome_with_the_file_it_concerns() -> None:
    raw = jsonl(
        record("assistant", 1, call("t1", "Edit", {"file_path": f"{DIRECTORY}/src/orders/totals.py"})),
        record("user", 2, result("t1", "The file has been updated.")),
        record("assistant", 3, call("t2", "Read", {"file_path": "/etc/passwd"})),
        record("user", 4, result("t2", "root:x:0:0")),
    )
    session = _only(raw)
    assert [(s.tool, s.outcome, s.path) for s in session.steps] == [
        ("Edit", "succeeded", "src/orders/totals.py"),
        ("Read", "succeeded", None),
    ]
    assert [(o.signal, o.path) for o in session.observations] == [("tool", "src/orders/totals.py"), ("tool", None)]


def test_a_persons_words_are_user_evidence_at_the_step_before_them_and_an_interruption_is_observable() -> None:
    raw = jsonl(
        record("user", 1, prompt("Fix the test.")),
        record("assistant", 2, call("t1", "Bash", {"command": "pytest"})),
        record("user", 3, result("t1", "Exit code 1", error=True)),
        record("user", 4, prompt("[Request interrupted by user for tool use]")),
        record("user", 5, prompt("Use make test here.")),
        record("assistant", 6, call("t2", "Bash", {"command": "make test"})),
        record("user", 7, result("t2", "ok")),
        record("system", 8, {"subtype": "compact_boundary", "content": "Conversation compacted"}),
        record("assistant", 9, said("Done: make test passes.")),
    )
    seen = [(o.id.removeprefix(TRACE), o.step, o.signal) for o in _only(raw).observations]
    assert seen == [
        (":line1", 0, "user"),
        (":step0", 0, "deterministic"),
        (":line4", 0, "observable"),
        (":line5", 0, "user"),
        (":step1", 1, "deterministic"),
        (":line8", 1, "observable"),
        (":line9", 1, "self_assessment"),
    ]


def test_nothing_a_person_or_a_tool_wrote_enters_a_summary() -> None:
    raw = jsonl(
        record("user", 1, prompt("my password is hunter2")),
        record("assistant", 2, call("t1", "Read", {"file_path": "notes.txt"})),
        record("user", 3, result("t1", "SECRET FILE CONTENT")),
        record("assistant", 4, said("The file says SECRET FILE CONTENT")),
    )
    summaries = " ".join(o.summary for o in _only(raw).observations)
    assert "hunter2" not in summaries and "SECRET" not in summaries


def test_lines_that_are_not_json_are_skipped_and_counted_with_their_numbers() -> None:
    raw = b"not json\n" + bash_session() + b'{"type": "user", "trunc'
    transcript = _read(raw)
    assert transcript.skipped == {"not_json": 2}
    assert transcript.skipped_lines == ((1, "not_json"), (5, "not_json"))
    assert len(transcript.sessions[0].steps) == 1


def test_records_of_unknown_type_and_summaries_are_skipped_and_counted() -> None:
    raw = (
        jsonl(
            {"type": "summary", "summary": "Fix the tests", "leafUuid": "x"},
            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
            {"type": "queue-operation", "operation": "enqueue"},
            [1, 2],  # type: ignore[arg-type]
        )
        + bash_session()
    )
    transcript = _read(raw)
    assert transcript.skipped == {"not_a_record": 1, "summary": 1, "unknown_type": 2}


def test_a_tool_result_without_its_tool_use_is_skipped_and_counted() -> None:
    raw = bash_session() + jsonl(record("user", 9, result("toolu_never_called", "ok")))
    transcript = _read(raw)
    assert transcript.skipped == {"orphan_result": 1}
    assert transcript.skipped_lines == ((4, "orphan_result"),)
    assert len(transcript.sessions[0].steps) == 1


def test_a_second_result_for_one_call_is_an_orphan_and_does_not_change_the_first() -> None:
    raw = bash_session() + jsonl(record("user", 9, result("toolu_1", "Exit code 7", error=True)))
    transcript = _read(raw)
    assert transcript.skipped == {"orphan_result": 1}
    assert transcript.sessions[0].steps[0].exit_status == 0


def test_a_call_without_a_result_is_a_step_that_supports_nothing() -> None:
    raw = jsonl(record("assistant", 1, call("t1", "Bash", {"command": "make deploy"})))
    session = _only(raw)
    assert [(s.outcome, s.line) for s in session.steps] == [("no_result", 1)]
    assert session.observations == ()


def test_a_parent_uuid_cycle_changes_nothing_the_records_are_read_in_file_order() -> None:
    records = [
        record("user", 1, prompt("go")),
        record("assistant", 2, call("t1", "Bash", {"command": "make"})),
        record("user", 3, result("t1", "ok")),
    ]
    records[0]["parentUuid"] = records[2]["uuid"]  # 1 -> 3 -> 2 -> 1
    records[1]["parentUuid"] = records[0]["uuid"]
    records[2]["parentUuid"] = records[1]["uuid"]
    records.append(record("user", 4, prompt("again")))
    records[3]["parentUuid"] = records[3]["uuid"]  # its own parent
    session = _only(jsonl(*records))
    assert [s.outcome for s in session.steps] == ["succeeded"]
    assert [o.signal for o in session.observations] == ["user", "deterministic", "user"]


def test_a_resumed_sessions_copied_records_are_duplicates() -> None:
    raw = bash_session() + bash_session()
    transcript = _read(raw)
    assert transcript.skipped == {"duplicate": 3}
    assert len(transcript.sessions[0].steps) == 1


def test_records_the_harness_wrote_for_itself_are_meta() -> None:
    raw = bash_session() + jsonl(
        record("user", 7, prompt("<local-command-caveat>Caveat</local-command-caveat>"), isMeta=True),
        record("user", 8, prompt("This session is being continued from a previous one..."), isCompactSummary=True),
    )
    transcript = _read(raw)
    assert transcript.skipped == {"meta": 2}
    assert [o.signal for o in transcript.sessions[0].observations] == ["user", "deterministic"]


@pytest.mark.parametrize(
    "change",
    [
        {"sessionId": "has a space"},
        {"sessionId": "x" * 65},
        {"sessionId": 7},
        {"timestamp": "yesterday"},
        {"timestamp": "2026-11-27T09:00:00+01:00"},
        {"uuid": None},
        {"message": "text"},
        {"message": {"content": 3}},
    ],
)
def test_a_record_without_what_it_needs_is_malformed(change: dict[str, object]) -> None:
    raw = bash_session() + jsonl({**record("user", 9, prompt("and again")), **change})
    transcript = _read(raw)
    assert transcript.skipped == {"malformed": 1}
    assert transcript.skipped_lines == ((4, "malformed"),)


def test_timestamps_out_of_order_are_counted_and_each_observation_keeps_its_own() -> None:
    raw = jsonl(
        record("assistant", 1, call("t1", "Bash", {"command": "make"}), minute=30),
        record("user", 2, result("t1", "ok"), minute=10),
    )
    transcript = _read(raw)
    assert transcript.out_of_order == 1
    assert transcript.sessions[0].observations[0].observed_at == "2026-11-27T09:10:02.000Z"


def test_control_characters_and_workflow_commands_in_a_command_are_kept_as_data() -> None:
    command = "echo '::set-output name=x::1' ##[error]boom \x1b[31m\u202e"
    (step,) = _only(bash_session(command)).steps
    assert step.command == command  # escaped where printed: tests/ranking/cli/test_transcript_command.py


def test_a_subagents_sidechain_is_a_trace_of_its_own_in_the_sessions_lineage() -> None:
    side = jsonl(
        record("assistant", 5, call("t9", "Grep", {"pattern": "TODO"}), isSidechain=True, agentId="a1b2c3d4"),
        record("user", 6, result("t9", "3 matches"), isSidechain=True, agentId="a1b2c3d4"),
    )
    transcript = _read(bash_session() + side)
    assert [(s.trace, s.session) for s in transcript.sessions] == [
        (TRACE, SESSION),
        (f"{TRACE}/agent-a1b2c3d4", SESSION),
    ]


def test_a_file_with_two_sessions_gives_two_traces_in_the_order_first_seen() -> None:
    other = "9e4f2a71-0c8d-4b5e-a3f6-2d7c9b1e4a58"
    transcript = _read(bash_session(session=other) + bash_session())
    assert [s.session for s in transcript.sessions] == [other, SESSION]


def test_a_session_with_no_tool_call_is_no_trace_and_is_counted() -> None:
    transcript = _read(jsonl(record("user", 1, prompt("hello")), record("assistant", 2, said("hi"))))
    assert transcript.sessions == () and transcript.skipped == {"no_step": 1}


def test_a_log_in_which_no_record_of_its_form_was_read_is_refused() -> None:
    with pytest.raises(InputError, match=r"input.transcript_empty: 'session.jsonl' holds no claude-code record") as e:
        _read(b"hello\n\n{}\n")
    assert e.value.code == "input.transcript_empty" and e.value.exit_code == 3


def test_crlf_line_ends_read_as_lf_and_the_digest_is_of_the_bytes_as_they_are() -> None:
    raw = bash_session().replace(b"\n", b"\r\n")
    transcript = _read(raw)
    assert transcript.digest == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert [s.steps for s in transcript.sessions] == [s.steps for s in _read(bash_session()).sessions]


def test_a_byte_order_mark_makes_the_first_line_not_json() -> None:
    transcript = _read(b"\xef\xbb\xbf" + bash_session())
    assert transcript.skipped_lines == ((1, "not_json"),)


def test_the_chunks_a_log_arrives_in_change_nothing() -> None:
    raw = (REPO / "tests" / "data" / "transcripts" / "session-a.jsonl").read_bytes()
    whole = read_transcript([raw], source="a")
    for size in (1, 7, 4096):
        assert read_transcript([raw[i : i + size] for i in range(0, len(raw), size)], source="a") == whole


def test_a_line_longer_than_the_reader_holds_is_skipped_and_counted_and_still_in_the_digest() -> None:
    long = b'{"type": "user", "pad": "' + b"x" * 5000 + b'"}\n'
    raw = long + bash_session()
    transcript = read_transcript([raw[i : i + 512] for i in range(0, len(raw), 512)], source="s", most=4096)
    assert transcript.skipped_lines == ((1, "oversized_line"),)
    assert transcript.digest == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert len(transcript.sessions[0].steps) == 1


@pytest.mark.slow
def test_a_one_gib_line_is_skipped_without_being_held() -> None:
    import tracemalloc

    chunk = b"x" * (1 << 20)

    def chunks():  # type: ignore[no-untyped-def]
        yield b'{"type": "user", "content": "'
        for _ in range(1024):
            yield chunk
        yield b'"}\n' + bash_session()

    tracemalloc.start()
    try:
        transcript = read_transcript(chunks(), source="huge")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert transcript.skipped_lines == ((1, "oversized_line"),)
    assert len(transcript.sessions[0].steps) == 1
    assert peak < 256 << 20  # the line is 1 GiB; at most 64 MiB of it is ever held


def test_an_agent_id_too_long_for_the_ids_made_from_it_is_a_sidechain_and_the_longest_ids_build() -> None:
    from curator_io import BundleBuilder

    session = "s" * 64
    side = {"isSidechain": True, "agentId": "a" * 33}
    raw = bash_session(session=session) + jsonl(
        record(
            "assistant", 5, call("t9", "Grep", {"pattern": "x"}), session=session, agentId="b" * 32, isSidechain=True
        ),
        record("user", 6, result("t9", "ok"), session=session, agentId="b" * 32, isSidechain=True),
        record("assistant", 7, call("t8", "Grep", {"pattern": "x"}), session=session, **side),
        record("user", 8, result("t8", "ok"), session=session, **side),
    )
    transcript = _read(raw)
    traces = [s.trace for s in transcript.sessions]
    assert traces == [f"claude:{session}", f"claude:{session}/agent-{'b' * 32}", f"claude:{session}/sidechain"]
    b = BundleBuilder(memory_version=0, curator="c", frozen_at="2026-12-02T09:00:00Z")
    b.transcript(transcript, repository="acme/shop")
    assert len(b.build("run-1").bundle.evidence) == 4  # the prompt and three tool outcomes


def test_a_windows_path_under_the_sessions_directory_is_relative_to_it() -> None:
    raw = jsonl(
        {
            **record("assistant", 1, call("t1", "Edit", {"file_path": "C:\\Users\\dev\\shop\\src\\a.py"})),
            "cwd": "C:\\Users\\dev\\shop",
        },
        {**record("user", 2, result("t1", "ok")), "cwd": "C:\\Users\\dev\\shop"},
        record("assistant", 3, call("t2", "Read", {"file_path": "D:\\secrets\\a.txt"})),
        record("user", 4, result("t2", "ok")),
    )
    assert [s.path for s in _only(raw).steps] == ["src/a.py", None]


def test_a_subagents_own_file_is_its_trace_in_its_sessions_lineage() -> None:
    side = {"isSidechain": True, "agentId": "a1b2c3d4"}
    raw = jsonl(
        record("user", 1, prompt("Find the TODOs in src/orders."), **side),
        record("assistant", 2, call("t1", "Grep", {"pattern": "TODO"}), **side),
        record("user", 3, result("t1", "src/orders/totals.py:3: TODO"), **side),
    )
    (session,) = _read(raw).sessions
    assert (session.trace, session.session) == (f"{TRACE}/agent-a1b2c3d4", SESSION)


def test_a_record_of_an_older_version_without_the_members_later_ones_add_reads_the_same() -> None:
    older = [
        {k: v for k, v in r.items() if k not in ("userType", "gitBranch", "isSidechain")} | {"version": "1.0.51"}
        for r in (
            record("assistant", 1, call("t1", "Bash", {"command": "make test"})),
            record("user", 2, result("t1", "ok")),
        )
    ]
    session = _only(jsonl(*older))
    assert (session.version, session.revision) == ("1.0.51", None)
    assert [(s.outcome, s.exit_status) for s in session.steps] == [("succeeded", 0)]


def test_members_a_later_version_adds_are_ignored() -> None:
    raw = jsonl(
        record("assistant", 1, call("t1", "Bash", {"command": "make test"}), slug="happy-cat", thinkingMetadata={}),
        record("user", 2, result("t1", "ok"), toolUseResult={"stdout": "ok", "interrupted": False}, version="2.9.0"),
    )
    assert _read(raw).skipped == {} and _only(raw).steps[0].outcome == "succeeded"
