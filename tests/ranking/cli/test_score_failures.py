"""``score --out-dir`` when what comes after the reports fails (issue 24): a ledger that
cannot be opened or written, a disk that fills between ``validation.json`` and
``report.json``. The folder is left as docs/outputs.md says: ``error.json`` (when it can
be written) and never a report pair of a run that did not succeed; exit 2."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from ranking.cli import main
from tests.conftest import FIXTURES, REPO, visible_files

EXAMPLE = FIXTURES / "example.json"


def _earlier_run(out: Path) -> None:
    """The pair of an earlier, successful run: a failed run must not leave it to pass for its own."""
    assert main(["score", str(EXAMPLE), "--out-dir", str(out), "-q"]) == 0
    assert visible_files(out) == ["report.json", "validation.json"]


def test_a_ledger_that_is_a_folder_leaves_error_json_and_no_report_pair(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    _earlier_run(out)
    (tmp_path / "ledger.db").mkdir()
    assert main(["score", str(EXAMPLE), "--out-dir", str(out), "--ledger", str(tmp_path / "ledger.db"), "-q"]) == 2
    line, note = capsys.readouterr().err.splitlines()
    ledger = str(tmp_path / "ledger.db")
    assert line.startswith(f"evidence-rank: {ledger}: usage.unwritable: "), line  # the file, then the code
    assert note == f"note: the earlier {out / 'report.json'} was removed: a run that fails leaves no report"
    assert visible_files(out) == ["error.json"]
    error = json.loads((out / "error.json").read_bytes())
    assert error["code"] == "usage.unwritable"


def _without_root_powers() -> None:
    """In the child: file modes bind root too (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and
    CAP_FOWNER dropped from the bounding set, so the command runs without them)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_a_read_only_ledger_leaves_no_report_pair(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.db"
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "first"), "--ledger", str(ledger), "-q"]) == 0
    for name in os.listdir(tmp_path):
        if name.startswith("ledger.db"):
            (tmp_path / name).chmod(0o444)
    before = ledger.read_bytes()
    out = tmp_path / "out"
    _earlier_run(out)
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "score", str(EXAMPLE), "--out-dir", str(out), "--ledger", str(ledger)],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=_without_root_powers,
        check=False,
    )
    # The ledger says it cannot be written (one line, usage.unwritable, exit 2), and the folder says
    # the run failed: error.json alone, the earlier run's pair removed too.
    assert proc.returncode == 2, proc.stderr
    assert "usage.unwritable" in proc.stderr and "Traceback" not in proc.stderr
    _, *rest = proc.stderr.strip().splitlines()  # the error, then what it cost: the earlier report
    assert rest == [f"note: the earlier {out / 'report.json'} was removed: a run that fails leaves no report"]
    assert visible_files(out) == ["error.json"], proc.stderr
    assert ledger.read_bytes() == before


def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_disk_that_fills_between_the_validation_and_the_report_leaves_no_half_pair(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _earlier_run(out)
    sizes = {name: (out / name).stat().st_size for name in ("validation.json", "report.json")}
    assert sizes["validation.json"] < sizes["report.json"]  # the limit below falls between them
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "score", str(EXAMPLE), "--out-dir", str(out), "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=lambda: _limit_file_size(sizes["validation.json"]),
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("evidence-rank: usage.unwritable: cannot write ")
    assert "report.json" in proc.stderr.splitlines()[0]
    assert visible_files(out) == ["error.json"]  # small enough to be written under the limit
    assert json.loads((out / "error.json").read_bytes())["code"] == "usage.unwritable"
    assert [p.name for p in out.iterdir() if p.name.endswith(".tmp")] == []


def test_a_disk_too_full_for_error_json_leaves_nothing_of_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _earlier_run(out)
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "score", str(EXAMPLE), "--out-dir", str(out), "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        preexec_fn=lambda: _limit_file_size(10),
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("evidence-rank: usage.unwritable: cannot write ")
    assert "validation.json" in proc.stderr.splitlines()[0]  # the run's own error, not error.json's
    assert visible_files(out) == []
