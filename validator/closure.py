"""Closure (SPEC §3.2) and the seals of the artifacts in it (§3.3): every reference resolves
in the frozen bundle, and every artifact in the closure is sealed. "Integrity" is §3.5.2's
points only (:func:`integrity_points`); §3.3's verdict on an artifact is its ``seal``."""

from __future__ import annotations

from typing import NamedTuple

from curator_io.models import SIGNAL_WEIGHTS, Instruction
from validator.context import Context
from validator.proposal import Proposal
from validator.reasons import Reason

__all__ = ["check_closure", "Cited", "integrity_points", "COMPLETE", "PREFIX", "UNVERIFIED"]

#: §3.5.2 integrity points.
COMPLETE, PREFIX, UNVERIFIED = 20, 12, 0


def integrity_points(completeness: str, step: int, verified_prefix: int) -> int:
    """§3.5.2: 20 for a complete trace, 12 within a partial trace's verified prefix, else 0."""
    if completeness == "complete":
        return COMPLETE
    return PREFIX if step < verified_prefix else UNVERIFIED


class Cited(NamedTuple):
    """One cited evidence item, resolved to what §3.5 and §4 read of it, its trace and its
    materialization."""

    status: str
    """Its materialization's status (§3.5.1)."""
    points: int
    """Its §3.5.2 integrity points: 20, 12 or 0."""
    repository: str
    path: str | None
    lineage: str
    weight: int
    """Its signal's weight (§1)."""
    signal: str
    materialization: str
    source_revision: str
    observed_at: str


def check_closure(p: Proposal, ctx: Context) -> tuple[list[Reason], list[Cited] | None]:
    """Every §3.2 and §3.3 reason of one structurally complete proposal, and
    its support then its contradicting evidence resolved: None when the lesson,
    an evidence item, a trace or a materialization does not resolve, for §3.5
    does not run then.

    §3.3's verdict on each artifact in the closure was settled when the
    artifact was loaded (``seal``); only a failing one adds a reason.
    """
    bundle = ctx.bundle
    reasons: list[Reason] = []

    cited: list[Cited] | None = []
    lesson = bundle.lessons.get(p.lesson)
    if lesson is None:
        reasons.append(("closure.unknown_lesson", p.lesson))
        cited = None
    else:
        if lesson.seal is not None:
            reasons.append((lesson.seal, lesson.id))
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
            cited = None
            continue
        if ev.seal is not None:
            reasons.append((ev.seal, evidence_id))
        trace = traces.get(ev.trace)
        if trace is None:
            reasons.append(("closure.unknown_trace", ev.trace))
            cited = None
            continue
        if trace.seal is not None:
            reasons.append((trace.seal, ev.trace))
        if ev.step >= trace.steps:
            reasons.append(("closure.step_out_of_range", evidence_id))
        mat = mats.get(trace.materialization)
        if mat is None:
            reasons.append(("closure.unknown_materialization", trace.materialization))
            cited = None
            continue
        if mat.seal is not None:
            reasons.append((mat.seal, trace.materialization))
        if cited is not None:
            # By name, through __new__: a class call first gathers its keywords into a dict, and
            # this runs once for every item every proposal cites.
            cited.append(
                Cited.__new__(
                    Cited,
                    status=mat.status,
                    points=integrity_points(trace.completeness, ev.step, trace.verified_prefix),
                    repository=mat.repository,
                    path=ev.path,
                    lineage=trace.lineage,
                    weight=SIGNAL_WEIGHTS[ev.signal],
                    signal=ev.signal,
                    materialization=trace.materialization,
                    source_revision=mat.source_revision,
                    observed_at=ev.observed_at,
                )
            )

    if p.base_memory_version != bundle.memory_version:
        reasons.append(("closure.stale_memory", None))
    reasons.extend(_operation_closure(p, ctx))
    return reasons, cited


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
        if current.seal is not None:
            reasons.append((current.seal, current.key))
        if op.expected_digest != current.digest:
            reasons.append(("closure.stale_instruction", op.key))
    return reasons
