"""``evidence-rank transcript show`` and ``check`` as a user runs them (docs/transcripts.md, "The
command"): every printed value through the escaper, bounded, a refusal one line with its code,
and the input door's rules for a log as for any input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from curator_io import BundleBuilder
from curator_io.transcripts.reader import read_transcript
from tests.conftest import FIXTURES, REPO, run_main
from tests.curator_io.transcript_records import bash_session, call, jsonl, record, result

LOGS = REPO / "tests" / "data" / "transcripts"
A, B = LOGS / "session-a.jsonl", LOGS / "session-b.jsonl"


def _run(*argv: str | Path, stdin: int | None = None, **options: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ranking.cli", *map(str, argv)],
        cwd=REPO,
        stdin=stdin,
        capture_output=True,
        timeout=60,
        check=False,
        **options,  # type: ignore[call-overload]
    )


def test_show_lists_each_sessions_evidence_with_its_id_step_signal_and_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_main(capsys, "transcript", "show", A)
    lines = out.splitlines()
    digest = read_transcript([A.read_bytes()], source="a").digest
    assert code == 0 and err == ""
    assert lines[0] == (
        f"{A}: claude-code, 15 line(s), {digest}; skipped: summary 1, unknown_type 1; timestamps out of order: 0"
    )
    assert lines[1] == (
        "session claude:5b0c1d9e-6a3f-4c2e-9d41-7e2a0f3b8c11 (directory /home/dev/shop, revision main, "
        "version 2.0.14): 5 step(s), 8 evidence item(s)"
    )
    assert lines[3] == (
        "  claude:5b0c1d9e-6a3f-4c2e-9d41-7e2a0f3b8c11:step0  step 0  deterministic  failed  line 4: "
        "Bash exited 1: pytest tests/test_orders.py"
    )
    assert len(lines) == 10


def test_show_is_bounded_by_limit_and_says_how_many_it_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "transcript", "show", "--limit", "2", A, B)
    assert code == 0
    assert "  … and 6 more evidence item(s) (--limit)" in out.splitlines()
    assert "  … and 4 more evidence item(s) (--limit)" in out.splitlines()


def test_show_as_json_is_the_documented_document_and_parses_back(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "transcript", "show", "--format", "json", "--limit", "1", B)
    document = json.loads(out)
    assert code == 0 and document["schema"] == "evidence-rank-transcripts"
    (log,) = document["transcripts"]
    assert (log["source"], log["form"], log["lines"], log["skipped"]) == (str(B), "claude-code", 11, {"meta": 1})
    (session,) = log["sessions"]
    assert (session["step_count"], session["evidence_count"], len(session["steps"]), len(session["evidence"])) == (
        4,
        6,
        1,
        1,
    )
    assert session["steps"][0] == {
        "index": 0,
        "line": 3,
        "tool": "Write",
        "outcome": "succeeded",
        "exit_status": None,
        "command": None,
        "path": "tests/test_refunds.py",
        "observed_at": "2026-11-28T09:01:03.111Z",
    }


def test_control_characters_and_workflow_commands_in_a_command_are_escaped_not_obeyed(tmp_path: Path) -> None:
    log = tmp_path / "hostile.jsonl"
    log.write_bytes(bash_session("echo ok\n::error::forged ##[warning]forged \x1b]0;title\x07 \u202eevil"))
    for form in ("text", "json"):
        proc = _run("transcript", "show", "--format", form, log)
        assert proc.returncode == 0
        out = proc.stdout.decode()
        assert "##[" not in out and "\x1b" not in out and "\u202e" not in out and "\x07" not in out
        assert not any(line.lstrip().startswith("::") for line in out.splitlines())


def test_a_file_that_is_no_agents_log_is_one_line_with_its_code_and_exit_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bundle.json"
    path.write_bytes((FIXTURES / "example.json").read_bytes())
    code, out, err = run_main(capsys, "transcript", "show", path)
    assert (code, out) == (3, "")
    assert err.startswith("evidence-rank: input.transcript_empty: ") and err.count("\n") == 1


def test_a_log_of_only_hostile_lines_is_refused_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(b"\x00\xff\xfe not json\n" + b"[" * 100000 + b"\n" + b'{"type": 7}\n')
    code, _, err = run_main(capsys, "transcript", "show", path)
    assert code == 3 and "input.transcript_empty" in err and "Traceback" not in err


def test_a_symlink_is_read_as_the_file_it_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "link.jsonl").symlink_to(A)
    code, out, _ = run_main(capsys, "transcript", "show", tmp_path / "link.jsonl")
    assert code == 0 and "5 step(s), 8 evidence item(s)" in out


def test_a_fifo_is_read_once_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "log.fifo"
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as f:
            f.write(A.read_bytes())

    threading.Thread(target=write, daemon=True).start()
    proc = _run("transcript", "show", path)
    assert proc.returncode == 0 and b"5 step(s), 8 evidence item(s)" in proc.stdout


def test_standard_input_closed_or_a_device_is_refused_as_every_input_is(tmp_path: Path) -> None:
    closed = _run("transcript", "show", "-", preexec_fn=lambda: os.close(0))
    assert closed.returncode == 2
    assert closed.stderr.decode() == "evidence-rank: usage.unreadable: cannot read standard input: it is closed\n"
    with open("/dev/zero", "rb") as zero:
        endless = _run("transcript", "show", "-", stdin=zero.fileno())
    assert endless.returncode == 2 and b"a device, not a file" in endless.stderr


def test_check_passes_a_bundle_built_from_its_logs_and_fails_one_whose_log_is_missing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    b = BundleBuilder(memory_version=0, curator="c", frozen_at="2026-12-02T09:00:00Z")
    for log in (A, B):
        b.transcript(read_transcript([log.read_bytes()], source=log.name), repository="acme/shop")
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(b.build("run-1").canonical)
    code, out, _ = run_main(capsys, "transcript", "check", bundle, A, B)
    assert code == 0
    assert (
        out
        == "replayed 14 evidence item(s) against 2 transcript(s): every one as its log gives it (0 not from a log)\n"
    )
    code, out, _ = run_main(capsys, "transcript", "check", "--format", "json", bundle, A)
    report = json.loads(out)
    assert code == 1 and (report["ok"], report["checked"], len(report["findings"])) == (False, 14, 6)
    assert {f["code"] for f in report["findings"]} == {"transcript.missing"}


def test_a_limit_that_is_not_a_whole_number_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        run_main(capsys, "transcript", "show", "--limit", "0", A)
    assert e.value.code == 2


def test_an_unanswered_call_and_an_orphan_result_show_as_such(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        jsonl(record("assistant", 1, call("t1", "Bash", {"command": "make"})), record("user", 2, result("t404", "ok")))
    )
    code, out, _ = run_main(capsys, "transcript", "show", path)
    assert code == 0 and "skipped: orphan_result 1;" in out and "1 step(s), 0 evidence item(s)" in out


def test_show_lists_at_most_limit_sessions_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sessions = [f"{n:08d}-6a3f-4c2e-9d41-7e2a0f3b8c11" for n in range(5)]
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"".join(bash_session(session=s) for s in sessions))
    code, out, _ = run_main(capsys, "transcript", "show", "--limit", "2", path)
    assert code == 0 and sum(line.startswith("session ") for line in out.splitlines()) == 2
    assert out.splitlines()[-1] == "… and 3 more session(s) (--limit)"
    code, out, _ = run_main(capsys, "transcript", "show", "--format", "json", "--limit", "2", path)
    (log,) = json.loads(out)["transcripts"]
    assert (log["session_count"], len(log["sessions"])) == (5, 2)


def test_a_directory_is_refused_as_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_main(capsys, "transcript", "show", tmp_path)
    assert (code, out) == (2, "") and err.startswith("evidence-rank: usage.unreadable: cannot read ")
