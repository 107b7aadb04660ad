"""Delta checks (SPEC §3.4): size, no-ops and duplicate instructions."""

from __future__ import annotations

from curator_io import grammar as g
from validator.context import Context
from validator.normalize import norm
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = ["check_delta"]


def check_delta(p: Proposal, ctx: Context) -> list[Reason]:
    reasons: list[Reason] = []
    if _oversized(p, ctx):
        reasons.append(("delta.oversized", None))

    memory = ctx.bundle.memory_instructions
    seen: dict[str, str] = {}  # norm -> the first key (ordinal) of this proposal with it
    for op in p.operations:  # sorted by key
        if op.text is None:
            continue
        n = norm(op.text)
        current = memory.get(op.key)
        if op.action == "replace" and current is not None:
            if n == ctx.memory_norms[op.key] and p.scope == current.scope:
                reasons.append(("delta.noop", op.key))
        if _duplicates_elsewhere(n, op.key, p, ctx):
            reasons.append(("instruction.duplicate", op.key))
        if n in seen:
            # Within one proposal the subject is the later key in ordinal order.
            reasons.append(("instruction.duplicate", op.key))
        else:
            seen[n] = op.key
    return reasons


def _oversized(p: Proposal, ctx: Context) -> bool:
    c = ctx.config
    if len(p.operations) > c.max_operations:
        return True
    sizes = [g.utf8_len(op.text) for op in p.operations if op.text is not None]
    return any(s > c.max_operation_bytes for s in sizes) or sum(sizes) > c.max_delta_bytes


def _duplicates_elsewhere(n: str, key: str, p: Proposal, ctx: Context) -> bool:
    """A memory instruction with another key, or an applicable one whose scope contains the proposal's."""
    keys = ctx.memory_keys_by_norm.get(n)
    if keys is not None and (len(keys) > 1 or key not in keys):
        return True
    return any(scope.contains(p.scope) for scope in ctx.applicable_scopes_by_norm.get(n, ()))
