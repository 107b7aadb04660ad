"""A batch's progress on stderr: redrawn on a terminal, a line every few seconds in a
CI log, nothing with --quiet; an unknown total is said, not guessed.

The clock is the progress module's, replaced by one that moves two seconds a
call, so a test sees what a long batch prints without taking long.
"""

from __future__ import annotations

import io
import re
import shutil
import sys
from pathlib import Path

import pytest

from ranking.cli import main, progress
from tests.conftest import PARITY
from tests.ranking.running.batch_support import EXAMPLE, example_line

REFUSED = "087-input-frozen-digest-mismatch-random"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def slow_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter(range(0, 10**6, 2))
    monkeypatch.setattr(progress, "_now", lambda: float(next(ticks)))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Twelve bundles, one of them refused."""
    found = tmp_path / "in"
    found.mkdir()
    for i in range(11):
        shutil.copy(EXAMPLE, found / f"b{i:02d}.json")
    shutil.copy(PARITY / REFUSED / "bundle.json", found / "b99-tampered.json")
    return found


def test_without_a_terminal_a_line_every_few_seconds_says_done_of_total(folder, tmp_path, slow_clock, capsys) -> None:
    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "out")]) == 3

    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    lines = [line for line in err.splitlines() if line.startswith("evidence-rank: batch: ")]
    assert len(lines) >= 3
    for line in lines:
        assert re.fullmatch(r"evidence-rank: batch: \d+/12 \(\d+%\), [01] refused, [0-9.]+/s(, ETA \d+:\d\d)?", line)
    done = [int(re.search(r"(\d+)/12", line).group(1)) for line in lines]
    assert done == sorted(done)
    assert ", ETA " in lines[0]


def test_a_jsonl_file_counts_its_bytes_for_the_share_done_and_the_eta(tmp_path, slow_clock, capsys) -> None:
    stream = tmp_path / "s.jsonl"
    stream.write_bytes(b"".join(example_line() + b"\n" for _ in range(12)))

    assert main(["batch", str(stream), "--out-dir", str(tmp_path / "out")]) == 0

    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("evidence-rank: batch: ")]
    assert len(lines) >= 3
    for line in lines:
        assert re.fullmatch(r"evidence-rank: batch: \d+ done \(\d+%\), 0 refused, [0-9.]+/s(, ETA \d+:\d\d)?", line)
    # Every line is the same length, so the share of the bytes is the share of the bundles.
    done = [re.search(r"(\d+) done \((\d+)%\)", line).groups() for line in lines]  # type: ignore[union-attr]
    assert all(int(percent) == 100 * int(n) // 12 for n, percent in done)
    assert ", ETA " in lines[0]


def test_a_stream_that_is_no_file_says_its_total_is_unknown_rather_than_guess(
    tmp_path, slow_clock, monkeypatch, capsys
) -> None:
    data = b"".join(example_line() + b"\n" for _ in range(12))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    assert main(["batch", "-", "--out-dir", str(tmp_path / "out")]) == 0

    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("evidence-rank: batch: ")]
    assert lines
    for line in lines:
        assert re.fullmatch(r"evidence-rank: batch: \d+ done, total unknown, 0 refused, [0-9.]+/s", line)


def test_a_batch_done_within_seconds_prints_no_progress_line(folder, tmp_path, capsys) -> None:
    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "out")]) == 3

    assert capsys.readouterr().err == f"evidence-rank: 1 of 12 bundles refused; see {tmp_path / 'out'}/summary.json\n"


def test_on_a_terminal_a_line_is_redrawn_with_done_total_rate_and_eta(folder, tmp_path, slow_clock, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "out")]) == 3

    drawn = terminal.getvalue().split("\r\x1b[K")
    assert drawn[0] == ""
    first, *_, last = drawn[1:]
    # The name gives way first when the line is long (a deep temporary folder): its end is kept.
    assert re.fullmatch(r"1/12 \(8%\) · 0 refused · [0-9.]+/s · ETA \d+:\d\d · .*/in/b00\.json", first)
    assert re.fullmatch(r"12/12 \(100%\) · 1 refused · [0-9.]+/s · .*/in/b99-tampered\.json\n.*", last, re.DOTALL)


def test_quiet_silences_the_progress_on_a_terminal_and_off_it(folder, tmp_path, slow_clock, monkeypatch, capsys):
    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "a"), "--quiet"]) == 3
    assert "evidence-rank: batch:" not in capsys.readouterr().err

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "b"), "-q"]) == 3
    assert terminal.getvalue() == f"evidence-rank: 1 of 12 bundles refused; see {tmp_path / 'b'}/summary.json\n"


def test_the_progress_line_escapes_a_name_a_terminal_would_act_on(tmp_path, monkeypatch) -> None:
    found = tmp_path / "in"
    found.mkdir()
    shutil.copy(EXAMPLE, found / "x\x1b]0;owned\x07.json")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert main(["batch", str(found), "--out-dir", str(tmp_path / "out")]) == 0

    drawn = terminal.getvalue().replace("\r\x1b[K", "")
    assert "\x1b" not in drawn and "\x07" not in drawn
    assert "x\\x1b]0;owned\\x07.json" in drawn


def test_a_line_with_no_room_for_the_name_ends_with_the_counts(folder, tmp_path, slow_clock, monkeypatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(progress.Progress, "_width", lambda self: 40)  # a narrow terminal

    assert main(["batch", str(folder), "--out-dir", str(tmp_path / "out")]) == 3

    drawn = terminal.getvalue().split("\r\x1b[K")[1:]
    assert drawn and not [line for line in drawn if line.rstrip("\n").endswith(("·", "· "))]
    assert re.fullmatch(r"1/12 \(8%\) · 0 refused · [0-9.]+/s · ETA \d+:\d\d", drawn[0])
