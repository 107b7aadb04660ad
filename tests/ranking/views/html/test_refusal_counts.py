"""The batch view and the ledger view count refusals the same way (issue 27):
the reason codes of the proposals whose final disposition is *refused*
(:data:`ranking.ledger.fate.REFUSED`), the informational codes left out."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from curator_io.catalogue import DEFERRED, INFORMATIONAL_CODES, UNSELECTED
from curator_io.report_model import ranking_report_of
from ranking.ledger.fate import REFUSED
from ranking.ledger.records import decisions_of
from ranking.views.html.batch import refusing_codes
from ranking.views.html.ledger import _runs
from tests.conftest import PARITY

REPORTS = sorted(PARITY.glob("*/expected.report.json"))


def _report(path: Any) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_bytes())
    return report


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.parent.name)
def test_the_batch_view_and_the_ledger_view_count_the_same_refusals(path: Any) -> None:
    report = _report(path)
    runs = _runs(decisions_of(report))
    ledger = runs[report["run"]][1] if report["run"] in runs else Counter()
    assert refusing_codes(ranking_report_of(report)) == ledger


def test_codes_on_unselected_and_deferred_proposals_are_not_refusals() -> None:
    # Neither is refused (docs/ledger.md): both wait, and their curator is told to retry.
    seen: set[str] = set()
    for path in REPORTS:
        report = _report(path)
        counted = refusing_codes(ranking_report_of(report))
        for e in report["proposals"]:
            codes = {r["code"] for r in e["reasons"]}
            if e["disposition"] in REFUSED:
                assert codes - INFORMATIONAL_CODES <= set(counted)
            elif e["disposition"] in (UNSELECTED, DEFERRED):
                seen.add(e["disposition"])
                only_here = codes - {
                    r["code"] for x in report["proposals"] if x["disposition"] in REFUSED for r in x["reasons"]
                }
                assert not only_here & set(counted)
    assert seen == {UNSELECTED, DEFERRED}  # the corpus holds both, so the test can fail
