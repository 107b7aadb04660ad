"""What an agent's log holds once read (docs/transcripts.md): the sessions, their steps, and the
evidence each can support, with what was skipped and why.

A *step* is one tool call, numbered from 0 in the order its call was written: the trace's
``steps`` is their number (SPEC §1). An *observation* is one evidence item a curator may cite,
at a step, with the signal SPEC §1's table gives what it saw. Words: a *transcript* is one log
file, whatever its form; a *session* is one trace read from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Step", "Observation", "Session", "Transcript", "SKIP_REASONS", "FORMS", "MAX_SKIPPED_LINES"]

#: The forms a transcript is read in: a Claude Code session log, OTLP JSON spans.
FORMS = ("claude-code", "otlp-json")

#: Why a line or a record is skipped (docs/transcripts.md, "Skipped and counted"); each is counted.
SKIP_REASONS = (
    "not_json",
    "oversized_line",
    "not_a_record",
    "unknown_type",
    "malformed",
    "duplicate",
    "meta",
    "summary",
    "orphan_result",
    "no_step",
)

#: How many skipped lines a transcript names by number (the counts count them all).
MAX_SKIPPED_LINES = 100


@dataclass(frozen=True, slots=True)
class Step:
    """One tool call, as much of it as the evidence needs (nothing it read or wrote)."""

    index: int
    """0-based, in the order the calls were written in the session."""
    line: int
    """The 1-based line its outcome was read from (its call's line when it has no result)."""
    tool: str
    outcome: str
    """``succeeded``, ``failed``, or ``no_result`` (the log ends before its result)."""
    exit_status: int | None
    """A command's exit status, when the log gives one."""
    command: str | None
    """A command, redacted (docs/transcripts.md, "Redaction")."""
    path: str | None
    """The file it concerns, relative to the session's directory, when that is a SPEC PATH."""
    observed_at: str

    def to_json(self) -> dict[str, Any]:
        """The step as the trace's ``step_digests`` seal it."""
        return {
            "index": self.index,
            "line": self.line,
            "tool": self.tool,
            "outcome": self.outcome,
            "exit_status": self.exit_status,
            "command": self.command,
            "path": self.path,
        }


@dataclass(frozen=True, slots=True)
class Observation:
    """One evidence item a step can support (SPEC §1 Evidence, less its trace and digest)."""

    id: str
    step: int
    signal: str
    line: int
    observed_at: str
    path: str | None
    summary: str
    """``sha256:HEX line N: what`` (docs/transcripts.md, "Evidence"): at most 1,000 bytes."""


@dataclass(frozen=True, slots=True)
class Session:
    """One trace: a session, or one of its subagents (a sidechain)."""

    trace: str
    """The trace id: ``claude:SESSION``, ``claude:SESSION/agent-AGENT`` or ``otlp:CONVERSATION``."""
    session: str
    """The session it belongs to: its lineage, unless the caller names a task."""
    directory: str | None
    """The working directory the log names (Claude Code's ``cwd``)."""
    repository: str | None
    """The repository the log names (OTLP ``vcs.repository.name``); Claude Code names none."""
    revision: str | None
    """The revision the log names: Claude Code's ``gitBranch``, OTLP ``vcs.ref.head.revision``."""
    version: str | None
    """The version of the agent that wrote the log."""
    steps: tuple[Step, ...]
    observations: tuple[Observation, ...]


@dataclass(frozen=True, slots=True)
class Transcript:
    """One log file, read."""

    source: str
    """What the caller named it (a file name): shown, never read again."""
    form: str
    digest: str
    """``sha256:`` of every byte of the file."""
    lines: int
    sessions: tuple[Session, ...]
    skipped: Mapping[str, int] = field(default_factory=dict)
    """How many lines or records were skipped, by reason (:data:`SKIP_REASONS`)."""
    skipped_lines: tuple[tuple[int, str], ...] = ()
    """The first :data:`MAX_SKIPPED_LINES` skipped, as (line, reason)."""
    out_of_order: int = 0
    """How many records carry a timestamp earlier than the one before them in their session."""
