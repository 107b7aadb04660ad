"""A curator's note's words for an edit: what it does, on one line (docs/ledger.md, "Notes for the
curator"). Pure; :mod:`ranking.ledger.notes.composing` composes the notes, and people's views
(:mod:`ranking.ledger.history`, the ledger view) name edits with the same words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["NOTE_CHARS", "EDIT_TEXT_CHARS", "one_line", "describe_edit", "scope_words"]

NOTE_CHARS: Final = 200
"""The most characters of a rationale a note shows, the ellipsis included."""
EDIT_TEXT_CHARS: Final = 120
"""The most characters of an instruction's text a note shows, the ellipsis included."""


def one_line(text: str, limit: int = NOTE_CHARS) -> str:
    """``text`` with every run of spaces and unprintable characters made one space,
    cut to ``limit`` characters with a trailing ``…`` when longer."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"


def describe_edit(edit: Mapping[str, Any], operations: int | None = None) -> str:
    """An edit (SPEC §3.6: its scope and key-sorted operations) in words a model reads:
    ``replace "ci.timeout" with "CI jobs time out after 30 minutes." in acme/api``; several
    operations joined by ``; ``, the first ``operations`` of them and the rest counted
    (``and 397 more operations``)."""
    ops = list(edit.get("operations", ()))
    shown = ops if operations is None else ops[:operations]
    words = [_operation_words(op) for op in shown]
    if len(shown) < len(ops):
        rest = len(ops) - len(shown)
        words.append(f"and {rest} more operation{'' if rest == 1 else 's'}")
    where = scope_words(edit.get("scope", {}))
    return "; ".join(words) + (f" {where}" if where else "")


def _operation_words(op: Mapping[str, Any]) -> str:
    key = json.dumps(op.get("key"), ensure_ascii=False)
    action = op.get("action")
    if action == "remove":
        return f"remove {key}"
    text = json.dumps(one_line(str(op.get("text", "")), EDIT_TEXT_CHARS), ensure_ascii=False)
    return f"add {key}: {text}" if action == "add" else f"replace {key} with {text}"


def scope_words(scope: Mapping[str, Any]) -> str:
    """``in acme/api``, ``in acme/api at src/api``, or nothing for a global scope (SPEC §1)."""
    repository, path = scope.get("repository"), scope.get("path")
    if repository is None:
        return ""
    return f"in {repository}" + (f" at {path}" if path else "")
