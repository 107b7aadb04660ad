"""Support (SPEC §3.5): quarantine, integrity, recurrence across lineages,
counterevidence, and the scope the evidence actually covers."""

from __future__ import annotations

from typing import NamedTuple

from curator_io.catalogue import SUPPORT_MEMBERS
from curator_io.grammar import instant_key
from curator_io.models import Evidence, Materialization, Scope, Trace
from validator.closure import UNVERIFIED, Cited
from validator.context import Context
from validator.members import json_object
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = [
    "QUARANTINED_STATUSES",
    "COMPATIBLE",
    "SupportFacts",
    "SupportSets",
    "support_sets",
    "check_support",
    "derive_scope",
]

QUARANTINED_STATUSES = frozenset({"incompatible", "invalid"})
"""§3.5.1: the materialization statuses that quarantine an evidence item; ``compatible`` is the other."""
COMPATIBLE = "compatible"
"""§3.5.1: the status that does not (for bundles written by code, as ranking.integrations.gepa_bundle's)."""


class SupportFacts(NamedTuple):
    """The §3.7 ``support`` member, and what §4 scores from."""

    lineages: int
    required: int
    strength: int
    contradiction: int
    verified: int
    quarantined: int
    earliest: str | None
    integrity_points: tuple[int, ...]
    """The §3.5.2 integrity points of each item of S' (§4 provenance)."""
    source_signal: int
    """The largest signal weight in V (0 when V is empty)."""
    materializations: int
    """M: distinct materializations of V's traces."""
    revisions: int
    """R: distinct (repository, source_revision) among them."""

    def to_json(self) -> dict[str, int | str | None]:
        return _SUPPORT(*self[:_REPORTED])


# The report's members are the first fields, in the same order.
_REPORTED = len(SUPPORT_MEMBERS)
assert SupportFacts._fields[:_REPORTED] == SUPPORT_MEMBERS
_SUPPORT = json_object(SUPPORT_MEMBERS)


class SupportSets(NamedTuple):
    """§3.5 steps 1-5 item by item: which cited items are in S', V and VC, and what steps 6-9
    and §4 read of them. :func:`check_support` goes on from it, and ``explain`` names the items."""

    quarantined: set[str]
    """1. The cited items (support and contradicting) whose materialization is quarantined."""
    support_quarantined: bool
    """1. Whether any of them is support."""
    s_prime: list[str]
    """1. S': the support not quarantined, in the proposal's order."""
    points: list[int]
    """2. The integrity points of each item of S'."""
    verified: list[str]
    """3. V: the items of S' with integrity points, in order."""
    best: dict[str, int]
    """4-5. Each lineage of V, with the largest signal weight in it."""
    counter: dict[str, int]
    """5. Each lineage of VC, with the largest signal weight in it."""
    revisions: dict[str, tuple[str, str]]
    """§4: each materialization of V's traces, with its (repository, source_revision)."""
    repositories: set[str]
    """9. The repositories of S'."""
    paths: list[str | None]
    """9. The paths of S'."""
    has_user: bool
    """7. Whether a ``user`` signal is in V."""
    earliest: str | None
    """The earliest ``observed_at`` of V, as written."""


def support_sets(p: Proposal, cited: list[Cited]) -> SupportSets:
    """§3.5 steps 1-5 for ``p``, whose every reference resolved: ``cited`` is its support then
    its contradicting evidence, as :func:`check_closure` resolved them.

    One pass over the support and one over the contradicting evidence; each
    step's result is gathered as its items go by, numbered as in §3.5.
    """
    quarantined: set[str] = set()
    s_prime: list[str] = []
    points: list[int] = []
    verified: list[str] = []
    best: dict[str, int] = {}
    revisions: dict[str, tuple[str, str]] = {}
    repositories: set[str] = set()
    paths: list[str | None] = []
    has_user = False
    earliest: tuple[str, str] | None = None  # (instant_key, as written) of V

    n_support = len(p.support)
    for evidence_id, item in zip(p.support, cited[:n_support], strict=True):
        if item.status in QUARANTINED_STATUSES:  # 1.
            quarantined.add(evidence_id)
            continue
        s_prime.append(evidence_id)
        points.append(item.points)  # 2.
        repositories.add(item.repository)
        paths.append(item.path)
        if item.points == UNVERIFIED:  # 3. not in V
            continue
        verified.append(evidence_id)
        current = best.get(item.lineage)  # 4-5.
        if current is None or item.weight > current:
            best[item.lineage] = item.weight
        has_user = has_user or item.signal == "user"
        revisions[item.materialization] = (item.repository, item.source_revision)
        stamp = (instant_key(item.observed_at), item.observed_at)
        if earliest is None or stamp < earliest:
            earliest = stamp
    support_quarantined = bool(quarantined)

    counter: dict[str, int] = {}  # 5.
    for evidence_id, item in zip(p.contradict, cited[n_support:], strict=True):
        if item.status in QUARANTINED_STATUSES:  # 1.
            quarantined.add(evidence_id)
            continue
        if item.points == UNVERIFIED:  # 3. not in VC
            continue
        current = counter.get(item.lineage)
        if current is None or item.weight > current:
            counter[item.lineage] = item.weight

    return SupportSets(
        quarantined,
        support_quarantined,
        s_prime,
        points,
        verified,
        best,
        counter,
        revisions,
        repositories,
        paths,
        has_user,
        None if earliest is None else earliest[1],
    )


def check_support(p: Proposal, cited: list[Cited], ctx: Context) -> tuple[list[Reason], SupportFacts]:
    """Runs only when every reference of ``p`` resolved (§3.5): ``cited`` is its
    support then its contradicting evidence, as :func:`check_closure` resolved them.
    Steps 1-5 are :func:`support_sets`; 6-9 are here, numbered as in §3.5.
    """
    sets = support_sets(p, cited)
    quarantined, best = sets.quarantined, sets.best
    reasons: list[Reason] = [("evidence.quarantined", e) for e in quarantined]
    n = len(best)
    ss = sum(best.values())
    cs = sum(sets.counter.values())

    # 6-7. Required lineages.
    c = ctx.config
    if sets.has_user:
        required = c.min_lineages_user
    elif p.scope.is_broad:
        required = c.min_lineages_broad
    else:
        required = c.min_lineages
    if n < required:
        if sets.support_quarantined:
            reasons.append(("support.quarantined", None))
        else:
            reasons.append(("support.insufficient_lineages", None))

    # 8. Counterevidence.
    if cs > 0 and cs >= ss:
        reasons.append(("support.counterevidence", None))

    # 9. Scope.
    if sets.points and p.scope != _evidenced_scope(sets.repositories, sets.paths):
        reasons.append(("scope.mismatch", None))

    facts = SupportFacts(
        lineages=n,
        required=required,
        strength=ss,
        contradiction=cs,
        verified=len(sets.verified),
        quarantined=len(quarantined),
        earliest=sets.earliest,
        integrity_points=tuple(sets.points),
        source_signal=max(best.values(), default=0),
        materializations=len(sets.revisions),
        revisions=len(set(sets.revisions.values())),
    )
    return reasons, facts


def derive_scope(items: list[tuple[Evidence, Trace, Materialization]]) -> Scope:
    """§3.5.9: the scope the evidence spans."""
    return _evidenced_scope({m.repository for _, _, m in items}, [ev.path for ev, _, _ in items])


def _evidenced_scope(repositories: set[str], paths: list[str | None]) -> Scope:
    """§3.5.9 from the repositories and the paths of a non-empty S'."""
    if len(repositories) >= 2:
        return Scope("global")
    (repository,) = repositories
    if None not in paths:
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
