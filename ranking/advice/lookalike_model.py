"""What a look-alike is (:mod:`ranking.advice.lookalikes` finds them): where a text is, the pair
with its score, shared words and relation, and the bounded result with how many it left out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["WHERE", "Place", "Lookalike", "Lookalikes"]

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

    def advice(self) -> str:
        """What a curator or reviewer might do about it: keys are identity (SPEC §3.4, §5.3)."""
        other = repr(self.other.key)
        if self.other.where == "prose":
            return (
                f"an agent reads both: if this updates that rule, people change or remove line {self.other.line} "
                "in a reviewed pull request; if it says the same, leave this out"
            )
        if self.other.where == "instructions":
            return f"{other} is already in force: leave this out if it says the same"
        if self.other.where == "proposal":
            return f"{self.other.proposal} proposes {other} too: one instruction, one key"
        if self.subject.action == "replace":
            return f"if both say the same, remove one; if it updates {other}, replace {other} instead"
        return f"if it updates {other}, replace {other} instead of adding {self.subject.key!r}"

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
