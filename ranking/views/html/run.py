"""The run view: one ranking report as a page (``evidence-rank render REPORT``).

    verify -> rows (one per proposal) -> counts, reason codes -> template

It draws an accepted report (:func:`ranking.checking.acceptance.accept`: its SPEC §7
invariants, or with the bundle the replay), so a page never shows a tampered report
as if it were real, and checks nothing itself. Reason codes are spelled out with
``explain``'s sentences. With the bundle, a selected proposal whose added or replaced
text resembles an instruction under another key is marked, and its details list the
look-alikes: those of a report, as :mod:`ranking.advice.comparisons` chooses them for every
command (advice, not part of the report).

The score bar is drawn in points: the bar is 100 wide, each §4 component is as
wide as its value (their maxima add up to 100), and the contradiction penalty is
a hatched deduction laid over the end of the stack, so what is left solid ends
at ``final``. The threshold is a line across every bar.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from curator_io.catalogue import (
    COMPONENTS,
    DEFERRED,
    MAXIMA,
    PENALTY_MAXIMUM,
    QUARANTINED,
    REJECTED,
    SELECTED,
    SUPERSEDED,
    UNSELECTED,
)
from curator_io.models import Bundle, Scope
from curator_io.report_model import RankingReport, RankingReportEntry, ReportScore
from ranking.advice.comparisons import Report
from ranking.advice.lookalikes import IN_ALL, PER_TEXT, Lookalike, lookalikes_for
from ranking.checking.acceptance import Accepted, Replayed
from ranking.checking.explain import reason_sentence
from ranking.pipeline.numbers import r2
from ranking.views.html.page import exact, format_number, percent, render_page
from validator import Proposal, proposals_of

__all__ = ["COMPONENTS", "DISPOSITIONS", "render_report", "anchor"]

#: SPEC §6, final dispositions, from the one the Writer may apply to the one refused outright.
DISPOSITIONS = (SELECTED, UNSELECTED, SUPERSEDED, DEFERRED, QUARANTINED, REJECTED)


def anchor(proposal_id: str) -> str:
    """The element id of a proposal's row (IDs hold no space, so any is a valid HTML id)."""
    return f"proposal-{proposal_id}"


@dataclass(frozen=True, slots=True)
class ExplainedReason:
    code: str
    subject: str | None
    sentence: str


@dataclass(frozen=True, slots=True)
class Bar:
    style: str
    """Custom properties the stylesheet layers as the bar's background: ``--s`` the stacked
    components, ``--p`` the hatched deduction (one element per row: a page may hold 10,000)."""
    label: str


@dataclass(frozen=True, slots=True)
class Row:
    entry: RankingReportEntry
    reasons: tuple[ExplainedReason, ...]
    bar: Bar | None
    components: tuple[tuple[str, str, str], ...]
    """(name, points, maximum) for the details, the penalty last; empty when not scored."""
    proposal: Proposal | None
    """With the bundle: the proposal's operations and evidence."""
    lesson: str | None
    lookalikes: tuple[Lookalike, ...] = ()
    """With the bundle: its texts that resemble an instruction under another key."""

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def resembles(self) -> str:
        """The keys its look-alikes are under, for the mark in its reasons."""
        return ", ".join(sorted({f.other.key for f in self.lookalikes}))


def render_report(accepted: Accepted) -> str:
    """The run view of an accepted report as one self-contained HTML page; replayed from
    its bundle, the page also shows each proposal's lesson, operations and cited evidence.
    """
    proposals: Mapping[str, Proposal] = {}
    bundle: Bundle | None = None
    lookalikes: dict[str, list[Lookalike]] = {}
    left_out = 0
    if isinstance(accepted, Replayed):
        bundle = accepted.bundle
        proposals = proposals_of(bundle)
        shown = lookalikes_for(Report(bundle, accepted.report.selected, checked=proposals))
        left_out = shown.left_out
        for found in shown:
            lookalikes.setdefault(found.subject.proposal or "", []).append(found)
    model = accepted.report
    config = model.config
    members = config.to_json()
    by_id = {e.id: e for e in model.proposals}
    rows = [
        _row(e, members, proposals.get(e.id), bundle, tuple(lookalikes.get(e.id, ())))
        for e in _page_order(model, by_id)
    ]
    return render_page(
        "run.html.j2",
        title=f"evidence-rank · {model.run}",
        report=model,
        config=config,
        threshold=percent(config.threshold),
        dispositions=_disposition_counts(model),
        codes=_code_counts(model, members),
        rows=rows,
        lookalikes=sum(1 for row in rows if row.lookalikes),
        lookalikes_left_out=left_out,
        lookalikes_bounds=(PER_TEXT, IN_ALL),
        components=COMPONENTS,
        disposition_order={name: i for i, name in enumerate(DISPOSITIONS)},
        bundle=bundle,
        verified="replayed byte for byte from the bundle"
        if bundle is not None
        else "every SPEC §7 invariant holds (conflict_free needs the bundle)",
        anchor=anchor,
        num=format_number,
        scope=_scope,
    )


def _page_order(report: RankingReport, by_id: Mapping[str, RankingReportEntry]) -> list[RankingReportEntry]:
    """Ranked proposals in rank order, then the rest in report order (by id): readable without sorting."""
    ranked = set(report.ranking)
    return [by_id[pid] for pid in report.ranking] + [e for e in report.proposals if e.id not in ranked]


def _row(
    e: RankingReportEntry,
    config: Mapping[str, Any],
    p: Proposal | None,
    bundle: Bundle | None,
    lookalikes: tuple[Lookalike, ...],
) -> Row:
    reasons = tuple(ExplainedReason(r.code, r.subject, reason_sentence(r.code, r.subject, config)) for r in e.reasons)
    score = e.score
    lesson = (
        bundle.lessons[p.lesson].text if p is not None and bundle is not None and p.lesson in bundle.lessons else None
    )
    if score is None:
        return Row(e, reasons, None, (), p, lesson, lookalikes)
    components = tuple((name, format_number(getattr(score, name)), str(MAXIMA[name])) for name in COMPONENTS)
    components += (("contradiction_penalty", format_number(score.contradiction_penalty), str(PENALTY_MAXIMUM)),)
    return Row(e, reasons, _bar(score), components, p, lesson, lookalikes)


def _bar(score: ReportScore) -> Bar:
    parts = [(name, exact(getattr(score, name))) for name in COMPONENTS]
    stops, end = [], Fraction(0)
    for name, value in parts:
        if value > 0:
            end += value
            stops.append(f"var(--{name}) 0 {percent(end)}")
    stack = f"--s:linear-gradient(90deg,{','.join(stops)},transparent 0)"
    penalty = min(exact(score.contradiction_penalty), end)
    if penalty > 0:
        # background-position X% aligns the layer's X% with the box's X%: for a layer
        # W% wide to start at L%, X = L / (100 - W) (and any X when it fills the box).
        left, width = end - penalty, penalty
        x = Fraction(0) if width == 100 else r2(left * 100 / (100 - width))
        stack += f";--p:var(--hatch) {percent(x)} 0/{percent(width)} 100% no-repeat"
    label = ", ".join(f"{name} {format_number(v)}" for name, v in parts)
    label += f", minus contradiction_penalty {format_number(score.contradiction_penalty)}"
    label += f": final {format_number(score.final)}"
    return Bar(stack, label)


def _disposition_counts(report: RankingReport) -> list[tuple[str, int, str]]:
    """(disposition, count, share of all proposals as a CSS width)."""
    total = report.counts.proposals
    out = []
    for name in DISPOSITIONS:
        n = sum(1 for e in report.proposals if e.disposition == name)
        out.append((name, n, percent(r2(Fraction(100 * n, total))) if total else "0%"))
    return out


def _code_counts(report: RankingReport, config: Mapping[str, Any]) -> list[tuple[str, int, str]]:
    """Each reason code, how many proposals carry it and its sentence, naming the subjects it
    has in this report ("instruction a or b"): the most frequent first, then by code."""
    counts = Counter(code for e in report.proposals for code in {r.code for r in e.reasons})
    subjects: dict[str, set[str]] = {}
    for r in (r for e in report.proposals for r in e.reasons):
        if r.subject is not None:
            subjects.setdefault(r.code, set()).add(r.subject)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(code, n, reason_sentence(code, _either(subjects.get(code, set())), config)) for code, n in ranked]


def _either(subjects: set[str]) -> str | None:
    """``a``, ``a or b``, ``a, b or c``; None for a code that has no subject."""
    if not subjects:
        return None
    *rest, last = sorted(subjects)
    return f"{', '.join(rest)} or {last}" if rest else last


def _scope(scope: Scope) -> str:
    if scope.level == "global":
        return "global"
    return f"repository {scope.repository}" + (f", path {scope.path}" if scope.path is not None else "")
