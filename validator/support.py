"""Support (SPEC §3.5): quarantine, integrity, recurrence across lineages,
counterevidence, and the scope the evidence actually covers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from curator_io.grammar import instant_key
from curator_io.models import SIGNAL_WEIGHTS, Evidence, Materialization, Scope, Trace
from validator.context import Context
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = ["SupportFacts", "check_support", "derive_scope"]

_QUARANTINED_STATUSES = frozenset({"incompatible", "invalid"})
#: §3.5.2 integrity points.
COMPLETE, PREFIX, UNVERIFIED = 20, 12, 0


@dataclass(frozen=True, slots=True)
class SupportFacts:
    """The §3.7 ``support`` member, and what §4 scores from."""

    lineages: int
    required: int
    strength: int
    contradiction: int
    verified: int
    quarantined: int
    earliest: str | None
    integrity_points: tuple[int, ...]
    """The integrity of each item of S' (§4 provenance)."""
    source_signal: int
    """The largest signal weight in V (0 when V is empty)."""
    materializations: int
    """M: distinct materializations of V's traces."""
    revisions: int
    """R: distinct (repository, source_revision) among them."""

    def to_json(self) -> dict[str, int | str | None]:
        return {
            "lineages": self.lineages,
            "required": self.required,
            "strength": self.strength,
            "contradiction": self.contradiction,
            "verified": self.verified,
            "quarantined": self.quarantined,
            "earliest": self.earliest,
        }


def integrity(ev: Evidence, trace: Trace) -> int:
    """§3.5.2: 20 for a complete trace, 12 within a partial trace's verified prefix, else 0."""
    if trace.completeness == "complete":
        return COMPLETE
    return PREFIX if ev.step < trace.verified_prefix else UNVERIFIED


def strength(items: Iterable[tuple[Evidence, Trace]]) -> int:
    """§3.5.5: per distinct lineage, the largest signal weight; summed."""
    best: dict[str, int] = {}
    for ev, trace in items:
        w = SIGNAL_WEIGHTS[ev.signal]
        if w > best.get(trace.lineage, 0):
            best[trace.lineage] = w
    return sum(best.values())


def check_support(p: Proposal, ctx: Context) -> tuple[list[Reason], SupportFacts]:
    """Runs only when every reference of ``p`` resolved (§3.5)."""
    b = ctx.bundle
    reasons: list[Reason] = []

    def resolve(evidence_id: str) -> tuple[Evidence, Trace, Materialization]:
        # Cannot fail: §3.5 runs only when every reference resolved.
        ev = b.evidence[evidence_id]
        trace = b.traces[ev.trace]
        return ev, trace, b.materializations[trace.materialization]

    # 1. Quarantine.
    support = [resolve(e) for e in p.support]
    contra = [resolve(e) for e in p.contradict]
    quarantined = {ev.id for ev, _, mat in support + contra if mat.status in _QUARANTINED_STATUSES}
    reasons.extend(("evidence.quarantined", e) for e in quarantined)
    s_prime = [x for x in support if x[0].id not in quarantined]
    c_prime = [x for x in contra if x[0].id not in quarantined]

    # 2-3. Integrity; verified support V and counter-support VC.
    points = tuple(integrity(ev, t) for ev, t, _ in s_prime)
    v = [x for x, pts in zip(s_prime, points, strict=True) if pts > 0]
    vc = [x for x in c_prime if integrity(x[0], x[1]) > 0]

    # 4-5. Lineages and strength.
    n = len({t.lineage for _, t, _ in v})
    ss = strength((ev, t) for ev, t, _ in v)
    cs = strength((ev, t) for ev, t, _ in vc)

    # 6-7. Required lineages.
    c = ctx.config
    if any(ev.signal == "user" for ev, _, _ in v):
        required = c.min_lineages_user
    elif p.scope.is_broad:
        required = c.min_lineages_broad
    else:
        required = c.min_lineages
    if n < required:
        if any(ev.id in quarantined for ev, _, _ in support):
            reasons.append(("support.quarantined", None))
        else:
            reasons.append(("support.insufficient_lineages", None))

    # 8. Counterevidence.
    if cs > 0 and cs >= ss:
        reasons.append(("support.counterevidence", None))

    # 9. Scope.
    if s_prime and p.scope != derive_scope(s_prime):
        reasons.append(("scope.mismatch", None))

    mats = {m.id: m for _, _, m in v}
    facts = SupportFacts(
        lineages=n,
        required=required,
        strength=ss,
        contradiction=cs,
        verified=len(v),
        quarantined=len(quarantined),
        earliest=min((ev.observed_at for ev, _, _ in v), key=lambda ts: (instant_key(ts), ts), default=None),
        integrity_points=points,
        source_signal=max((SIGNAL_WEIGHTS[ev.signal] for ev, _, _ in v), default=0),
        materializations=len(mats),
        revisions=len({(m.repository, m.source_revision) for m in mats.values()}),
    )
    return reasons, facts


def derive_scope(items: list[tuple[Evidence, Trace, Materialization]]) -> Scope:
    """§3.5.9: the scope the evidence spans."""
    repositories = {m.repository for _, _, m in items}
    if len(repositories) >= 2:
        return Scope("global")
    (repository,) = repositories
    paths = [ev.path for ev, _, _ in items]
    if all(path is not None for path in paths):
        prefix = _common_segments([path.split("/") for path in paths if path is not None])
        if prefix:
            return Scope("path", repository, "/".join(prefix))
    return Scope("repository", repository)


def _common_segments(split_paths: list[list[str]]) -> list[str]:
    first = split_paths[0]
    length = len(first)
    for segments in split_paths[1:]:
        length = min(length, len(segments))
        for i in range(length):
            if segments[i] != first[i]:
                length = i
                break
    return first[:length]
