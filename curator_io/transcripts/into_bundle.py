"""An agent's log recorded into a bundle (docs/transcripts.md, "Into a bundle"): what
:meth:`curator_io.BundleBuilder.transcript` does.

For each session of the transcript, in its order:

1. a materialization ``m:TRACE``: the caller's ``repository``, else the one the log names (a
   Claude Code log names none: ``ValueError``, a mistake in calling); the revision the caller gives,
   else the one the log names, else ``unknown``; ``incompatible`` (SPEC §3.5.1: its evidence is
   quarantined) when the log names another repository than ``repository``, or the session ran
   in a directory that is neither ``checkout`` nor under it (``checkout`` None: the directory
   of the first session this builder recorded);
2. a trace ``TRACE`` whose lineage is ``lineage`` (a task id), else the session's; its steps
   the tool calls, each as :meth:`Step.to_json` writes it, so ``step_digests`` seal each one;
3. one evidence item per observation, its summary naming the transcript's digest and line.

Nothing else of the log is written: no file contents, tool outputs or prompts, and each command
redacted (:mod:`curator_io.transcripts.redaction`) before it was read into a step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from curator_io.fitting import fit_text
from curator_io.transcripts.model import Observation, Session, Step, Transcript
from curator_io.transcripts.redaction import redact


class Recorder(Protocol):
    """What recording a transcript needs of a builder: :class:`curator_io.BundleBuilder` is one
    (a protocol, so that this module and the builder, which calls it, import neither the other)."""

    def first_checkout(self, directory: str | None) -> str | None: ...

    def materialization(self, id: str, *, repository: str, source_revision: str, status: str = ...) -> None: ...

    def trace(self, id: str, *, lineage: str, materialization: str, steps: Sequence[Any] | int) -> None: ...

    def evidence(
        self,
        id: str,
        *,
        trace: str,
        step: int,
        signal: str,
        observed_at: str,
        summary: str = ...,
        path: str | None = ...,
    ) -> None: ...


__all__ = ["RecordedSession", "record_transcript", "MAX_REVISION_BYTES"]

MAX_REVISION_BYTES = 100
"""SPEC §1: a materialization's ``source_revision`` holds 1-100 bytes."""


@dataclass(frozen=True, slots=True)
class RecordedSession:
    """One session as recorded: what a curator cites."""

    trace: str
    lineage: str
    materialization: str
    status: str
    """``compatible``, or ``incompatible`` when it ran elsewhere (step 1)."""
    steps: tuple[Step, ...]
    """Each step's index and outcome."""
    evidence: tuple[Observation, ...]
    """The evidence items recorded (``.id`` to cite), each with its step and signal."""


def record_transcript(
    builder: Recorder,
    transcript: Transcript,
    *,
    repository: str | None = None,
    revision: str | None = None,
    checkout: str | None = None,
    lineage: str | None = None,
) -> tuple[RecordedSession, ...]:
    """Record every session of ``transcript`` into ``builder`` (the steps above)."""
    recorded = []
    for session in transcript.sessions:
        if checkout is None:
            checkout = builder.first_checkout(session.directory)
        where = repository or session.repository
        if where is None:
            raise ValueError(f"session {session.trace!r}: its log names no repository; give repository=")
        status = _status(session, where, checkout)
        written = revision or (redact(session.revision) if session.revision else "unknown")
        materialization = f"m:{session.trace}"
        builder.materialization(  # 1
            materialization,
            repository=where,
            source_revision=fit_text(written, MAX_REVISION_BYTES),
            status=status,
        )
        line_of = lineage if lineage is not None else session.session
        builder.trace(  # 2
            session.trace,
            lineage=line_of,
            materialization=materialization,
            steps=[step.to_json() for step in session.steps],
        )
        for seen in session.observations:  # 3
            builder.evidence(
                seen.id,
                trace=session.trace,
                step=seen.step,
                signal=seen.signal,
                observed_at=seen.observed_at,
                summary=seen.summary,
                path=seen.path,
            )
        recorded.append(RecordedSession(session.trace, line_of, materialization, status, session.steps,
                                        session.observations))  # fmt: skip
    return tuple(recorded)


def _status(session: Session, repository: str, checkout: str | None) -> str:
    if session.repository is not None and session.repository != repository:
        return "incompatible"
    if checkout is None or session.directory is None:  # a log that names no directory names its repository
        return "compatible"
    root = checkout.rstrip("/")
    inside = session.directory.rstrip("/") == root or session.directory.startswith(root + "/")
    return "compatible" if inside else "incompatible"
