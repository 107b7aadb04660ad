"""Plain-language reasons for one proposal of a ranking report.

From the report alone: each reason code as a sentence, each score component
with the numbers the report carries (SPEC §4), the support summary (§3.5) and,
for a superseded proposal, what superseded it and why it ranks higher (§5).
With the bundle the report was computed from (replayed byte for byte, else
``report.tampered``): every cited evidence item with its trace, lineage,
materialization, signal and integrity; how each component was computed from
them; the operations; which key and member a conflict is about; and the
instructions under other keys that an added or replaced text resembles
(:mod:`ranking.advice.lookalikes`: advice, not part of any decision).

Explain states no rule of its own: the numbers are the report's, the validator's
(:func:`validator.support.support_sets`, the support facts) and the scoring's
(:mod:`ranking.pipeline.scoring`), and why one proposal ranks above another is the
first member of SPEC §5.2's ``order_key`` on which they differ.

Pure: the CLI reads the files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator_io.catalogue import (
    COMPONENTS,
    MAXIMA,
    PENALTY_MAXIMUM,
    RECURRENCE_PER_LINEAGE,
    SENTENCES,
    reason_meaning,
    reason_sentence,
)
from curator_io.errors import ConfigError
from curator_io.models import SIGNAL_WEIGHTS, Bundle, Scope
from curator_io.report_model import RankingReportEntry, ReportConfig, ReportSupport
from ranking.advice.comparisons import Explain
from ranking.advice.lookalikes import PER_TEXT, lookalikes_for
from ranking.checking.acceptance import Accepted, Replayed
from ranking.checking.verification import report_order_key
from ranking.pipeline import scoring
from ranking.pipeline.selection import operations_conflict
from validator import Proposal, ValidationEntry
from validator.closure import check_closure, integrity_points
from validator.context import Context, make_context
from validator.proposal import short_fingerprint
from validator.support import QUARANTINED_STATUSES, derive_scope, support_sets

__all__ = ["SENTENCES", "Section", "Explanation", "UnknownProposal", "explain", "reason_sentence", "reason_meaning"]

_RECURRENCE_MAXIMUM = MAXIMA["recurrence"]
_SIGNAL_OF_WEIGHT: dict[int | float, str] = {w: name for name, w in SIGNAL_WEIGHTS.items()}


class UnknownProposal(ConfigError):
    """PROPOSAL_ID is not in the report: a usage error."""

    def __init__(self, proposal_id: str, known: list[str]) -> None:
        self.known = known
        super().__init__("usage.unknown_proposal", f"no proposal {proposal_id!r} in the report")

    def diagnostics(self) -> str:
        shown = ", ".join(self.known[:20]) + (f", … ({len(self.known)} in all)" if len(self.known) > 20 else "")
        return f"the report's proposals: {shown}" if self.known else "the report has no proposals"


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Explanation:
    proposal: str
    headline: str
    sections: tuple[Section, ...]

    def render(self) -> list[str]:
        """The lines a terminal shows (the CLI escapes each as it prints it). Lines quote the
        bundle's texts (a rationale, an operation's text), each on one line (``repr``)."""
        out = [self.headline]
        for s in self.sections:
            out += ["", s.title, *(f"  {line}" for line in s.lines)]
        return out


def explain(accepted: Accepted, proposal_id: str, *, prose: tuple[tuple[int, str], ...] = ()) -> Explanation:
    """Why ``proposal_id`` got its disposition, in an accepted report
    (:func:`ranking.checking.acceptance.accept`).

    Without the bundle, acceptance held every SPEC §7 invariant the report alone can
    show: not only the entry's own, since its rank "of N eligible", what superseded it
    and what was selected ahead of it are true only if the partition, order and
    selection of the whole report hold. With the bundle, the report is the replay's own,
    and the replay's validation gives the evidence and operations: the bundle is
    validated once.
    """
    model = accepted.report
    found: dict[str, ValidationEntry] = {}
    bundle: Bundle | None = None
    ctx: Context | None = None
    if isinstance(accepted, Replayed):
        bundle = accepted.bundle
        found = {e.id: e for e in accepted.result.validation.entries}
        ctx = make_context(bundle, accepted.result.validation.config)
    entries = {p.id: p for p in model.proposals}
    entry = entries.get(proposal_id)
    if entry is None:
        raise UnknownProposal(proposal_id, sorted(entries))
    config = model.config
    members = config.to_json()
    sections = [
        Section(
            "Reasons",
            tuple(f"[{r.code}] {reason_sentence(r.code, r.subject, members)}" for r in entry.reasons),
        )
    ]
    if entry.superseded_by is not None:
        sections.append(_supersession(entry, entries[entry.superseded_by], found))
    if entry.disposition == "unselected":
        sections.append(
            Section("Selected ahead of it", tuple(f"{pid} (rank {entries[pid].rank})" for pid in model.selected))
        )
    v = found.get(proposal_id)
    if entry.score is not None:
        sections.append(_score(entry, config, v, ctx))
    if entry.support is not None:
        sections.append(_support(entry.support))
    if v is not None and v.proposal is not None and bundle is not None:
        sections.append(_evidence(v.proposal, bundle))
        sections.append(_operations(v.proposal, bundle))
        lookalikes = _lookalikes(proposal_id, bundle, found, prose)
        if lookalikes is not None:
            sections.append(lookalikes)
    if entry.rationale:
        sections.append(Section("Rationale (the curator's words; never part of a decision)", (repr(entry.rationale),)))
    if bundle is None:
        sections.append(
            Section("More", ("pass --bundle BUNDLE for the evidence, operations and conflicts behind this",))
        )
    return Explanation(proposal_id, _headline(entry, len(model.ranking)), tuple(sections))


def _headline(entry: RankingReportEntry, eligible: int) -> str:
    parts = [f"validation {entry.validation}"]
    if entry.rank is not None:
        parts.append(f"rank {entry.rank} of {eligible} eligible")
    if entry.score is not None:
        parts.append(f"final {_num(entry.score.final)}")
    if entry.fingerprint is not None:
        parts.append(f"fingerprint {short_fingerprint(entry.fingerprint)}")
    return f"{entry.id}: {entry.disposition} ({', '.join(parts)})"


def _num(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


# -- supersession (SPEC §5.3) ---------------------------------------------------------------


def _supersession(
    entry: RankingReportEntry, winner: RankingReportEntry, found: Mapping[str, ValidationEntry]
) -> Section:
    # Cannot fail: check_report (or the replay) holds a superseding proposal to be ranked, so scored.
    assert winner.score is not None
    lines = [
        f"Superseded by {winner.id} (rank {winner.rank}, final {_num(winner.score.final)}, {winner.disposition}).",
        _outranks(winner, entry),
    ]
    mine, theirs = found.get(entry.id), found.get(winner.id)
    duplicate = any(r.code == "rank.duplicate" for r in entry.reasons)
    if duplicate:
        lines.append(
            f"Both make the same edits in the same scope: the same fingerprint {entry.fingerprint} (SPEC §3.6)."
        )
    if mine is None or theirs is None or mine.proposal is None or theirs.proposal is None:
        if not duplicate:
            lines.append("Pass --bundle BUNDLE to see which key the two proposals disagree on.")
        return Section("Superseded", tuple(lines))
    a, b = mine.proposal, theirs.proposal
    if duplicate:
        differ = [
            n for n in ("lesson", "confidence", "rationale", "support", "contradict") if getattr(a, n) != getattr(b, n)
        ]
        lines.append(
            "They differ only in: "
            + (", ".join(differ) if differ else "their id")
            + " — none of which enters the fingerprint."
        )
    else:
        lines += _conflict_lines(a, b)
    return Section("Superseded", tuple(lines))


#: SPEC §5.2's order key, member by member: final score, lineages, earliest evidence, id.
_FINAL, _LINEAGES, _EARLIEST = 0, 1, 2


def _outranks(winner: RankingReportEntry, loser: RankingReportEntry) -> str:
    """SPEC §5.2: the first member of the order key (:func:`report_order_key`) on which the
    winner comes first."""
    # Cannot fail: both are ranked (a superseded proposal is not below the threshold, and what supersedes
    # it is an earlier survivor), so scored, with support.earliest (check_report's threshold and order).
    assert winner.score is not None and loser.score is not None
    assert winner.support is not None and loser.support is not None
    pairs = zip(report_order_key(winner), report_order_key(loser), strict=True)
    first = next((i for i, (w, lo) in enumerate(pairs) if w != lo), None)
    wf, lf = _num(winner.score.final), _num(loser.score.final)
    if first == _FINAL:
        return f"It ranks higher on final score: {wf} > {lf}."
    wl, ll = winner.support.lineages, loser.support.lineages
    if first == _LINEAGES:
        return f"Equal final score {wf}; it ranks higher on lineages: {wl} > {ll}."
    we, le = winner.support.earliest, loser.support.earliest
    if first == _EARLIEST:
        return f"Equal final score and lineages; its earliest verified evidence is earlier: {we} before {le}."
    return f"Equal final score, lineages and earliest evidence; its id sorts first: {winner.id} < {loser.id}."


def _conflict_lines(a: Proposal, b: Proposal) -> list[str]:
    theirs = {op.key: op for op in b.operations}
    lines = []
    for op in a.operations:
        other = theirs.get(op.key)
        if other is None or not operations_conflict(op, a.scope, other, b.scope):
            continue
        what = []
        if op.action != other.action:
            what.append(f"this proposal would {op.action} it, {b.id} would {other.action} it")
        if op.text is not None and other.text is not None and op.text != other.text:
            what.append(f"the texts differ ({_short(op.text)} vs {_short(other.text)})")
        if op.expected_digest != other.expected_digest and op.action == other.action:
            what.append("they expect different current digests")
        if a.scope != b.scope:
            what.append(f"the scopes differ ({_scope(a.scope)} vs {_scope(b.scope)})")
        lines.append(f"Key {op.key!r}: " + "; ".join(what) + ".")
    return lines


def _short(text: str | None, limit: int = 60) -> str:
    if text is None:
        return "no text"
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _scope(scope: Scope) -> str:
    if scope.level == "global":
        return "global"
    return f"repository {scope.repository}" + (f" path {scope.path}" if scope.path is not None else "")


# -- score and support (SPEC §3.5, §4) ------------------------------------------------------


def _score(entry: RankingReportEntry, config: ReportConfig, v: ValidationEntry | None, ctx: Context | None) -> Section:
    sc, s = entry.score, entry.support
    # Cannot fail: called for a scored entry, and a score has its support summary (check_report's components).
    assert sc is not None and s is not None
    how = {
        "recurrence": f"= min({_RECURRENCE_MAXIMUM}, {RECURRENCE_PER_LINEAGE} × {s.lineages} lineages)",
        "provenance": "= r2(mean integrity of the non-quarantined support: complete 20, prefix 12, unverified 0)",
        "source_signal": f"= the strongest verified signal: {_SIGNAL_OF_WEIGHT.get(sc.source_signal, '?')}",
        "scope_coverage": "= min(10, 5 × M materializations) + (5 if R ≥ 2 distinct repository@revision)",
        "confidence": "= r2(10 × confidence)",
        "completeness": "= 10 for every structurally complete proposal",
        "contradiction_penalty": "= 0: no verified counterevidence"
        if s.contradiction == 0
        else f"= r2({PENALTY_MAXIMUM} × {s.contradiction} counter-strength / {s.strength} strength)",
    }
    if v is not None and v.proposal is not None and v.support is not None and ctx is not None:
        how.update(_computed(v, ctx))
    names = (*COMPONENTS, "contradiction_penalty")
    width = max(len(n) for n in names)
    lines = [f"{n:<{width}}  {_num(getattr(sc, n)):>6}  {how[n]}" for n in names]
    total = " + ".join(_num(getattr(sc, n)) for n in COMPONENTS) + f" − {_num(sc.contradiction_penalty)}"
    lines.append(f"{'final':<{width}}  {_num(sc.final):>6}  = max(0, {total}); threshold {_num(config.threshold)}")
    return Section("Score (SPEC §4)", tuple(lines))


def _computed(v: ValidationEntry, ctx: Context) -> dict[str, str]:
    """The §4 arithmetic with the inputs named (only for an accepted, hence fully resolved, proposal):
    the items the validator put in S' and V (:func:`support_sets`, from the evidence as
    :func:`check_closure` resolves it), and the counts of its support facts."""
    p, facts = v.proposal, v.support
    assert p is not None and facts is not None  # Cannot fail: checked by the caller.
    _, cited = check_closure(p, ctx)
    assert cited is not None  # Cannot fail: an accepted proposal's every reference resolves.
    sets = support_sets(p, cited)
    weights = {e: item.weight for e, item in zip(p.support, cited[: len(p.support)], strict=True)}
    strongest = next(e for e in sets.verified if weights[e] == facts.source_signal)
    signal = ctx.bundle.evidence[strongest].signal
    points = " + ".join(map(str, facts.integrity_points))
    used = sorted(sets.revisions)
    revisions = sorted({f"{repository}@{revision}" for repository, revision in sets.revisions.values()})
    _, spanned = scoring.scope_coverage_terms(facts.materializations, facts.revisions)
    return {
        "recurrence": f"= min({_RECURRENCE_MAXIMUM}, {RECURRENCE_PER_LINEAGE} × {facts.lineages}): "
        f"lineages {', '.join(sorted(sets.best))}",
        "provenance": f"= r2(({points}) / {len(facts.integrity_points)}) over {', '.join(sets.s_prime)}",
        "source_signal": f"= {strongest}: {signal} (weight {facts.source_signal})",
        "scope_coverage": f"= min(10, 5 × {facts.materializations}) + {spanned}: {', '.join(used)}; "
        f"R = {facts.revisions} ({', '.join(revisions)})",
        "confidence": f"= r2(10 × {p.confidence!r})",
    }


def _support(s: ReportSupport) -> Section:
    return Section(
        "Support (SPEC §3.5)",
        (
            f"lineages {s.lineages} of {s.required} required (independent root tasks among verified support)",
            f"strength {s.strength} (support) vs contradiction {s.contradiction} (counterevidence)",
            f"verified items {s.verified}; quarantined items {s.quarantined}; earliest {s.earliest or '-'}",
        ),
    )


# -- the bundle's side -----------------------------------------------------------------------


def _evidence(p: Proposal, bundle: Bundle) -> Section:
    lines = []
    resolved = []
    for stance, ids in (("support", p.support), ("contradict", p.contradict)):
        for eid in ids:
            line, item = _evidence_line(stance, eid, bundle)
            lines.append(line)
            if item is not None and stance == "support":
                resolved.append(item)
    sound = [x for x in resolved if x[2].status not in QUARANTINED_STATUSES]
    if sound and len(resolved) == len(p.support):
        lines.append(f"evidenced scope {_scope(derive_scope(sound))}; proposal scope {_scope(p.scope)}")
    return Section("Evidence", tuple(lines))


def _evidence_line(stance: str, eid: str, bundle: Bundle) -> tuple[str, Any]:
    ev = bundle.evidence.get(eid)
    if ev is None:
        return f"{stance} {eid}: not in the bundle", None
    trace = bundle.traces.get(ev.trace)
    if trace is None:
        return f"{stance} {eid}: trace {ev.trace} is not in the bundle", None
    mat = bundle.materializations.get(trace.materialization)
    if mat is None:
        return f"{stance} {eid}: materialization {trace.materialization} is not in the bundle", None
    points = integrity_points(trace.completeness, ev.step, trace.verified_prefix)
    if trace.completeness == "complete":
        level = "complete trace: integrity complete (20)"
    elif points:
        level = f"step within the verified prefix {trace.verified_prefix}: integrity prefix (12)"
    else:
        level = f"step beyond the verified prefix {trace.verified_prefix}: integrity unverified (0), it does not count"
    if mat.status in QUARANTINED_STATUSES:
        level = f"quarantined (materialization {mat.status}): it influences nothing"
    return (
        f"{stance} {eid}: {ev.signal} (weight {SIGNAL_WEIGHTS[ev.signal]}), step {ev.step} of {trace.steps} in trace "
        f"{trace.id}, lineage {trace.lineage}, materialization {mat.id} {mat.repository}@{mat.source_revision} "
        f"({mat.status}); {level}",
        (ev, trace, mat),
    )


def _lookalikes(
    proposal_id: str, bundle: Bundle, entries: Mapping[str, ValidationEntry], prose: tuple[tuple[int, str], ...]
) -> Section | None:
    """Each added or replaced text that resembles an instruction under another key, or a rule of
    the prose (``prose``: a Markdown memory's, when given), and what to do."""
    checked = {pid: e.proposal for pid, e in entries.items() if e.proposal is not None}
    lines = []
    shown = lookalikes_for(Explain(bundle, proposal_id, checked=checked, prose=prose))
    for found in shown:
        s = found.subject
        lines.append(
            f"{s.action} {s.key} resembles {found.other.describe()} (score {found.score:g}; shared words: "
            f"{', '.join(found.words)}): {_short(found.other_text, 200)}"
        )
        lines.append(f"  {found.advice()}")
    if shown.left_out:
        lines.append(f"and {shown.left_out} more not listed (at most {PER_TEXT} a text: docs/lookalikes.md)")
    if not lines:
        return None
    return Section("Look-alikes under other keys (advice: SPEC decides duplicates and conflicts by key)", tuple(lines))


def _operations(p: Proposal, bundle: Bundle) -> Section:
    lines = [
        f"scope {_scope(p.scope)}; written against memory version {p.base_memory_version} "
        f"(the bundle's is {bundle.memory_version})"
    ]
    for op in p.operations:
        current = bundle.memory_instructions.get(op.key)
        now = f" (now {_short(current.text)})" if current is not None and op.action != "add" else ""
        lines.append(f"{op.action} {op.key}{now}" + (f": {_short(op.text)}" if op.text is not None else ""))
    return Section("Operations", tuple(lines))
