"""Several ``ledger add`` commands write one ledger at once (parallel CI jobs): each exits 0, and
no write is lost. The ledger's own rule is tests/ranking/ledger/test_concurrency.py's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from curator_io import parse_json
from ranking.ledger import Ledger
from tests.conftest import PARITY, REPO

WRITERS = 4


def test_four_concurrent_ledger_add_commands_into_a_new_ledger_all_succeed_and_are_recorded(tmp_path: Path) -> None:
    reports = sorted(PARITY.glob("*/expected.report.json"))
    groups = [reports[i::WRITERS] for i in range(WRITERS)]
    ledger = tmp_path / "ledger.db"  # does not exist yet: the four race to create it too

    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "ranking.cli", "ledger", "add", str(ledger), *map(str, group)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for group in groups
    ]
    results = [w.communicate(timeout=120) for w in writers]

    assert [w.returncode for w in writers] == [0] * WRITERS, [err.decode()[-500:] for _, err in results]
    expected = {parse_json(r.read_bytes())["digest"] for r in reports}
    with Ledger.open(ledger, create=False) as opened:
        stored = {d.report for d in opened.decisions()}
        (counts, findings) = opened.audit()
    with_proposals = {parse_json(r.read_bytes())["digest"] for r in reports if b'"proposals":[]' not in r.read_bytes()}
    assert stored == with_proposals
    assert counts[0] == len(expected)
    assert findings == []
