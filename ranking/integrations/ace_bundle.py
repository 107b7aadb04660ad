"""A window of ACE samples as a curator bundle (curator-bundle-v1, SPEC §1): pure, no ace import.

ACE's skill manager edits a skillbook of skills; :mod:`ranking.integrations.ace` stages
each sample's edits and, every window, hands them here to be written with
:class:`curator_io.BundleBuilder` (docs/ace.md has the table of which ACE fact feeds
which SPEC rule):

1. the live skillbook is the memory: one ``curated`` instruction per active skill, its
   key the skill's id, its text what the agent reads of it (:func:`text_of`), all with
   the scope ``repository`` (SPEC §3.5.9: support from one repository, no paths);
2. each sample is a trace in the lineage the caller's function names, of three
   steps: the outcome the caller observed, ACE's trace, the reflection. A step RFC 8785
   cannot write (a Python object) ends what the trace verifies, so its evidence has
   ``prefix`` integrity, not ``complete`` (SPEC §3.5.2); one materialization per lineage;
3. one evidence item per sample, at step 0, with the caller's signal;
4. a net edit (:class:`Edit`: an ADD, an UPDATE, a REMOVE, as the staged copy ends up)
   is an operation; the same edit from several samples is one proposal, supported by
   each sample's evidence, so recurrence counts lineages (SPEC §3.5.4). An ADD's key is
   its section and the digest of its text (:func:`add_key`), never the id the staged
   copy gave it: two samples' copies give the same ids to different skills.

Nothing here reads a clock: every timestamp is the caller's (:attr:`Observation.observed_at`,
:data:`EPOCH` by default), and the run id names the content.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from curator_io import Add, BundleBuilder, Remove, Replace, Scope, SealedBundle, digest, fit_text
from curator_io.grammar import instant_key, is_id, is_timestamp
from curator_io.models import SIGNAL_WEIGHTS
from validator import norm

__all__ = [
    "EPOCH",
    "Observation",
    "Edit",
    "Sample",
    "Pending",
    "text_of",
    "add_key",
    "lineage_id",
    "instruction_of",
    "instruction_digest",
    "gathered",
    "window_bundle",
]

EPOCH = "2000-01-01T00:00:00Z"
"""The default ``observed_at``: ACE gives no time, and a report has none (STYLE)."""

Action = Literal["add", "replace", "remove"]


@dataclass(frozen=True, slots=True)
class Observation:
    """What the caller's function says about one sample (docs/ace.md)."""

    lineage: str
    """The root task the sample belongs to: two samples are independent evidence only when
    their lineages differ (SPEC §1). Any text; one that is not a short ID is written as one."""
    signal: str = "self_assessment"
    """A SPEC §1 signal: ``deterministic`` where the task has a checked outcome (a test, an
    exact answer); by default the model's own assessment, which SPEC weighs least (3)."""
    summary: str = ""
    """What was observed, in a line (the evidence's ``summary``, cut to 1000 bytes)."""
    observed_at: str = EPOCH
    """When, a TIMESTAMP; the bundle's ``frozen_at`` is the latest of its samples'."""

    def __post_init__(self) -> None:
        # Refused here, where the caller's observe made it, not windows later inside ACE's pipeline.
        for name in ("lineage", "signal", "summary", "observed_at"):
            value = getattr(self, name)
            if type(value) is not str:
                raise TypeError(f"Observation.{name} must be a str, not {type(value).__name__}: {value!r}")
        if self.signal not in SIGNAL_WEIGHTS:
            raise ValueError(f"signal must be one of {', '.join(SIGNAL_WEIGHTS)}: {self.signal!r}")
        if not is_timestamp(self.observed_at):
            example = "2026-12-01T09:00:00Z"
            raise ValueError(f"observed_at must be a TIMESTAMP (RFC 3339 in UTC, {example}): {self.observed_at!r}")


@dataclass(frozen=True, slots=True)
class Edit:
    """One net edit of one sample's staged copy: what the skill manager's operations on one
    skill add up to."""

    action: Action
    key: str
    text: str | None
    """The skill's text as the agent reads it (:func:`text_of`); None for a remove."""
    expected_digest: str | None
    """The digest of the memory instruction the edit was made against; None for an add."""
    skill: Any
    """The staged skill as the edit leaves it (ACE's ``Skill``): what a selected edit writes."""
    source: Any = None
    """ACE's ``InsightSource`` of the edit: the live skill records it when the edit is written."""
    tags: tuple[int, ...] = ()
    """The TAG deltas the same sample gave the skill it added: they follow the ADD."""

    @property
    def same_as(self) -> tuple[Any, ...]:
        """Two edits are one proposal when this is equal: the same action on the same key, the
        same text up to SPEC's ``norm``, written against the same instruction."""
        return (self.action, self.key, None if self.text is None else norm(self.text), self.expected_digest)


@dataclass(frozen=True, slots=True)
class Sample:
    """One sample the gate saw: its trace, its outcome and its edits."""

    number: int
    """The gate's count of samples, from 1: the trace is ``tr-<number>``, its evidence ``ev-<number>``."""
    observation: Observation
    steps: tuple[Any, ...]
    """The trace's steps: the outcome, ACE's trace, the reflections."""
    lesson: str
    """What the reflection learned (its ``key_insight``)."""
    reasoning: str
    """The skill manager's own account of its edits."""
    edits: tuple[Edit, ...]

    @property
    def lineage(self) -> str:
        return lineage_id(self.observation.lineage)


@dataclass(frozen=True, slots=True)
class Pending:
    """One proposal waiting for a window: the same edit, from each sample that made it."""

    id: str
    edits: tuple[tuple[Sample, Edit], ...]
    windows: int
    """How many more windows rank it if it is deferred again (or left out by the limit)."""

    @property
    def edit(self) -> Edit:
        """The edit as the first sample made it: what is written when it is selected."""
        return self.edits[0][1]


def text_of(skill: Any) -> str:
    """A skill as the agent reads it: the lines ACE's ``Skillbook.as_prompt`` shows, without its id."""
    lines = [f"Keywords: {', '.join(skill.keywords)}", f"Issue: {skill.issue}"]
    if skill.insight:
        lines.append(f"Insight: {skill.insight}")
    return "\n".join(lines)


def add_key(section: str, text: str) -> str:
    """The key of a skill the gate adds: ``<section>.`` and 16 hex digits of the SHA-256 of
    ``norm(text)``. Never an id ACE generates (``context-00001``), so writing it cannot
    overwrite another skill, and the same text added again has the same key (SPEC §3.2
    ``closure.key_exists``)."""
    return f"{section}.{hashlib.sha256(norm(text).encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def lineage_id(name: str) -> str:
    """A lineage as an ID: ``name`` when it is an ID of at most 64 characters, else ``lin.``
    and 16 hex digits of the SHA-256 of its UTF-8 (so ``mat-<lineage>`` is an ID too)."""
    if len(name) <= 64 and is_id(name):
        return name
    return "lin." + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _scope(repository: str) -> Scope:
    return Scope("repository", repository)


def instruction_of(key: str, text: str, repository: str) -> dict[str, Any]:
    """The memory instruction a live skill is (SPEC §1), unsealed."""
    return {"key": key, "text": text, "scope": _scope(repository).to_json(), "origin": "curated"}


def instruction_digest(key: str, text: str, repository: str) -> str:
    """The digest of the memory instruction a live skill is (SPEC §3.2 ``expected_digest``)."""
    return digest(instruction_of(key, text, repository))


def gathered(
    pending: Sequence[Pending], samples: Sequence[Sample], *, windows: int, numbered: int
) -> tuple[list[Pending], int]:
    """``pending`` with each sample's edits added: to the proposal of the same edit, or as a
    new one, ``p-<n>`` from ``numbered`` on. Returns the proposals and the next number."""
    by_edit = {p.edit.same_as: p for p in pending}
    for sample in samples:
        for edit in sample.edits:
            found = by_edit.get(edit.same_as)
            if found is None:
                numbered += 1
                by_edit[edit.same_as] = Pending(f"p-{numbered}", ((sample, edit),), windows)
            else:
                by_edit[edit.same_as] = replace(found, edits=(*found.edits, (sample, edit)))
    return list(by_edit.values()), numbered


def window_bundle(
    memory: Sequence[tuple[str, str]], version: int, pending: Sequence[Pending], *, repository: str, curator: str
) -> SealedBundle:
    """The sealed bundle of one window: ``memory`` is the live skillbook as (key, text) pairs."""
    scope = _scope(repository)
    samples = sorted({s.number: s for p in pending for s, _ in p.edits}.values(), key=lambda s: s.number)
    stamps = [s.observation.observed_at for s in samples]
    latest = max(stamps, key=instant_key) if stamps else EPOCH
    b = BundleBuilder(memory_version=version, curator=curator, frozen_at=latest)
    for key, text in sorted(memory):
        b.memory_instruction(key, text, scope=scope)
    lineages = sorted({s.lineage for s in samples})
    for lineage in lineages:
        b.materialization(f"mat-{lineage}", repository=repository, source_revision=lineage)
    for s in samples:
        b.trace(f"tr-{s.number}", lineage=s.lineage, materialization=f"mat-{s.lineage}", steps=s.steps)
        b.evidence(
            f"ev-{s.number}",
            trace=f"tr-{s.number}",
            step=0,
            signal=s.observation.signal,
            observed_at=s.observation.observed_at,
            summary=fit_text(s.observation.summary, 1000),
        )
    for p in pending:
        support = [f"ev-{n}" for n in sorted({s.number for s, _ in p.edits})]
        first = p.edits[0][0]
        lesson = fit_text(first.lesson, 2000) or "(the reflection named no insight)"
        b.lesson(f"les-{p.id}", text=lesson, evidence=support)
        b.propose(
            p.id,
            lesson=f"les-{p.id}",
            scope=scope,
            # The share of the bundle's lineages whose samples made this edit.
            confidence=len({s.lineage for s, _ in p.edits}) / len(lineages),
            operations=[_operation(p.edit)],
            support=support,
            rationale=fit_text(first.reasoning, 2000),
        )
    return b.build_named("ace")


def _operation(edit: Edit) -> Add | Replace | Remove:
    if edit.action == "add":
        assert edit.text is not None  # Cannot fail: an add has a text.
        return Add(edit.key, edit.text)
    if edit.action == "replace":
        assert edit.text is not None  # Cannot fail: a replace has a text.
        return Replace(edit.key, edit.text, edit.expected_digest)
    return Remove(edit.key, edit.expected_digest)
