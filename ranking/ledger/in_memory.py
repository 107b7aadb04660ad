"""What the current memory says of an edit a note is about (docs/ledger.md, "Notes against the
current memory"): whether it already holds the edit's effect, and which of its instructions
under other keys the edit resembles or contradicts, with the advice a curator can follow
literally (SPEC must not refuse the edit the advice describes, issue 53).

Pure: a memory object (SPEC §1) in, facts out. :mod:`ranking.ledger.feedback` composes the notes.

**The effect held.** An edit's effect is in memory when every operation's is: an ``add`` or
``replace`` whose text (SPEC §0's ``norm``) an instruction holds under any key whose scope contains
the edit's (SPEC §1), and a ``remove`` whose key memory does not hold. Whichever edit wrote it.

**The advice**, one per look-alike, each an edit SPEC accepts as a proposal of its own:

- *restates*, for an edit not written: replace the other key with its text instead of adding or
  replacing this key (a replace of the other key is no duplicate, SPEC §3.4, since the texts differ).
- *restates*, for an edit written: remove one of the two, in a proposal of its own. (Replacing the
  other with this text and removing this key in one proposal is ``instruction.duplicate``:
  §3.4 counts the instruction the proposal removes.)
- *contradicts* an instruction a person gave (origin ``user``): never overwrite it; only evidence at
  least as strong as a person's (signal ``user``) can replace it, by a replace of that key.
- *contradicts* another instruction: not beside it; replace that key with it where the evidence
  shows it wrong, or (both written) remove the one the evidence does not support.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final, NamedTuple

from curator_io.kinds import parse_scope
from curator_io.models import Scope
from ranking.ledger.note_words import EDIT_TEXT_CHARS, one_line
from validator import norm

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
        memory holds as it wrote it), the strongest first: contradictions of a person's rule, other
        contradictions, then by score."""
        if not self.instructions and not self.prose:
            return ()
        from ranking.advice.lookalikes import resemblance  # only a host that gives the memory pays
        from ranking.advice.relation import relation

        ops = edit.get("operations") or ()
        touched = {op.get("key") for op in ops}
        found = []
        for op in ops:
            if op.get("action") not in ("add", "replace"):
                continue
            key, text = op["key"], op["text"]
            if admitted and (key not in self.instructions or self.instructions[key].text != text):
                continue
            for held in [self.instructions[k] for k in sorted(self.instructions) if k not in touched] + [
                Held(f"{PROSE_LINE}{line}", rule, None, USER) for line, rule in self.prose
            ]:
                scored = resemblance(text, held.text)
                if scored is None:
                    continue
                how = relation(text, held.text)
                advice = _advice(op["action"], key, held, how, admitted=admitted)
                shown = one_line(held.text, EDIT_TEXT_CHARS)
                found.append(Resemblance(key, held.key, shown, scored[0], scored[1], advice, how, held.origin))
        return tuple(sorted(found, key=_strength))


def _strength(r: Resemblance) -> tuple[int, float, str, str]:
    return (0 if r.contradicts and r.origin == USER else 1 if r.contradicts else 2, -r.score, r.key, r.other)


def _advice(action: str, key: str, held: Held, how: str, *, admitted: bool) -> str:
    """What to do about one look-alike: each an edit SPEC accepts on its own (module docstring)."""
    if held.key.startswith(PROSE_LINE) and how == "contradicts":
        return (
            "the prose is the people's: do not add a rule against it; if the evidence shows it is wrong, say so in "
            "the lesson for people to change the prose"
        )
    if held.key.startswith(PROSE_LINE):
        return (
            "an agent reads both: if it updates that rule, say so in the lesson for people to change the prose; "
            "if it says the same, leave it out"
        )
    other = repr(held.key)
    instead = f"instead of {'adding' if action == 'add' else 'replacing'} {key!r}"
    if how == "contradicts" and held.origin == USER:
        if admitted:
            return f"remove {key!r} in a proposal of its own, unless a person's own correction shows {other} is wrong"
        return (
            "do not add a rule against it: a person's rule is replaced only by evidence at least as strong "
            f"(signal user, a person's correction); with such evidence, propose a replace of {other} with this "
            f"text {instead}"
        )
    if how == "contradicts":
        if admitted:
            return (
                f"memory holds both: remove the one the evidence does not support ({key!r} or {other}), "
                "in a proposal of its own"
            )
        return f"do not keep both: if the evidence shows {other} is wrong, replace {other} with this text {instead}"
    if admitted:
        return f"one instruction, one key: remove {other} or {key!r}, in a proposal of its own"
    return f"if it updates {other}, replace {other} with this text {instead}"


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
