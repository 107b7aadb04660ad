"""Applying a selection (SPEC §8): the memory the Writer is allowed to produce, and how it is
written for a person to review (:func:`reviewable`). How it goes into a Markdown memory is
:mod:`ranking.checking.into_markdown`'s (the gate on a JSON memory imports no Markdown)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from curator_io.canonical import canon
from curator_io.catalogue import SELECTED
from ranking.checking.acceptance import Replayed
from ranking.checking.permitted import permitted_memory
from validator import proposals_of
from validator.proposal import edit_of

__all__ = ["apply_selection", "reviewable"]


def apply_selection(accepted: Replayed) -> dict[str, Any]:
    """Start from the bundle's memory; apply each selected proposal in rank order,
    each operation in key order; reseal what changed; bump the version.

    SPEC §8: the report must be this bundle's, sealed, and equal to the one
    recomputed with its own config: :func:`ranking.checking.acceptance.accept` with the
    bundle is what holds a :class:`Replayed` report.
    """
    bundle, expected = accepted.bundle, accepted.result
    by_id = proposals_of(bundle)
    # Cannot fail: only complete proposals are selected.
    edits = [edit_of(by_id[pid].scope, by_id[pid].operations) for pid in expected.selected]
    return permitted_memory(bundle.memory, edits, selected=expected.outcome == SELECTED)


#: Members in the order SPEC §1 lists them, by what holds them; any other member follows, by name.
_ORDER = {
    "memory": ("version", "instructions"),
    "instruction": ("key", "text", "scope", "origin", "digest"),
    "scope": ("level", "repository", "path"),
}
_HOLDS = {"memory": {"instructions": "instruction"}, "instruction": {"scope": "scope"}}


def reviewable(memory: Mapping[str, Any]) -> bytes:
    """``memory`` as a person reviews it in a pull request: two spaces of indentation, one
    member a line, every object's members in SPEC §1's order (``version`` before the
    instructions; ``key``, ``text``, ``scope``, ``origin``, ``digest``), instructions in
    key order as :func:`apply_selection` leaves them, and a final newline. So a change
    shows as the instructions added, changed and removed, and the version.

    The same value as the canonical bytes: every number and string is written as RFC 8785
    writes it, and ``canon(parse_json(reviewable(m))) == canon(m)``. The gate compares
    memory as canonical JSON, so it takes either form.
    """
    return (_written(memory, "memory", "") + "\n").encode("utf-8")


def _written(value: Any, kind: str | None, indent: str) -> str:
    """``value`` written at ``indent``, a container a member a line. A loop, not a recursion: a
    memory may nest 512 levels (SPEC §0), past what Python's stack takes."""
    parts: list[str] = []
    # Each open container: its children still to write, its indent, its closer, whether one was written.
    stack: list[tuple[Iterator[tuple[str, Any, str | None]], str, str, list[bool]]] = []

    def start(value: Any, kind: str | None, indent: str) -> None:
        opened = _opened(value, kind, indent + "  ")
        if isinstance(opened, str):
            parts.append(opened)
            return
        head, children, closer = opened
        parts.append(head)
        stack.append((iter(children), indent, closer, [False]))

    start(value, kind, indent)
    while stack:
        children, at, closer, written = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            parts.append("\n" + at + closer)
            continue
        prefix, value, kind = child
        parts.append(",\n" + prefix if written[0] else prefix)
        written[0] = True
        start(value, kind, at + "  ")
    return "".join(parts)


def _opened(value: Any, kind: str | None, inner: str) -> str | tuple[str, list[tuple[str, Any, str | None]], str]:
    """A scalar or an empty container as its text; else how a container opens, its children (each
    with the text before it and its kind) and how it closes."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        order = _ORDER.get(kind or "", ())
        names = [n for n in order if n in value] + sorted(n for n in value if n not in order)
        holds = _HOLDS.get(kind or "", {})
        return "{\n", [(f"{inner}{canon(n).decode()}: ", value[n], holds.get(n)) for n in names], "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return "[\n", [(inner, v, kind) for v in value], "]"
    return canon(value).decode("utf-8")
