"""What both log readers share: a session drafted record by record, its steps and the
evidence each supports, and the skips counted (docs/transcripts.md, "Evidence").

Signals (SPEC §1's table): a command's exit status is ``deterministic``; any other tool's
outcome ``tool``; a person's message ``user``; an event the harness recorded (an
interruption, a system record) ``observable``; the model's last message in a session
``self_assessment``. A step whose log ends before its result supports nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from curator_io.errors import InputError
from curator_io.fitting import fit_text
from curator_io.grammar import instant_key, is_path
from curator_io.jsonio import parse_json
from curator_io.transcripts.model import MAX_SKIPPED_LINES, Observation, Session, Step
from curator_io.transcripts.redaction import redact

__all__ = ["Draft", "Skips", "MAX_SUMMARY_BYTES", "summary_of", "relative_path"]

_DRIVE = re.compile(r"[A-Za-z]:/")

MAX_SUMMARY_BYTES = 1000
"""SPEC §1: an evidence summary holds at most 1,000 bytes."""


@dataclass
class Skips:
    """What a reader skipped: counted by reason, the first lines named."""

    counts: Counter[str] = field(default_factory=Counter)
    lines: list[tuple[int, str]] = field(default_factory=list)

    def add(self, line: int, reason: str) -> None:
        self.counts[reason] += 1
        if len(self.lines) < MAX_SKIPPED_LINES:
            self.lines.append((line, reason))

    def record(self, line: int, raw: bytes | None) -> dict[str, Any] | None:
        """The line as a JSON object, as every reader takes one; None, counted, for a line held
        whole only past its bound (``oversized_line``), one that is not JSON (``not_json``), or one
        that is not an object (``not_a_record``)."""
        if raw is None:
            self.add(line, "oversized_line")
            return None
        try:
            value = parse_json(raw)
        except InputError:
            self.add(line, "not_json")
            return None
        if type(value) is not dict:
            self.add(line, "not_a_record")
            return None
        return value


@dataclass
class _Call:
    index: int
    line: int
    tool: str
    command: str | None
    path: str | None
    called_at: str
    outcome: str = "no_result"
    exit_status: int | None = None
    result_line: int | None = None
    observed_at: str | None = None


@dataclass
class Draft:
    """One session as its records are read, in file order."""

    trace: str
    session: str
    directory: str | None = None
    repository: str | None = None
    revision: str | None = None
    version: str | None = None
    calls: list[_Call] = field(default_factory=list)
    notes: list[tuple[int, str, str, str]] = field(default_factory=list)
    """Observations that are not a tool's outcome: (line, signal, observed_at, what)."""
    last_words: tuple[int, str] | None = None
    """The line and time of the model's last message."""
    latest: str | None = None
    out_of_order: int = 0

    def seen_at(self, timestamp: str) -> None:
        """Count a record whose time is earlier than the one before it in this session."""
        key = instant_key(timestamp)
        if self.latest is not None and key < self.latest:
            self.out_of_order += 1
        else:
            self.latest = key

    def call(self, line: int, tool: str, *, command: str | None, path: str | None, at: str) -> int:
        """A tool call: the next step; its index."""
        # Redacted as a command is (docs/transcripts.md, "Redaction"): a log's every text may hold one.
        written = None if path is None else redact(path)
        self.calls.append(_Call(len(self.calls), line, redact(tool), command, written, at))
        return len(self.calls) - 1

    def result(self, index: int, line: int, *, failed: bool, exit_status: int | None, at: str) -> None:
        """Step ``index``'s outcome, read at ``line``."""
        call = self.calls[index]
        call.outcome = "failed" if failed or (exit_status or 0) != 0 else "succeeded"
        call.exit_status, call.result_line, call.observed_at = exit_status, line, at

    def note(self, line: int, signal: str, at: str, what: str) -> None:
        self.notes.append((line, signal, at, what))

    def finish(self, digest: str) -> Session:
        """The session: its steps, and its observations in the order of their lines."""
        steps = tuple(
            Step(
                c.index,
                c.result_line or c.line,
                c.tool,
                c.outcome,
                c.exit_status,
                c.command,
                c.path,
                c.observed_at or c.called_at,
            )
            for c in self.calls
        )
        found: list[Observation] = []
        for step in steps:
            if step.outcome == "no_result":
                continue
            signal = "deterministic" if step.exit_status is not None else "tool"
            found.append(
                Observation(
                    f"{self.trace}:step{step.index}",
                    step.index,
                    signal,
                    step.line,
                    step.observed_at,
                    step.path,
                    summary_of(digest, step.line, _step_words(step)),
                )
            )
        notes = list(self.notes)
        if self.last_words is not None:
            line, at = self.last_words
            notes.append((line, "self_assessment", at, "the model's last message in the session"))
        call_lines = [c.line for c in self.calls]  # in file order, so sorted
        for line, signal, at, what in notes:
            index = max(0, bisect_left(call_lines, line) - 1)
            found.append(
                Observation(f"{self.trace}:line{line}", index, signal, line, at, None, summary_of(digest, line, what))
            )
        found.sort(key=lambda o: (o.line, o.id))
        return Session(
            self.trace, self.session, self.directory, self.repository, self.revision, self.version, steps, tuple(found)
        )


def _step_words(step: Step) -> str:
    """What a step did, in the words of its summary: ``Bash exited 1: make test``."""
    words = f"{step.tool} exited {step.exit_status}" if step.exit_status is not None else f"{step.tool} {step.outcome}"
    return f"{words}: {step.command}" if step.command is not None else words


def summary_of(digest: str, line: int, what: str) -> str:
    """``sha256:HEX line N: what``, cut to SPEC's 1,000 bytes (``…`` where cut)."""
    return fit_text(f"{digest} line {line}: {redact(what)}", MAX_SUMMARY_BYTES)


def relative_path(path: object, directory: str | None) -> str | None:
    """``path`` relative to ``directory`` when it is inside it and a SPEC PATH; else None. A Windows
    path (``C:\\src\\a.py``, ``\\\\server\\share``) is read with ``/`` for ``\\``."""
    if not isinstance(path, str):
        return None
    path = path.replace("\\", "/")
    if path.startswith("/") or _DRIVE.match(path):
        root = None if directory is None else directory.replace("\\", "/").rstrip("/")
        if root is None or not path.startswith(root + "/"):
            return None
        path = path[len(root) + 1 :]
    return path if is_path(path) else None
