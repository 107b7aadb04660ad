"""Delta checks (SPEC §3.4): size, no-ops and duplicate instructions."""

from __future__ import annotations

from curator_io import grammar as g
from curator_io.models import Scope
from validator.context import Context
from validator.normalize import norm
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = ["check_delta"]


def check_delta(p: Proposal, ctx: Context) -> list[Reason]:
    reasons: list[Reason] = []
    c = ctx.config
    memory = ctx.bundle.memory_instructions
    oversized = len(p.operations) > c.max_operations
    total = 0  # the text bytes of all operations together
    seen: dict[str, str] = {}  # norm -> the first key (ordinal) of this proposal with it
    for op in p.operations:  # sorted by key
        if op.text is None:
            continue
        size = g.utf8_len(op.text)
        oversized = oversized or size > c.max_operation_bytes
        total += size
        n = norm(op.text)
        if op.action == "replace" and op.key in memory:
            if n == ctx.memory_norms[op.key] and p.scope == memory[op.key].scope:
                reasons.append(("delta.noop", op.key))
        if _duplicates_elsewhere(n, op.key, p.scope, ctx):
            reasons.append(("instruction.duplicate", op.key))
        if n in seen:
            # Within one proposal the subject is the later key in ordinal order.
            reasons.append(("instruction.duplicate", op.key))
        else:
            seen[n] = op.key
    if oversized or total > c.max_delta_bytes:
        reasons.append(("delta.oversized", None))
    return reasons


def _duplicates_elsewhere(n: str, key: str, scope: Scope, ctx: Context) -> bool:
    """A memory instruction with another key, or an applicable one whose scope contains the proposal's."""
    keys = ctx.memory_keys_by_norm.get(n)
    if keys is not None and (len(keys) > 1 or key not in keys):
        return True
    applicable = ctx.applicable_scopes_by_norm.get(n)
    return applicable is not None and any(other.contains(scope) for other in applicable)
