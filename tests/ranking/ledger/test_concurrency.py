"""Several processes write one ledger at once (parallel CI jobs, ``batch --workers``):
WAL and a busy timeout make each wait its turn, and no write is lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from curator_io import parse_json
from ranking.ledger import Ledger
from tests.conftest import PARITY, REPO

WRITERS = 4
#: A writer: each report accepted, then added, as ``ledger add`` does, in a process of its own.
WRITER = """
import sys
from ranking.checking.acceptance import accept
from ranking.ledger import Ledger
accepted = [accept(open(path, "rb").read()) for path in sys.argv[2:]]
with Ledger.open(sys.argv[1]) as ledger:
    for report in accepted:
        ledger.add_report(report)
"""


def test_four_concurrent_writers_into_a_new_ledger_are_all_recorded(tmp_path: Path) -> None:
    reports = sorted(PARITY.glob("*/expected.report.json"))
    groups = [reports[i::WRITERS] for i in range(WRITERS)]
    ledger = tmp_path / "ledger.db"  # does not exist yet: the four race to create it too

    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(ledger), *map(str, group)],
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
