"""An agent's logs recorded into a bundle (docs/transcripts.md, "Into a bundle"): one trace per
session, the steps its tool calls, each evidence item's summary naming the log's digest and
line, and nothing else of the log written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator_io import BundleBuilder, Replace, Scope
from curator_io.canonical import digest
from curator_io.transcripts.model import Transcript
from curator_io.transcripts.reader import read_transcript
from ranking import rank
from tests.conftest import REPO
from tests.curator_io.transcript_records import bash_session, jsonl, record

LOGS = REPO / "tests" / "data" / "transcripts"
SHOP = Scope("repository", "acme/shop")


def _log(name: str) -> Transcript:
    return read_transcript([(LOGS / name).read_bytes()], source=name)


def _builder() -> BundleBuilder:
    b = BundleBuilder(memory_version=0, curator="curator@1", frozen_at="2026-12-02T09:00:00Z")
    b.memory_instruction("testing.1", "Run the tests before you push.", scope=SHOP, origin="repository")
    b.memory_instruction("style.1", "Format with ruff.", scope=SHOP, origin="repository")
    return b


def test_each_session_is_one_trace_whose_steps_are_its_tool_calls_in_a_materialization_of_the_repository() -> None:
    b = _builder()
    (a,) = b.transcript(_log("session-a.jsonl"), repository="acme/shop")
    document = b.build("run-1").document
    (trace,) = document["traces"]
    assert (trace["id"], trace["lineage"], trace["materialization"]) == (
        a.trace,
        a.trace.removeprefix("claude:"),
        a.materialization,
    )
    assert trace["steps"] == 5 == len(a.steps) and trace["completeness"] == "complete"
    assert trace["step_digests"] == [digest(step.to_json()) for step in a.steps]
    (checkout,) = document["materializations"]
    assert (checkout["repository"], checkout["source_revision"], checkout["status"]) == (
        "acme/shop",
        "main",
        "compatible",
    )
    assert [e["id"] for e in document["evidence"]] == [e.id for e in a.evidence]


def test_a_task_id_the_caller_gives_is_the_lineage_and_a_revision_it_gives_the_checkouts() -> None:
    b = _builder()
    (a,) = b.transcript(_log("session-a.jsonl"), repository="acme/shop", lineage="task-12", revision="9c1e2f0")
    document = b.build("run-1").document
    assert a.lineage == "task-12" == document["traces"][0]["lineage"]
    assert document["materializations"][0]["source_revision"] == "9c1e2f0"


def test_each_summary_names_the_logs_digest_and_line_within_specs_thousand_bytes() -> None:
    b = _builder()
    log = read_transcript([bash_session("make " + "x" * 3000)], source="long")
    b.transcript(log, repository="acme/shop")
    for item in b.build("run-1").document["evidence"]:
        assert item["summary"].startswith(f"{log.digest} line ")
        assert len(item["summary"].encode()) <= 1000
    assert b.build("run-1").document["evidence"][-1]["summary"].endswith("…")


def test_no_prompt_tool_output_file_content_or_secret_of_a_log_enters_the_bundle() -> None:
    b = _builder()
    for name in ("session-a.jsonl", "session-b.jsonl", "session-c.jsonl"):
        b.transcript(_log(name), repository="acme/shop")
    written = b.build("run-1").canonical.decode()
    for words in ("fails on CI", "ACME_DB_URL", "def total", "sum(l.amount", "42 passed", "ghp_Zq3v", "Fixed: totals"):
        assert words not in written
    assert "GITHUB_TOKEN=[REDACTED] gh pr create --fill" in written


def test_a_session_that_ran_in_another_directory_than_the_first_or_the_checkout_given_is_incompatible() -> None:
    b = _builder()
    b.transcript(_log("session-a.jsonl"), repository="acme/shop")
    elsewhere = _moved(LOGS / "session-b.jsonl", "/home/dev/other-project")
    (b_session,) = b.transcript(elsewhere, repository="acme/shop")
    assert b_session.status == "incompatible"
    (c_session,) = b.transcript(_log("session-c.jsonl"), repository="acme/shop", checkout="/home/dev/shop/")
    assert c_session.status == "compatible"


def test_a_log_that_names_another_repository_than_the_callers_is_incompatible() -> None:
    b = _builder()
    (session,) = b.transcript(_log("spans.otlp.jsonl"), repository="acme/billing")
    assert session.status == "incompatible"
    (same,) = _builder().transcript(_log("spans.otlp.jsonl"), repository="acme/shop")
    assert (same.status, same.lineage) == ("compatible", "conv-2026-12-01-a")


def test_a_recurring_lesson_seen_in_two_sessions_is_selected_and_one_seen_in_one_session_is_deferred() -> None:
    b = _builder()
    sessions = [s for n in "abc" for s in b.transcript(_log(f"session-{n}.jsonl"), repository="acme/shop")]

    def ran(session, start: str, outcome: str) -> list[str]:  # type: ignore[no-untyped-def]
        return [
            e.id
            for e in session.evidence
            if e.signal == "deterministic"
            and session.steps[e.step].command.startswith(start)
            and session.steps[e.step].outcome == outcome
        ]

    bare = [s for s in sessions if ran(s, "pytest", "failed") or ran(s, "python -m pytest", "failed")]
    make_test = [ran(s, "make test", "succeeded")[-1] for s in bare]
    ruff = [e for s in sessions for e in ran(s, "ruff check --fix", "succeeded")]
    assert len(make_test) == 2 and len(ruff) == 1
    b.lesson("les-tests", text="The tests need the environment the Makefile sets.", evidence=make_test)
    b.propose(
        "p-make-test",
        lesson="les-tests",
        scope=SHOP,
        confidence=0.9,
        support=make_test,
        operations=[Replace("testing.1", "Run the tests with `make test` before you push, not bare pytest.")],
    )
    b.lesson("les-ruff", text="ruff check --fix leaves the formatting to ruff format.", evidence=ruff)
    b.propose(
        "p-ruff-format",
        lesson="les-ruff",
        scope=SHOP,
        confidence=0.7,
        support=ruff,
        operations=[Replace("style.1", "Run `ruff format` after `ruff check --fix`.")],
    )
    result = rank(b.build("run-2026-12-02").bundle)
    dispositions = {p["id"]: (p["disposition"], [r["code"] for r in p["reasons"]]) for p in result.report["proposals"]}
    assert dispositions["p-make-test"][0] == "selected"
    assert dispositions["p-ruff-format"] == ("deferred", ["support.insufficient_lineages"])


def _moved(path: Path, directory: str) -> Transcript:
    raw = path.read_bytes().replace(b'"cwd":"/home/dev/shop"', f'"cwd":{json.dumps(directory)}'.encode())
    return read_transcript([raw], source=path.name)


def test_recording_one_log_twice_is_refused_as_the_loader_refuses_a_duplicate_id() -> None:
    from curator_io.errors import InputError

    b = _builder()
    log = read_transcript([jsonl(record("user", 1, {"message": {"content": "x"}})) + bash_session()], source="s")
    b.transcript(log, repository="acme/shop")
    b.transcript(log, repository="acme/shop")
    with pytest.raises(InputError) as e:
        b.build("run-1")
    assert e.value.code == "input.duplicate_id"


def test_without_a_repository_the_one_the_log_names_is_taken_and_a_log_that_names_none_is_a_mistake() -> None:
    b = _builder()
    (session,) = b.transcript(_log("spans.otlp.jsonl"))
    assert b.build("run-1").document["materializations"][0]["repository"] == "acme/shop"
    assert session.status == "compatible"
    with pytest.raises(ValueError, match=r"its log names no repository; give repository="):
        _builder().transcript(_log("session-a.jsonl"))


def test_spans_that_name_no_directory_are_judged_by_their_repository_beside_a_claude_code_session() -> None:
    b = _builder()
    b.transcript(_log("session-a.jsonl"), repository="acme/shop")
    (spans,) = b.transcript(_log("spans.otlp.jsonl"), repository="acme/shop")
    assert spans.status == "compatible"
