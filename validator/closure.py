"""Closure (SPEC §3.2) and artifact integrity (§3.3): every reference resolves
in the frozen bundle, and every artifact in the closure is sealed."""

from __future__ import annotations

from curator_io.models import Bundle, Evidence, Instruction, Integrity, Trace
from validator.context import Context
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = ["check_closure", "UNRESOLVED"]

#: Reasons after which §3.5 (support) does not run.
UNRESOLVED = frozenset(
    {"closure.unknown_lesson", "closure.unknown_evidence", "closure.unknown_trace", "closure.unknown_materialization"}
)


def check_closure(p: Proposal, ctx: Context) -> list[Reason]:
    """Every §3.2 and §3.3 reason of one structurally complete proposal."""
    bundle = ctx.bundle
    reasons: list[Reason] = []
    closure: list[tuple[Integrity, str]] = []  # (§3.3 verdict, subject) of each artifact in the closure

    lesson = bundle.lessons.get(p.lesson)
    if lesson is None:
        reasons.append(("closure.unknown_lesson", p.lesson))
    else:
        closure.append((lesson.integrity, lesson.id))
        in_lesson = set(lesson.evidence)
        # Checked even for an ID that does not resolve to evidence.
        reasons.extend(("closure.outside_lesson", e) for e in p.support if e not in in_lesson)

    contradicted = set(p.contradict)
    reasons.extend(("closure.conflicting_stance", e) for e in p.support if e in contradicted)

    for evidence_id in p.support + p.contradict:
        ev = bundle.evidence.get(evidence_id)
        if ev is None:
            reasons.append(("closure.unknown_evidence", evidence_id))
            continue
        closure.append((ev.integrity, ev.id))
        reasons.extend(_trace_closure(ev, bundle, closure))

    if p.base_memory_version != bundle.memory_version:
        reasons.append(("closure.stale_memory", None))
    reasons.extend(_operation_closure(p, ctx, closure))

    # §3.3: each verdict was settled when the artifact was loaded.
    reasons.extend((code, subject) for code, subject in closure if code is not None)
    return reasons


def _trace_closure(ev: Evidence, bundle: Bundle, closure: list[tuple[Integrity, str]]) -> list[Reason]:
    trace: Trace | None = bundle.traces.get(ev.trace)
    if trace is None:
        return [("closure.unknown_trace", ev.trace)]
    closure.append((trace.integrity, trace.id))
    reasons: list[Reason] = []
    if ev.step >= trace.steps:
        reasons.append(("closure.step_out_of_range", ev.id))
    mat = bundle.materializations.get(trace.materialization)
    if mat is None:
        reasons.append(("closure.unknown_materialization", trace.materialization))
    else:
        closure.append((mat.integrity, mat.id))
    return reasons


def _operation_closure(p: Proposal, ctx: Context, closure: list[tuple[Integrity, str]]) -> list[Reason]:
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
        closure.append((current.integrity, current.key))
        if op.expected_digest != current.digest:
            reasons.append(("closure.stale_instruction", op.key))
    return reasons
