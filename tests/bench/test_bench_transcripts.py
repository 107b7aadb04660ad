"""bench/transcripts.py writes a session of the size asked and reads it (times are measured, never asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import transcripts
from curator_io.transcripts.reader import read_transcript


def test_the_bench_session_is_of_the_size_asked_and_a_log_the_reader_reads(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    size = transcripts.write_session(path, 0.3)
    assert 300_000 <= size == path.stat().st_size < 600_000
    log = read_transcript([path.read_bytes()], source="s")
    assert log.skipped == {"unknown_type": len(log.skipped_lines)} and len(log.sessions[0].steps) > 30


def test_the_transcripts_bench_prints_a_row_per_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert transcripts.main(["--megabytes", "0.2", "0.4", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("MB  lines  steps") and len(lines) == 3
