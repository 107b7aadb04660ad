"""The ledger recorder (``ranking.running.recorder.recorded``, what ``batch --ledger`` runs) records
reports in groups: each report whole, in input order, and nothing scored is left unrecorded when a
batch stops. Each result carries its recording, made where the bundle was scored, by every engine."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from curator_io import parse_json
from curator_io.config import DEFAULT_CONFIG
from ranking.cli import main
from ranking.cli.commands import batch as batch_command
from ranking.ledger import Ledger
from ranking.ledger.records import DecisionRow, recording_of
from ranking.running import recorder
from ranking.running.batch import BundleResult, BundleSource, score_item, score_one
from tests.conftest import PARITY

_CASES = sorted(p.name for p in PARITY.iterdir() if (p / "bundle.json").is_file())


def _results(count: int, *, record: bool = True) -> list[BundleResult]:
    """Scored parity bundles that each give a report with decisions: distinct reports."""
    found = []
    for name in _CASES:
        raw = (PARITY / name / "bundle.json").read_bytes()
        result = score_one(BundleSource(name, None, name), raw, DEFAULT_CONFIG, record)
        if result.outcome != "error" and '"proposals":[]' not in dict(result.files)["report.json"].decode():
            found.append(result)
        if len(found) == count:
            return found
    raise AssertionError(f"the parity corpus has fewer than {count} reports with decisions")


def _recorded_runs(ledger: Path) -> list[str]:
    """What another process would see in the ledger now: its runs, in the order recorded."""
    with Ledger.open(ledger, create=False, read_only=True) as opened:
        return list(dict.fromkeys(d.run for d in opened.decisions()))


def test_reports_are_recorded_a_group_at_a_time_in_input_order(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(recorder, "GROUP_REPORTS", 3)
    monkeypatch.setattr(recorder, "GROUP_SECONDS", 3600.0)
    results = _results(7)
    ledger = tmp_path / "ledger.db"
    Ledger.open(ledger).close()

    seen = []
    for result in recorder.recorded(results, str(ledger)):
        seen.append(result.run)
        # A group is written when it is full: after the 3rd and the 6th result, not between.
        assert _recorded_runs(ledger) == seen[: len(seen) // 3 * 3]

    assert _recorded_runs(ledger) == [r.run for r in results]  # the last, partial group at the end


def test_a_batch_that_stops_early_records_the_group_it_holds(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(recorder, "GROUP_REPORTS", 64)
    results = _results(4)
    ledger = tmp_path / "ledger.db"

    stream = recorder.recorded(results, str(ledger))
    taken = [next(stream).run for _ in range(3)]
    assert _recorded_runs(ledger) == []  # held, not yet written
    stream.close()  # what an exception in the consumer (a folder that cannot be written, SIGTERM) does

    assert _recorded_runs(ledger) == taken


def test_a_group_is_written_when_its_time_is_up(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(recorder, "GROUP_REPORTS", 64)
    monkeypatch.setattr(recorder, "GROUP_SECONDS", 0.0)  # every report is a group of its own
    results = _results(3)
    ledger = tmp_path / "ledger.db"

    for i, _ in enumerate(recorder.recorded(results, str(ledger)), start=1):
        assert len(_recorded_runs(ledger)) == i


@pytest.mark.parametrize("engine", ["local", "remote"])
def test_the_recorded_rows_are_the_rows_the_report_gives_whichever_engine_scored_it(
    tmp_path: Path, engine: str
) -> None:
    if engine == "local":
        results = _results(5)
    else:  # the unit a remote engine maps: the bundle's bytes in, the result's files and recording out
        items = [
            (i, r.source, (PARITY / r.source.file / "bundle.json").read_bytes()) for i, r in enumerate(_results(5))
        ]
        results = [score_item(item, DEFAULT_CONFIG, record=True) for item in items]
    ledger = tmp_path / "ledger.db"

    list(recorder.recorded(results, str(ledger)))

    with Ledger.open(ledger, create=False) as opened:
        stored = opened.decisions()
        (counts, findings) = opened.audit()
    assert findings == []
    expected = [d for r in results for d in _rows_of(r)]
    assert sorted(stored) == sorted(expected) and len(stored) > len(results)
    assert counts[0] == len(results)


def _rows_of(result: BundleResult) -> tuple[DecisionRow, ...]:
    body = dict(result.files)["report.json"]
    return recording_of(parse_json(body), body).decisions


def test_a_result_is_recorded_only_when_it_was_scored_to_be(tmp_path: Path) -> None:
    unrecorded = _results(1, record=False)
    assert unrecorded[0].recording is None and _results(1)[0].recording is not None

    with pytest.raises(ValueError, match="scored without record=True, so there is nothing to record"):
        list(recorder.recorded(unrecorded, str(tmp_path / "ledger.db")))

    assert _recorded_runs(tmp_path / "ledger.db") == []


def test_an_interrupted_batch_has_recorded_what_it_took_when_it_exits(tmp_path: Path, monkeypatch) -> None:
    inbox = tmp_path / "in"
    inbox.mkdir()
    for name in _CASES[:6]:
        (inbox / f"{name}.json").write_bytes((PARITY / name / "bundle.json").read_bytes())
    entries = batch_command.summary_entry

    def interrupted_at_the_fourth(index: int, folder: str, result: BundleResult) -> dict[str, Any]:
        if index == 4:
            raise KeyboardInterrupt
        return entries(index, folder, result)

    monkeypatch.setattr(batch_command, "summary_entry", interrupted_at_the_fourth)
    ledger = tmp_path / "ledger.db"
    argv = ["batch", str(inbox), "--out-dir", str(tmp_path / "out"), "--ledger", str(ledger)]

    assert main(argv) == 130

    # The fourth result was taken from the engine, so it is recorded with the three before it
    # (folders are read in name order), and none after it: by the time main returns.
    expected = [parse_json((PARITY / name / "expected.report.json").read_bytes()) for name in _CASES[:4]]
    with sqlite3.connect(ledger) as db:
        stored = [digest for (digest,) in db.execute("SELECT digest FROM reports ORDER BY seq")]
    assert stored == [r["digest"] for r in expected]
