"""bench/loop.py's curator, which keeps nothing between days: today's tasks, the notes and the memory
in, proposals out (bench/loop.py's docstring says what it does with each note). It imports nothing
of the host's, and the host gives it nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curator_io import Scope
from curator_io.canonical import digest
from ranking.advice.relation import CONTRADICTS

REPO = Scope(level="repository", repository="acme/api")
STALE_CODES = frozenset({"closure.stale_instruction", "closure.stale_memory"})


@dataclass(frozen=True)
class Observation:
    """What the curator reads of one of today's tasks: the lesson it shows and its evidence."""

    lesson: str
    action: str
    key: str
    text: str
    evidence: str
    against: bool
    ran_with: Mapping[str, Any] | None
    """The memory the task's agent ran with when it is not the current one (a stale checkout)."""


@dataclass(frozen=True)
class Edit:
    operations: tuple[Mapping[str, str], ...]
    """SPEC §1 operations, each ``expected_digest`` that of the memory it was written against."""
    base: int

    @property
    def fingerprint(self) -> str:
        return digest({"scope": REPO.to_json(), "operations": sorted(self.operations, key=lambda op: op["key"])})


@dataclass(frozen=True)
class Proposal:
    lesson: str
    id: str
    text: str
    edit: Edit
    support: tuple[str, ...]
    against: tuple[str, ...]
    advised: bool = False
    """Written as a note advised (a remove or replace of another key), not as the lesson asks."""


def curate(
    today: Sequence[Observation], notes: Sequence[Mapping[str, Any]], memory: Mapping[str, Any]
) -> list[Proposal]:
    """Today's proposals (module docstring): nothing but today's tasks, the notes and the memory."""
    by_fingerprint = {n["fingerprint"]: n for n in notes}
    lessons: dict[str, list[Observation]] = {}
    for o in today:
        lessons.setdefault(o.lesson, []).append(o)
    out = []
    for lesson, seen in lessons.items():
        support = tuple(o.evidence for o in seen if not o.against)
        if not support:
            continue  # counterevidence alone proposes nothing
        first = seen[0]
        edit = _written(first.action, first.key, first.text, first.ran_with or memory)
        made = _follow(edit, first, by_fingerprint, memory)
        if made is not None:
            edit, advised = made
            out.append(
                Proposal(
                    lesson,
                    f"p-{lesson}" + ("-advised" if advised else ""),
                    first.text,
                    edit,
                    support,
                    tuple(o.evidence for o in seen if o.against),
                    advised,
                )
            )
    return out


def _follow(
    edit: Edit | None, lesson: Observation, notes: Mapping[str, Mapping[str, Any]], memory: Mapping[str, Any]
) -> tuple[Edit, bool] | None:
    """The edit to propose after the notes on it, literally; None: propose nothing."""
    advised = False
    for _ in range(3):  # an advised edit has a note of its own to follow
        if edit is None:
            return None
        note = notes.get(edit.fingerprint)
        kind = None if note is None else note["kind"]
        if kind in (None, "retry"):
            return edit, advised
        assert note is not None
        if kind == "already-in-memory":
            return None
        if kind == "do-not-repeat":
            if not STALE_CODES & {r["code"] for r in note["reasons"]}:
                return None
            edit = _written(lesson.action, lesson.key, lesson.text, memory)  # against the current memory
            continue
        alike = note["resembles"][0]  # the strongest: a person's rule first
        written = note["disposition"] == "selected"
        if written:
            edit = _written("remove", alike["key"], "", memory)
        elif alike["relation"] == CONTRADICTS:
            return None  # a person's rule, or a rule the evidence does not show wrong: not beside it
        else:
            edit = _written("replace", alike["other"], lesson.text, memory)
        advised = True
    return None


def _written(action: str, key: str, text: str, memory: Mapping[str, Any]) -> Edit | None:
    """The edit, written against ``memory``; None when it names a key ``memory`` lacks."""
    held = {i["key"]: i for i in memory["instructions"]}
    if action == "add":
        return Edit(({"action": "add", "key": key, "text": text},), memory["version"])
    if key not in held:
        return None
    op = {"action": action, "key": key, **({"text": text} if action == "replace" else {})}
    return Edit(({**op, "expected_digest": held[key]["digest"]},), memory["version"])
