"""The ledger view: an admission ledger's decisions as a page (``evidence-rank ledger render``).

Pure: the entries are what :meth:`ranking.ledger.Ledger.export` yields, in its
order, which depends on the content alone (run, report digest, position); so
the same ledger content gives the same bytes however it was recorded or merged.
Reports carry no time (docs/ledger.md), so "over time" is that order: the runs
by their ids. The CLI verifies the ledger (``ledger verify``) before it calls
:func:`render_ledger`: a page never shows a tampered ledger as if it were real.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from curator_io.catalogue import INFORMATIONAL_CODES
from ranking.ledger.notes import outcome_words, refusals
from ranking.ledger.records import REFUSED, DecisionRow, Outcome
from ranking.pipeline.numbers import r2
from ranking.views.html.page import format_number, render_page

__all__ = ["render_ledger"]

_CHART_LABEL, _CHART_BAR, _CHART_ROW = 250, 320, 20


@dataclass(frozen=True, slots=True)
class RunRow:
    run: str
    decisions: int
    refused: int
    counts: tuple[int, ...]
    """One count per code of the page's ``codes``, in that order."""


@dataclass(frozen=True, slots=True)
class ChartLine:
    """One line of the chart: a run's heading (``code`` None) or one of its codes as a bar."""

    y: int
    run: str
    code: str | None = None
    count: int = 0
    width: str = "0"
    text_x: str = "0"


@dataclass(frozen=True, slots=True)
class FingerprintRow:
    fingerprint: str
    times: int
    latest: DecisionRow
    codes: tuple[str, ...]
    proposals: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    decision: DecisionRow
    outcome: Outcome
    what: str
    p_improve: str
    delta: str


def render_ledger(entries: Iterable[tuple[DecisionRow, Sequence[Outcome]]]) -> str:
    """The ledger view as one self-contained HTML page; ``entries`` as ``Ledger.export()`` yields them."""
    listed = [(d, tuple(o)) for d, o in entries]
    decisions = [d for d, _ in listed]
    runs = _runs(decisions)
    codes = [code for code, _ in sorted(_total(runs).items(), key=lambda kv: (-kv[1], kv[0]))]
    rows = [
        RunRow(run, sum(1 for d in decisions if d.run == run), refused, tuple(counts[c] for c in codes))
        for run, (refused, counts) in runs.items()
    ]
    chart = _chart(runs)
    return render_page(
        "ledger.html.j2",
        title=f"evidence-rank · ledger of {len(runs)} run{'' if len(runs) == 1 else 's'}",
        decisions=len(decisions),
        refused=sum(r.refused for r in rows),
        rows=rows,
        codes=codes,
        chart=chart,
        chart_size=(_CHART_LABEL + _CHART_BAR + 60, _CHART_ROW * len(chart) + 4),
        chart_label=_CHART_LABEL,
        fingerprints=_fingerprints(decisions),
        outcomes=_outcomes(listed),
    )


def _runs(decisions: Sequence[DecisionRow]) -> dict[str, tuple[int, Counter[str]]]:
    """For each run, in export order: how many of its decisions were refused, and by which codes."""
    runs: dict[str, tuple[int, Counter[str]]] = {}
    for d in decisions:
        refused, counts = runs.setdefault(d.run, (0, Counter()))
        if d.disposition in REFUSED:
            counts.update(set(d.distinct_codes) - INFORMATIONAL_CODES)
            runs[d.run] = (refused + 1, counts)
    return runs


def _total(runs: dict[str, tuple[int, Counter[str]]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for _, counts in runs.values():
        total += counts
    return total


def _chart(runs: dict[str, tuple[int, Counter[str]]]) -> list[ChartLine]:
    """Per run, a heading line then one bar per refusing code; the most frequent code anywhere is the longest."""
    most = max((n for _, counts in runs.values() for n in counts.values()), default=0)
    lines: list[ChartLine] = []
    for run, (_, counts) in runs.items():
        lines.append(ChartLine(len(lines) * _CHART_ROW, run))
        for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            width = r2(Fraction(_CHART_BAR * n, most))
            x = format_number(_CHART_LABEL + width + 6)
            lines.append(ChartLine(len(lines) * _CHART_ROW, run, code, n, format_number(width), x))
    return lines


def _fingerprints(decisions: Sequence[DecisionRow]) -> list[FingerprintRow]:
    """Every refused fingerprint, the most often refused first (then the most recently refused)."""
    seen: dict[str, dict[str, None]] = {}
    for d in decisions:
        if d.disposition in REFUSED and d.fingerprint is not None:
            seen.setdefault(d.fingerprint, {})[d.proposal] = None
    found = sorted(refusals(decisions), key=lambda r: -r.times)  # stable: ties stay most recent first
    return [FingerprintRow(r.fingerprint, r.times, r.latest, r.codes, tuple(seen[r.fingerprint])) for r in found]


def _outcomes(listed: Sequence[tuple[DecisionRow, tuple[Outcome, ...]]]) -> list[OutcomeRow]:
    """What agentdescent's acceptance test did with each diff a selected proposal backed."""
    return [
        OutcomeRow(
            d,
            o,
            *outcome_words(o),
        )
        for d, found in listed
        for o in found
    ]
