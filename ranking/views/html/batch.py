"""The batch view: a batch folder's ``summary.json`` and its reports as a page
(``evidence-rank render --batch DIR``).

It draws an accepted batch (:func:`ranking.checking.acceptance.accept_batch`: the
summary sealed, and each report it names accepted and saying what the summary says
of it), and checks nothing itself. The chart counts the reason codes that refuse: every code
on a refused proposal (:data:`~ranking.ledger.fate.REFUSED`: rejected, quarantined,
superseded), but the informational ones, as the ledger view counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from curator_io.catalogue import INFORMATIONAL_CODES
from curator_io.report_model import RankingReport, ReportCounts
from ranking.checking.acceptance import AcceptedBatch
from ranking.ledger.fate import REFUSED
from ranking.pipeline.numbers import r2
from ranking.running.batch import BundleSource
from ranking.running.batch_summary import BATCH_OUTCOMES
from ranking.views.html.page import format_number, render_page

__all__ = ["render_batch", "refusing_codes"]

_CHART_ROWS = 15
_CHART_LABEL, _CHART_BAR, _CHART_ROW = 250, 320, 22


@dataclass(frozen=True, slots=True)
class BundleRow:
    entry: Mapping[str, Any]
    source: str
    counts: ReportCounts | None
    link: str | None


@dataclass(frozen=True, slots=True)
class ChartBar:
    code: str
    count: int
    y: int
    width: str
    text_x: str
    """Where the count is written, just past the bar's end."""


def refusing_codes(report: RankingReport) -> Counter[str]:
    """How many refused proposals of ``report`` each reason code holds (the informational ones left out)."""
    return Counter(
        code
        for e in report.proposals
        if e.disposition in REFUSED
        for code in {r.code for r in e.reasons} - INFORMATIONAL_CODES
    )


def render_batch(batch: AcceptedBatch, *, links: Mapping[int, str] | None = None) -> str:
    """The batch view as one self-contained HTML page; ``links`` the address of each bundle's
    run view, relative to the page, by its ``index`` in the summary."""
    summary = batch.summary
    links = links or {}
    codes: Counter[str] = Counter()
    rows = []
    for e in summary["bundles"]:
        accepted = batch.reports.get(e["index"])
        if accepted is not None:
            codes += refusing_codes(accepted.report)
        source = BundleSource(e["source"]["file"], e["source"]["line"]).label
        rows.append(BundleRow(e, source, None if accepted is None else accepted.report.counts, links.get(e["index"])))
    errors = Counter(e["error"]["code"] for e in summary["bundles"] if e["error"] is not None)
    ranked = sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))
    return render_page(
        "batch.html.j2",
        title=f"evidence-rank · batch of {summary['counts']['bundles']}",
        summary=summary,
        rows=rows,
        codes=ranked,
        chart=_chart(ranked[:_CHART_ROWS]),
        chart_size=(_CHART_LABEL + _CHART_BAR + 60, _CHART_ROW * min(len(ranked), _CHART_ROWS) + 4),
        chart_label=_CHART_LABEL,
        errors=sorted(errors.items(), key=lambda kv: (-kv[1], kv[0])),
        outcomes=BATCH_OUTCOMES,
        num=format_number,
    )


def _chart(ranked: list[tuple[str, int]]) -> list[ChartBar]:
    """Horizontal bars, the most frequent code the longest (``_CHART_BAR`` wide)."""
    if not ranked:
        return []
    most = ranked[0][1]
    bars = []
    for i, (code, n) in enumerate(ranked):
        width = r2(Fraction(_CHART_BAR * n, most))
        bars.append(ChartBar(code, n, i * _CHART_ROW, format_number(width), format_number(_CHART_LABEL + width + 6)))
    return bars
