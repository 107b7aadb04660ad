"""Decide whether a fused agentdescent diff is made only of selected proposals.

With ``n_workers > 1`` agentdescent's default fusion hands the acceptance stage
one diff built by ``agentdescent.aggregator.fuse_diffs``:
``Diff(diff_id="fused(a+b+…)", ops=<the parents' ops, one dict.update after
another>, author="aggregator")``, the parents' ids sorted. No single proposal
matches such a union, yet a union of *selected* proposals writes only what the
report permits: SPEC §5.3 makes selected proposals conflict-free, and §5.4
bounds how many there are.

Words used here, each with one meaning:

- a *parent* is one name inside ``fused(…)``; a nested ``fused(fused(a+b)+c)``
  has the parents ``a``, ``b`` and ``c``;
- a proposal is *whole* in a diff when every key of its op map is in the diff's
  op map with the same text (``None`` for a remove); otherwise the diff holds
  at most *part* of it;
- a fused diff is *backed* when its op map is exactly the union of the op maps
  of selected proposals that are whole in it.

agentdescent 0.7's own pipeline never fuses a fused diff again (the union is
measured and settled, never put back in the pool), but ``fuse_diffs`` is public
and a custom fusion policy may call it on its own output, so nested ids are
read too.

This module is pure: it reads a diff id, an op map and the report's entries. The
entry as a matcher sees it (:class:`RankedProposal`) is defined here, and
:mod:`ranking.integrations.agentdescent` takes it from here, so that neither
module imports the other back, not even for a type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["OpMap", "RankedProposal", "FusedVerdict", "is_fused", "judge_fused", "parent_names"]

OpMap = Mapping[str, str | None]
"""An edit as agentdescent's ``Diff.ops`` holds it: key -> text, ``None`` to remove
(agentdescent/evolution.py, ``EvolvingArtifact.apply``)."""


@dataclass(frozen=True)
class RankedProposal:
    """One entry of a verified ranking report, as a matcher sees it (SPEC §6)."""

    id: str
    disposition: str
    """The final disposition: ``selected``, ``superseded``, ``unselected``,
    ``deferred``, ``quarantined`` or ``rejected``."""
    codes: tuple[str, ...]
    """The reason codes, in report order, each once."""
    rationale: str
    lesson: str | None
    ops: OpMap | None = None
    """The proposal's edit as an op map, read from the bundle; ``None`` without
    a bundle, or for a proposal that is not structurally complete (SPEC §3.1)."""


_PREFIX, _SUFFIX = "fused(", ")"
_ABSENT = object()


@dataclass(frozen=True)
class FusedVerdict:
    """What a fused diff is made of, or the first reason it is not backed."""

    proposals: tuple[RankedProposal, ...]
    """The selected proposals the diff is made of, sorted by id; empty when refused."""
    refusal: str | None
    """Names the first offending parent or key; ``None`` when the diff is backed."""


def is_fused(diff_id: str) -> bool:
    """Whether ``diff_id`` has the shape ``fuse_diffs`` gives a union."""
    return diff_id.startswith(_PREFIX) and diff_id.endswith(_SUFFIX)


def parent_names(diff_id: str) -> tuple[str, ...] | None:
    """The parents a ``fused(…)`` id names, in id order, nested ids flattened.

    ``None`` when the id does not name them: it is not ``fused(…)``, or its
    parentheses do not balance, or a parent is empty. A proposal ID never holds
    ``+``, ``(`` or ``)`` (SPEC §2, ID), so a parent that names a proposal is
    read exactly.
    """
    if not is_fused(diff_id):
        return None
    parts = _split_top_level(diff_id[len(_PREFIX) : -len(_SUFFIX)])
    if parts is None:
        return None
    names: list[str] = []
    for part in parts:
        nested = parent_names(part) if is_fused(part) else (part,)
        if nested is None or "" in nested:
            return None
        names.extend(nested)
    return tuple(names)


def judge_fused(
    diff_id: str, ops: Mapping[str, str | None], proposals: Sequence[RankedProposal], run: str
) -> FusedVerdict:
    """Whether the fused diff ``diff_id`` writing ``ops`` is backed.

    1. Each parent that names a proposal must be selected and, when its op map
       is known, whole in ``ops``.
    2. Without op maps (the policy has no bundle) only names can be checked, as
       for a single diff: backed when every parent names a selected proposal.
    3. The keys no named parent accounts for are left to the parents that name
       no proposal (the default matcher would have matched each by its op map).
       They must be covered by selected proposals whole in ``ops``. When the id
       names no parent at all, that is every key.
    """
    by_id = {p.id: p for p in proposals}
    names = tuple(dict.fromkeys(parent_names(diff_id) or ()))
    # 1. Parents that name a proposal.
    named: list[RankedProposal] = []
    for name in names:
        p = by_id.get(name)
        if p is None:
            continue
        if p.disposition != "selected":
            return _refused(f"fused diff {diff_id} carries {_described(p)}")
        gap = _gap(p.ops, ops) if p.ops is not None else None
        if gap is not None:
            return _refused(f"fused diff {diff_id} carries part of {_described(p)}: {gap}")
        named.append(p)
    unnamed = [n for n in names if n not in by_id] if names else [diff_id]
    # 2. Names only.
    if not any(p.ops is not None for p in proposals):
        if not names:
            return _refused(f"no proposal of run {run} matched diff {diff_id}")
        if unnamed:
            return _refused(f"fused diff {diff_id}: no proposal of run {run} matched parent {unnamed[0]}")
        return _backed(named)
    # 3. The keys left to parents that name no proposal.
    covered = {key for p in named for key in p.ops or ()}
    left = sorted(set(ops) - covered)
    whole = [p for p in proposals if p.disposition == "selected" and p.ops and _gap(p.ops, ops) is None]
    extra = [p for p in whole if p not in named and not covered.issuperset(p.ops or ())] if unnamed else []
    uncovered = sorted(set(left) - {key for p in extra for key in p.ops or ()})
    if uncovered:
        return _refused(f"fused diff {diff_id} {_explained(uncovered[0], ops, proposals, run)}")
    if not named and not extra:
        return _refused(f"no proposal of run {run} matched diff {diff_id}")
    return _backed([*named, *extra])


def _split_top_level(text: str) -> list[str] | None:
    """Split at each ``+`` outside parentheses; ``None`` when they do not balance."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "+" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        return None
    parts.append(text[start:])
    return parts


def _gap(proposal_ops: OpMap, ops: Mapping[str, str | None]) -> str | None:
    """The first key, in ordinal order, on which ``ops`` does not carry the proposal's edit."""
    for key in sorted(proposal_ops):
        found = ops.get(key, _ABSENT)
        if found is _ABSENT:
            return f"key {key} is missing"
        if found != proposal_ops[key]:
            return f"key {key} is written differently"
    return None


def _explained(key: str, ops: Mapping[str, str | None], proposals: Sequence[RankedProposal], run: str) -> str:
    """Why ``key`` is not covered: the proposal whose edit it is, else the key alone.

    Selected proposals may share a key when their operations on it are
    identical (SPEC §5.3), so more than one proposal can write this edit; a
    whole one that is not selected explains it best, then a partial one.
    """
    writers = [p for p in proposals if p.ops is not None and p.ops.get(key, _ABSENT) == ops[key]]
    for p in writers:
        if p.disposition != "selected" and _gap(p.ops or {}, ops) is None:
            return f"carries {_described(p)}"
    for p in writers:
        gap = _gap(p.ops or {}, ops)
        if gap is not None:
            return f"carries part of {_described(p)}: {gap}"
    if writers:
        return f"writes key {key} of {_described(writers[0])}, which none of its parents names"
    return f"writes key {key}, an edit no proposal of run {run} makes"


def _described(p: RankedProposal) -> str:
    return f"{p.id} ({p.disposition}: {', '.join(p.codes)})"


def _refused(reason: str) -> FusedVerdict:
    return FusedVerdict((), reason)


def _backed(proposals: Sequence[RankedProposal]) -> FusedVerdict:
    return FusedVerdict(tuple(sorted(proposals, key=lambda p: p.id)), None)
