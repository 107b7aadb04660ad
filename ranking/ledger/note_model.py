"""What a curator's note is made of, and what it is made from (docs/ledger.md, "Notes for the
curator"): the kinds of note, the budget, the history a note reads, an edit's standing, and the
note itself. :mod:`ranking.ledger.feedback` makes the notes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Protocol

from ranking.ledger.records import DecisionRow

__all__ = [
    "RETRY",
    "DO_NOT_REPEAT",
    "ALREADY_IN_MEMORY",
    "LOOKALIKE",
    "KINDS",
    "Budget",
    "DEFAULT_BUDGET",
    "Facts",
    "History",
    "Standing",
    "NoteReason",
    "Resemblance",
    "PROSE_LINE",
    "Note",
]

RETRY: Final = "retry"
DO_NOT_REPEAT: Final = "do-not-repeat"
ALREADY_IN_MEMORY: Final = "already-in-memory"
LOOKALIKE: Final = "look-alike"
#: Every kind of note, in the order docs/ledger.md lists them.
KINDS: Final = (RETRY, DO_NOT_REPEAT, ALREADY_IN_MEMORY, LOOKALIKE)


@dataclass(frozen=True, slots=True)
class Budget:
    """How much of a prompt the notes may take (docs/ledger.md). ``None``: no bound."""

    per_lesson: int | None = 3
    """The most notes about one lesson's edits (GEPA's rejected-proposal memory keeps 3 per parent)."""
    notes: int | None = 10
    """The most notes in all."""
    note_bytes: int = 700
    """The most UTF-8 bytes of one note's line: operations past it are counted, not shown."""
    prompt_bytes: int | None = 4096
    """The most UTF-8 bytes of all the lines together: the most recent notes that fit."""

    def __post_init__(self) -> None:
        for name in ("per_lesson", "notes", "prompt_bytes"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(f"{name} must be a whole number of 1 or more, or None: {value!r}")
        if type(self.note_bytes) is not int or self.note_bytes < _MIN_NOTE_BYTES:
            raise ValueError(f"note_bytes must be a whole number of {_MIN_NOTE_BYTES} or more: {self.note_bytes!r}")


_MIN_NOTE_BYTES: Final = 80
#: The budget every host uses unless given another (docs/ledger.md).
DEFAULT_BUDGET: Final = Budget()


class Facts(NamedTuple):
    """What a note needs of a decision's report beyond its row: the entry's ``support``
    (SPEC §3.7; None when §3.5 did not run) and the report's ``config`` (SPEC §2)."""

    support: Mapping[str, Any] | None
    config: Mapping[str, Any]


class History(Protocol):
    """The decisions a curator's notes are made from, and what the notes look up in them.

    :class:`ranking.ledger.curator.Runs` holds reports in memory; :class:`ranking.ledger.curator.LedgerHistory`
    reads a ledger.
    """

    def decisions(self) -> Sequence[DecisionRow]:
        """Every decision, oldest first (the ledger's order: report, then position)."""
        ...

    def refused_by_test(self, report: str, fingerprint: str) -> bool:
        """Whether an acceptance test ran on this selected edit and committed none of its diffs."""
        ...

    def edit(self, fingerprint: str) -> Mapping[str, Any] | None:
        """The edit (SPEC §3.6's ``{"scope", "operations"}``) behind a fingerprint, when known."""
        ...

    def facts(self, decision: DecisionRow) -> Facts:
        """The decision's support and its report's config."""
        ...


@dataclass(frozen=True, slots=True)
class Standing:
    """What became of one edit (one fingerprint), as the decisions tell it."""

    fingerprint: str
    kind: str | None
    """The note it gets (:data:`KINDS`); None when it was admitted last."""
    decision: DecisionRow
    """The decision that speaks for it in the latest report that decided it."""
    times: int
    """In how many reports it was decided, since it was last admitted (all, if never)."""
    admitted: DecisionRow | None
    """The decision that admitted it last, if any."""
    latest: int
    """The position of its latest decision among all: a larger one is more recent."""


@dataclass(frozen=True, slots=True)
class NoteReason:
    """One reason a note gives: its code and subject (SPEC §3), its sentence, and what to do."""

    code: str
    subject: str | None
    sentence: str
    remedy: str | None

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "subject": self.subject, "sentence": self.sentence, "remedy": self.remedy}


#: How a note names a rule of a Markdown memory's prose it resembles: ``prose line 12``. No key
#: holds a space (SPEC §0's ID), so it is never an instruction's key.
PROSE_LINE: Final = "prose line "


class Resemblance(NamedTuple):
    """An instruction of the note's edit that resembles one of the current memory under another key."""

    key: str
    """The edit's key."""
    other: str
    """The memory instruction's key, or ``prose line N`` for a rule of the prose (:data:`PROSE_LINE`)."""
    text: str
    """The memory instruction's text, on one line (cut to 120 characters)."""
    score: float
    """``token_set_ratio`` of their words, 0-100 (docs/lookalikes.md)."""
    words: tuple[str, ...]
    """The words they share."""
    advice: str

    def sentence(self) -> str:
        said = json.dumps(self.text, ensure_ascii=False)
        other = self.other if self.other.startswith(PROSE_LINE) else repr(self.other)
        return f"It resembles {other} ({said}; shared words: {', '.join(self.words)}): {self.advice}."

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "other": self.other,
            "text": self.text,
            "score": self.score,
            "words": list(self.words),
            "advice": self.advice,
        }


@dataclass(frozen=True, slots=True)
class Note:
    """One note for a curator's next prompt: one edit, what became of it, what to do next."""

    kind: str
    fingerprint: str
    edit: str | None
    """The edit in words, as the line shows it; None when the edit is not known (named by ``proposal``)."""
    proposal: str
    """The id it was last proposed under."""
    run: str
    """The run that decided it last."""
    lesson: str | None
    disposition: str
    """Its final disposition in that run (SPEC §6)."""
    times: int
    """In how many runs it was decided since it was last admitted."""
    reasons: tuple[NoteReason, ...]
    more_reasons: int
    """Reasons left out of the note (at most three are given)."""
    winner: str | None
    """For a conflict: the edit that won, in words; None otherwise."""
    admitted: str | None
    """For an edit already in memory: the run that admitted it."""
    resembles: tuple[Resemblance, ...]
    """Its instructions' look-alikes in the current memory, when the host gave it."""
    line: str
    """The note as one line, at most the budget's ``note_bytes``."""

    def to_json(self) -> dict[str, Any]:
        """The note as ``ledger notes --format json`` writes it (docs/ledger.md)."""
        return {
            "kind": self.kind,
            "fingerprint": self.fingerprint,
            "edit": self.edit,
            "proposal": self.proposal,
            "run": self.run,
            "lesson": self.lesson,
            "disposition": self.disposition,
            "times": self.times,
            "reasons": [r.to_json() for r in self.reasons],
            "more_reasons": self.more_reasons,
            "winner": self.winner,
            "admitted": self.admitted,
            "resembles": [r.to_json() for r in self.resembles],
            "text": self.line,
        }
