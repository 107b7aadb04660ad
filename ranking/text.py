"""How a text from a report is shown on one line: in a "do not re-propose" note
(``ledger notes``, agentdescent's ``rejected_notes``) or a table.

A rationale comes from the curator, so it may hold anything: control characters,
line breaks, pages of prose. A note shows it printable, on one line, and short.
"""

from __future__ import annotations

__all__ = ["NOTE_CHARS", "one_line"]

NOTE_CHARS = 200
"""The most characters of a rationale a note shows, the ellipsis included."""


def one_line(text: str, limit: int = NOTE_CHARS) -> str:
    """``text`` with every run of spaces and unprintable characters made one space,
    cut to ``limit`` characters with a trailing ``…`` when longer."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"
