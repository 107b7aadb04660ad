"""What a curator's note is made of (docs/ledger.md, "Notes for the curator"): the budget, an
edit's standing, the reasons a note gives, the note, and the notes a prompt gets with what the
budget left out. The kinds of note and what became of an edit are :mod:`ranking.ledger.fate`'s;
:mod:`ranking.ledger.notes.composing` makes the notes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ranking.ledger.fate import KIND, KINDS
from ranking.ledger.notes.current_memory import Resemblance
from ranking.ledger.records import DecisionRow

__all__ = [
    "Budget",
    "DEFAULT_BUDGET",
    "Standing",
    "NoteReason",
    "Resemblance",
    "Note",
    "Notes",
]


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
    carried: bool | None = None
    """For a retry note: whether the ledger's pool keeps its evidence and carries it into the next
    bundle (``ledger carry``); None where no pool is known, and for the other kinds."""

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
            "carried": self.carried,
        }


class Notes(tuple[Note, ...]):
    """The notes a prompt gets, the one to keep first first, and how many of each kind the budget
    left out (docs/ledger.md, "Order and budget"). A tuple of :class:`Note`, so a host that only
    iterates the notes needs nothing else."""

    left_out: Mapping[str, int]
    """By kind (every kind named, in :data:`~ranking.ledger.fate.KINDS`' order): the notes the budget
    had no room for."""

    def __new__(cls, notes: Iterable[Note] = (), left_out: Mapping[str, int] | None = None) -> Notes:
        made = super().__new__(cls, notes)
        made.left_out = {k.name: (left_out or {}).get(k.name, 0) for k in KINDS}
        return made

    def left_out_line(self) -> str | None:
        """``Left out for room: 2 'retry' notes and 1 'do not repeat as it is' note.``; None when nothing was."""
        parts = [f"{n} '{KIND[kind].head}' note{'' if n == 1 else 's'}" for kind, n in self.left_out.items() if n]
        if not parts:
            return None
        said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return f"Left out for room: {said}."

    def to_json(self) -> dict[str, Any]:
        """The notes as ``ledger notes --format json`` writes them (docs/ledger.md)."""
        return {"notes": [n.to_json() for n in self], "left_out": dict(self.left_out)}
