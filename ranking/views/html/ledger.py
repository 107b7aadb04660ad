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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from curator_io.catalogue import INFORMATIONAL_CODES, REMEDIES, reason_meaning
from ranking.ledger.fate import ALREADY_IN_MEMORY, REFUSED, RETRY, WAITING, Decisions
from ranking.ledger.history import outcome_words
from ranking.ledger.notes.composing import standings
from ranking.ledger.notes.model import Standing
from ranking.ledger.notes.wording import describe_edit
from ranking.ledger.records import DecisionRow, Outcome
from ranking.pipeline.numbers import r2
from ranking.views.html.page import format_number, render_page
from validator.proposal import short_fingerprint

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
    """One refused edit: what it is, how often and how last it was refused, and what became of it."""

    fingerprint: str
    short: str
    edit: str
    """The edit in words (operation, key, text, scope); its latest rationale when the ledger lacks it."""
    times: int
    latest: DecisionRow
    """Its latest refusal."""
    codes: tuple[str, ...]
    proposals: tuple[str, ...]
    now: str
    """What became of it: ``admitted in RUN as ID`` when it was admitted after it was refused, else the note it gets."""


@dataclass(frozen=True, slots=True)
class CodeRow:
    code: str
    meaning: str
    remedy: str


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    decision: DecisionRow
    outcome: Outcome
    what: str
    p_improve: str
    delta: str


def render_ledger(
    entries: Iterable[tuple[DecisionRow, Sequence[Outcome]]], edits: Mapping[str, Mapping[str, Any]] | None = None
) -> str:
    """The ledger view as one self-contained HTML page; ``entries`` as ``Ledger.export()`` yields them,
    ``edits`` the edit behind each fingerprint the ledger knows (``Ledger.edits_of``)."""
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
        code_rows=[CodeRow(c, reason_meaning(c), REMEDIES.get(c) or "") for c in codes],
        fingerprints=_fingerprints(listed, edits or {}),
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


def _fingerprints(
    listed: Sequence[tuple[DecisionRow, tuple[Outcome, ...]]], edits: Mapping[str, Mapping[str, Any]]
) -> list[FingerprintRow]:
    """Every edit not admitted (refused, or told to retry), the most often first (then the most recently), with what
    became of it: admitted after its latest refusal, or the note a curator gets for it."""
    refused: dict[str, list[DecisionRow]] = {}
    seen: dict[str, dict[str, None]] = {}
    for d, _ in listed:
        if d.fingerprint is not None:
            seen.setdefault(d.fingerprint, {})[d.proposal] = None
            if d.disposition in REFUSED or d.disposition in WAITING:
                refused.setdefault(d.fingerprint, []).append(d)
    now = {s.fingerprint: s for s in standings(_history(listed))}
    rows = [
        FingerprintRow(
            fingerprint=f,
            short=short_fingerprint(f),
            edit=describe_edit(edits[f]) if f in edits else _argued(found[-1]),
            times=len(found),
            latest=found[-1],
            codes=found[-1].distinct_codes,
            proposals=tuple(seen[f]),
            now=_now(now[f], found[-1]),
        )
        for f, found in refused.items()
    ]
    order = {f: -s.latest for f, s in now.items()}
    return sorted(rows, key=lambda r: (-r.times, order[r.fingerprint]))


def _now(standing: Standing, refusal: DecisionRow) -> str:
    """What became of a refused edit: admitted after its latest refusal, or the note a curator gets."""
    admitted = standing.admitted
    if admitted is None:
        return "told to retry" if standing.kind == RETRY else "told not to repeat it as it is"
    where = f"in {admitted.run} as {admitted.proposal}"
    if standing.kind == ALREADY_IN_MEMORY:
        return f"already in memory: admitted {where}"
    return f"admitted {where}" if admitted.report == refusal.report else f"admitted later, {where}"


def _argued(d: DecisionRow) -> str:
    return f"proposal {d.proposal}" + (f": {d.rationale}" if d.rationale else "")


def _history(listed: Sequence[tuple[DecisionRow, tuple[Outcome, ...]]]) -> Decisions:
    """The page's decisions and their outcomes as the notes read them (their order is the page's)."""
    outcomes = [(d.report, d.fingerprint, o.category) for d, found in listed if d.fingerprint for o in found]
    return Decisions([d for d, _ in listed], outcomes)


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
