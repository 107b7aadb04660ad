"""What a look-alike is (:mod:`ranking.advice.lookalikes` finds them): where a text is, the pair
with its score, shared words and relation, the bounded result with how many it left out, and
what to do about one (:func:`advice_for`, the one writer of the advice)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["WHERE", "Place", "Lookalike", "Lookalikes", "advice_for"]

#: Where a text can be, in the order results name them; ``prose``: a list item of a Markdown
#: memory's prose, a rule people left outside the managed section (never in a sealed report).
WHERE = ("proposal", "memory", "instructions", "memory-after", "prose")


@dataclass(frozen=True, slots=True)
class Place:
    """Where an instruction text is."""

    where: str
    """One of :data:`WHERE`: an operation of a proposal, the bundle's ``memory``, its
    applicable ``instructions``, or the memory written (the gate's memory-after)."""
    key: str
    proposal: str | None = None
    """For ``proposal``: the id of the proposal whose operation it is."""
    action: str | None = None
    """For ``proposal``: ``add`` or ``replace``; for ``memory-after``, what the write did to the
    bundle's memory (``add``, ``replace``: its text changed), or None when it kept it as it was."""
    line: int | None = None
    """For ``prose``: the 1-based line of the list item (its ``key`` is empty: prose has none)."""

    def describe(self) -> str:
        if self.where == "prose":
            return f"the prose's rule at line {self.line}"
        if self.where == "proposal":
            return f"{self.action} of {self.key!r} in {self.proposal}"
        shown = {"memory": "memory", "instructions": "applicable instruction", "memory-after": "instruction"}
        return f"{shown[self.where]} {self.key!r}"

    def to_json(self) -> dict[str, str | int | None]:
        out: dict[str, str | int | None] = {
            "where": self.where,
            "key": self.key,
            "proposal": self.proposal,
            "action": self.action,
        }
        return out | {"line": self.line} if self.where == "prose" else out

    def _order(self) -> tuple[int, str, str, str, int]:
        return (WHERE.index(self.where), self.key, self.proposal or "", self.action or "", self.line or 0)


@dataclass(frozen=True, slots=True)
class Lookalike:
    """One text that resembles another under another key: the pair, how alike, and why."""

    subject: Place
    """The text the advice is about: a proposal's ``add`` or ``replace``, or an instruction written."""
    other: Place
    """The instruction under another key that it resembles."""
    score: float
    """``token_set_ratio`` of their words, 0-100, rounded to one decimal; at least
    :data:`ranking.advice.lookalikes.THRESHOLD`."""
    words: tuple[str, ...]
    """The words they share, as the subject writes them (after ``norm``), in its order."""
    text: str
    other_text: str
    relation: str = "restates"
    """Whether the subject ``restates`` the other text or ``contradicts`` it
    (:func:`ranking.advice.relation.relation`)."""
    origin: str | None = None
    """The other text's origin (SPEC §1) when memory holds it (``user`` for a rule of the prose,
    which people wrote); None elsewhere. The advice reads it: a person's rule is not overwritten."""

    def advice(self) -> str:
        """What to do about it (:func:`advice_for`)."""
        return advice_for(self.subject, self.other, relation=self.relation, origin=self.origin)

    def to_json(self) -> dict[str, Any]:
        return {
            "subject": self.subject.to_json(),
            "other": self.other.to_json(),
            "score": self.score,
            "words": list(self.words),
            "text": self.text,
            "other_text": self.other_text,
            "relation": self.relation,
        }

    def _order(self) -> tuple[Any, ...]:
        return (self.subject._order(), -self.score, self.other._order(), self.text, self.other_text)


class Lookalikes(tuple[Lookalike, ...]):
    """The look-alikes kept within the bounds (``PER_TEXT``, ``IN_ALL`` of
    :mod:`ranking.advice.lookalikes`), sorted, and ``left_out``: how many more were found beyond them."""

    left_out: int

    def __new__(cls, found: Iterable[Lookalike] = (), left_out: int = 0) -> Lookalikes:
        kept = super().__new__(cls, found)
        kept.left_out = left_out
        return kept


def advice_for(subject: Place, other: Place, *, relation: str = "restates", origin: str | None = None) -> str:
    """What to do about ``subject`` resembling ``other``: the one sentence every output gives
    (``explain``, the run view, the gate, the notes). Each is an edit SPEC accepts as a proposal
    of its own (issue 53; docs/ledger.md, "Notes against the current memory"), for keys are
    identity (SPEC §3.4, §5.3):

    - a text memory holds already (``subject`` in ``memory-after``: written) is removed, never
      replaced with the other's text beside a remove of its key (``instruction.duplicate``:
      §3.4 counts the instruction a proposal removes);
    - one not written yet replaces the other key with its text instead (a replace of the other
      key is no duplicate, since the texts differ);
    - a rule a person gave (``origin`` ``user``) is replaced only by evidence as strong as theirs;
    - the prose is the people's: a curator says so in the lesson, people change it.
    """
    if subject.where == "prose":  # a person's prose beside a ranked instruction (no curated run)
        return "if it says the same, one of them can go; if it says otherwise, an agent reads both"
    contradicts = relation == "contradicts"
    if other.where == "prose":
        if contradicts:
            return (
                "the prose is the people's: do not add a rule against it; if the evidence shows it is wrong, say so "
                "in the lesson for people to change the prose"
            )
        return (
            "an agent reads both: if it updates that rule, say so in the lesson for people to change the prose; "
            "if it says the same, leave it out"
        )
    mine, theirs = repr(subject.key), repr(other.key)
    if other.where == "instructions":
        return f"{theirs} is already in force: leave this out if it says the same"
    if other.where == "proposal":
        return f"{other.proposal} proposes {theirs} too: one instruction, one key"
    written = subject.where == "memory-after"
    instead = f"instead of {'adding' if subject.action == 'add' else 'replacing'} {mine}"
    if contradicts and origin == "user":
        if written:
            return f"remove {mine} in a proposal of its own, unless a person's own correction shows {theirs} is wrong"
        return (
            "do not add a rule against it: a person's rule is replaced only by evidence at least as strong "
            f"(signal user, a person's correction); with such evidence, propose a replace of {theirs} with this "
            f"text {instead}"
        )
    if contradicts:
        if written:
            return (
                f"memory holds both: remove the one the evidence does not support ({mine} or {theirs}), "
                "in a proposal of its own"
            )
        return f"do not keep both: if the evidence shows {theirs} is wrong, replace {theirs} with this text {instead}"
    if written:
        return f"one instruction, one key: remove {theirs} or {mine}, in a proposal of its own"
    return f"if it updates {theirs}, replace {theirs} with this text {instead}"
