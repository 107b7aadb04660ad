"""Closure (SPEC §3.2) and artifact integrity (§3.3): every reference resolves
in the frozen bundle, and every artifact in the closure is sealed."""

from __future__ import annotations

from curator_io.models import Instruction
from validator.context import Context
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = ["check_closure", "UNRESOLVED"]

#: Reasons after which §3.5 (support) does not run.
UNRESOLVED = frozenset(
    {"closure.unknown_lesson", "closure.unknown_evidence", "closure.unknown_trace", "closure.unknown_materialization"}
)


def check_closure(p: Proposal, ctx: Context) -> list[Reason]:
    """Every §3.2 and §3.3 reason of one structurally complete proposal.

    §3.3's verdict on each artifact in the closure was settled when the
    artifact was loaded (``integrity``); only a failing one adds a reason.
    """
    bundle = ctx.bundle
    reasons: list[Reason] = []

    lesson = bundle.lessons.get(p.lesson)
    if lesson is None:
        reasons.append(("closure.unknown_lesson", p.lesson))
    else:
        if lesson.integrity is not None:
            reasons.append((lesson.integrity, lesson.id))
        in_lesson = set(lesson.evidence)
        # Checked even for an ID that does not resolve to evidence.
        reasons.extend(("closure.outside_lesson", e) for e in p.support if e not in in_lesson)

    if p.contradict:
        contradicted = set(p.contradict)
        reasons.extend(("closure.conflicting_stance", e) for e in p.support if e in contradicted)

    evidence, traces, mats = bundle.evidence, bundle.traces, bundle.materializations
    for evidence_id in p.support + p.contradict:
        ev = evidence.get(evidence_id)
        if ev is None:
            reasons.append(("closure.unknown_evidence", evidence_id))
            continue
        if ev.integrity is not None:
            reasons.append((ev.integrity, ev.id))
        trace = traces.get(ev.trace)
        if trace is None:
            reasons.append(("closure.unknown_trace", ev.trace))
            continue
        if trace.integrity is not None:
            reasons.append((trace.integrity, trace.id))
        if ev.step >= trace.steps:
            reasons.append(("closure.step_out_of_range", ev.id))
        mat = mats.get(trace.materialization)
        if mat is None:
            reasons.append(("closure.unknown_materialization", trace.materialization))
        elif mat.integrity is not None:
            reasons.append((mat.integrity, mat.id))

    if p.base_memory_version != bundle.memory_version:
        reasons.append(("closure.stale_memory", None))
    reasons.extend(_operation_closure(p, ctx))
    return reasons


def _operation_closure(p: Proposal, ctx: Context) -> list[Reason]:
    reasons: list[Reason] = []
    memory = ctx.bundle.memory_instructions
    for op in p.operations:
        current: Instruction | None = memory.get(op.key)
        if op.action == "add":
            if current is not None or op.key in ctx.applicable_keys:
                reasons.append(("closure.key_exists", op.key))
            continue
        if current is None:
            reasons.append(("closure.unknown_instruction", op.key))
            continue
        if current.integrity is not None:
            reasons.append((current.integrity, current.key))
        if op.expected_digest != current.digest:
            reasons.append(("closure.stale_instruction", op.key))
    return reasons
