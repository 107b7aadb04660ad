"""What bench/loop.py measures of the memory: whether it holds an edit's effect, whether a note's word
is at odds with it, and the duplicates, contradictions and look-alikes it holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loop_curator import Edit

from ranking.advice.lookalikes import resemblance
from ranking.advice.relation import CONTRADICTS, relation
from validator import norm


def holds(edit: Edit, memory: Mapping[str, Any]) -> bool:
    """Memory holds the edit's effect: each text under some key, each removed key gone."""
    texts = {norm(i["text"]) for i in memory["instructions"]}
    keys = {i["key"] for i in memory["instructions"]}
    return all(
        op["key"] not in keys if op["action"] == "remove" else norm(op["text"]) in texts for op in edit.operations
    )


def _contradicted(edit: Edit, memory: Mapping[str, Any]) -> bool:
    """A text of the edit contradicts a look-alike memory holds under another key."""
    return any(
        i["key"] != op["key"] and _contradict(op["text"], i["text"])
        for op in edit.operations
        if op["action"] != "remove"
        for i in memory["instructions"]
    )


def _contradict(a: str, b: str) -> bool:
    return resemblance(a, b) is not None and relation(a, b) == CONTRADICTS


def at_odds(kind: str, edit: Edit, memory: Mapping[str, Any]) -> bool:
    """The note's word is contradicted by the memory it was made against: ``retry`` or ``do not
    repeat`` an edit memory holds, ``retry`` one that contradicts it, ``already in memory`` for
    one it does not hold."""
    if kind == "already-in-memory":
        return not holds(edit, memory)
    if kind in ("retry", "do-not-repeat"):
        return holds(edit, memory) or (kind == "retry" and _contradicted(edit, memory))
    return False


def left_in(memory: Mapping[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """The duplicates (one ``norm`` text under two keys), contradictions and other look-alike pairs
    (``ranking.advice.lookalikes``, restating) memory holds, as key pairs."""
    held = sorted(memory["instructions"], key=lambda i: i["key"])
    pairs = [(a, b) for n, a in enumerate(held) for b in held[n + 1 :]]
    duplicates = [f"{a['key']} = {b['key']}" for a, b in pairs if norm(a["text"]) == norm(b["text"])]
    contradictions = [f"{a['key']} x {b['key']}" for a, b in pairs if _contradict(a["text"], b["text"])]
    alike = [
        f"{a['key']} ~ {b['key']}"
        for a, b in pairs
        if resemblance(a["text"], b["text"]) is not None and not _contradict(a["text"], b["text"])
    ]
    return duplicates, contradictions, alike
