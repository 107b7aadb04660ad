"""What the current memory says of an edit a note is about (docs/ledger.md, "Notes against the
current memory"): whether it already holds the edit's effect, and which of its instructions
under other keys the edit resembles or contradicts, with the advice a curator can follow
literally (SPEC must not refuse the edit the advice describes, issue 53).

Pure: a memory object (SPEC §1) in, facts out. :mod:`ranking.ledger.notes.composing` composes the notes.

**The effect held.** An edit's effect is in memory when every operation's is: an ``add`` or
``replace`` whose text (SPEC §0's ``norm``) an instruction holds under any key whose scope contains
the edit's (SPEC §1), and a ``remove`` whose key memory does not hold. Whichever edit wrote it.

**The look-alikes and the advice**: which texts are compared is
:class:`ranking.advice.comparisons.Notes`'s, and the advice for each is
:func:`ranking.advice.lookalike_model.advice_for`'s, the sentence ``explain`` and the gate give for
the same pair: each an edit SPEC accepts as a proposal of its own. An edit not written is told to
replace the other key with its text instead; one written, to remove one of the two; a person's rule
(origin ``user``) is replaced only by evidence as strong as theirs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from curator_io.kinds import parse_scope
from curator_io.models import Scope
from ranking.advice.comparisons import Notes
from ranking.ledger.notes.wording import EDIT_TEXT_CHARS, one_line
from validator import norm

if TYPE_CHECKING:
    from ranking.advice.lookalike_model import Lookalike

__all__ = ["PROSE_LINE", "Held", "MemoryFacts", "Resemblance", "memory_facts"]

#: The reasons a proposal gets when memory already held what it proposed (SPEC §3.2, §3.4).
ALREADY_THERE_CODES: Final = frozenset(
    {"delta.noop", "instruction.duplicate", "closure.key_exists", "closure.unknown_instruction"}
)
USER: Final = "user"
#: How a note names a rule of a Markdown memory's prose it resembles: ``prose line 12``. No key
#: holds a space (SPEC §0's ID), so it is never an instruction's key.
PROSE_LINE: Final = "prose line "


class Held(NamedTuple):
    """A memory instruction, as the notes read it."""

    key: str
    text: str
    scope: Scope | None
    """None for a scope that is not SPEC's (the memory was checked where it was read)."""
    origin: str | None


class Resemblance(NamedTuple):
    """An instruction of the note's edit that resembles, or contradicts, one of the current memory
    under another key."""

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
    relation: str = "restates"
    """``restates`` or ``contradicts`` (docs/lookalikes.md)."""
    origin: str | None = None
    """The memory instruction's origin (SPEC §1); ``user`` for a rule of the prose (people wrote it)."""

    @property
    def contradicts(self) -> bool:
        return self.relation == "contradicts"

    def sentence(self) -> str:
        said = json.dumps(self.text, ensure_ascii=False)
        verb = "contradicts" if self.contradicts else "resembles"
        by = ", a rule a person gave" if self.contradicts and self.origin == USER else ""
        other = self.other if self.other.startswith(PROSE_LINE) else repr(self.other)
        return f"It {verb} {other} ({said}{by}; shared words: {', '.join(self.words)}): {self.advice}."

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "other": self.other,
            "text": self.text,
            "score": self.score,
            "words": list(self.words),
            "advice": self.advice,
            "relation": self.relation,
            "origin": self.origin,
        }


class MemoryFacts(NamedTuple):
    """The current memory, as the notes read it: its instructions by key, its version, and the rules
    a Markdown memory's prose holds ((line, text), 1-based)."""

    instructions: Mapping[str, Held]
    version: int | None
    prose: tuple[tuple[int, str], ...] = ()

    def holds_effect(self, edit: Mapping[str, Any]) -> bool:
        """Whether memory holds what ``edit`` asks for, whichever edit wrote it (module docstring)."""
        scope = _scope(edit.get("scope"))
        ops = edit.get("operations") or ()
        return bool(ops) and scope is not None and all(self._holds(op, scope) for op in ops)

    def _holds(self, op: Mapping[str, Any], scope: Scope) -> bool:
        if op.get("action") == "remove":
            return op.get("key") not in self.instructions
        wanted = norm(str(op.get("text", "")))
        return any(
            held.scope is not None and held.scope.contains(scope) and norm(held.text) == wanted
            for held in self.instructions.values()
        )

    def resemblances(self, edit: Mapping[str, Any], *, admitted: bool) -> tuple[Resemblance, ...]:
        """Each ``add`` or ``replace`` of ``edit`` whose text resembles or contradicts an instruction
        of the memory under a key the edit does not touch (for an ``admitted`` edit, only what
        memory holds as it wrote it: :class:`ranking.advice.comparisons.Notes`), the strongest
        first: contradictions of a person's rule, other contradictions, then by score."""
        if not self.instructions and not self.prose:
            return ()
        from ranking.advice.lookalikes import lookalikes_for

        found = lookalikes_for(Notes(edit, self.instructions, self.prose, admitted=admitted))
        return tuple(sorted((_resemblance(f) for f in found), key=_strength))


def _resemblance(found: Lookalike) -> Resemblance:
    other = found.other.key if found.other.where != "prose" else f"{PROSE_LINE}{found.other.line}"
    shown = one_line(found.other_text, EDIT_TEXT_CHARS)
    return Resemblance(
        found.subject.key, other, shown, found.score, found.words, found.advice(), found.relation, found.origin
    )


def _strength(r: Resemblance) -> tuple[int, float, str, str]:
    return (0 if r.contradicts and r.origin == USER else 1 if r.contradicts else 2, -r.score, r.key, r.other)


def memory_facts(memory: Mapping[str, Any] | None, prose: Iterable[tuple[int, str]] = ()) -> MemoryFacts | None:
    """The current memory object (SPEC §1) as the notes read it, with the rules of its prose when it
    is a Markdown memory's; None without one. An item that is not an instruction's shape is passed
    over (the memory was checked where it was read)."""
    if memory is None:
        return None
    items = memory.get("instructions")
    version = memory.get("version")
    held: dict[str, Held] = {}
    for item in items if type(items) is list else ():
        if type(item) is dict and type(item.get("key")) is str and type(item.get("text")) is str:
            origin = item.get("origin")
            held[item["key"]] = Held(
                item["key"], item["text"], _scope(item.get("scope")), origin if type(origin) is str else None
            )
    return MemoryFacts(held, version if type(version) is int else None, tuple(prose))


def _scope(raw: Any) -> Scope | None:
    return parse_scope(raw) if raw is not None else None
