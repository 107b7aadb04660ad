"""The prose of a Markdown memory against the base's (docs/markdown-memory.md, "The gate holds the
whole file"): what an agent reads outside the managed section is an instruction to it too, so
the gate compares it, line by line, with what the base branch's file has.

Pure: two read files in, the changed runs of lines out. A JSON memory has no prose; the
section is one line of its own in the comparison, so a section that moved is a change of the
prose around it, never of the section. Which lines are the same is
:mod:`ranking.checking.line_matching`'s, in time near linear in the lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from curator_io.markdown_memory import MarkdownMemory
from ranking.checking.line_matching import matching_lines

__all__ = ["ProseChange", "prose_changes"]


@dataclass(frozen=True, slots=True)
class ProseChange:
    """One run of prose lines that differs from the base's."""

    added: tuple[int, ...]
    """The 1-based lines of memory-after that the base does not have."""
    removed: tuple[int, ...]
    """The 1-based lines of the base that memory-after does not have."""
    at: int | None
    """The line of memory-after where the run is; None when memory-after is JSON."""
    items: tuple[int, ...]
    """Added lines where a list item starts: an agent reads each as an instruction."""
    comments: tuple[int, ...]
    """Added lines that hold an HTML comment: the rendered page hides it, an agent reads it."""

    def describe(self) -> str:
        if self.at is None:
            lines = _span(self.removed)
            return f"memory-after holds no prose, and the base's prose ({lines}) is not in it"
        if len(self.added) == len(self.removed):
            counts = [f"{_lines(len(self.added))} changed"]
        else:
            counts = [f"{_lines(len(self.added))} added"] if self.added else []
            counts += [f"{_lines(len(self.removed))} removed"] if self.removed else []
        where = _span(self.added) if self.added else f"line {self.at}"
        message = f"the prose changed at {where} ({', '.join(counts)}), outside the managed section"
        if self.items:
            message += f"; it adds a list item ({_span(self.items)}): an agent reads it as an instruction no one ranked"
        if self.comments:
            message += (
                f"; it adds an HTML comment ({_span(self.comments)}), which the rendered page hides and an agent reads"
            )
        return message


def _lines(n: int) -> str:
    return f"{n} line" + ("" if n == 1 else "s")


def _span(lines: tuple[int, ...]) -> str:
    """``line 3``, ``lines 3-5``, ``lines 1-4, 16-19``: each run of consecutive lines."""
    if len(lines) == 1:
        return f"line {lines[0]}"
    runs: list[list[int]] = []
    for n in lines:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return "lines " + ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def prose_changes(after: MarkdownMemory | None, base: MarkdownMemory | None) -> tuple[ProseChange, ...]:
    """Each run of lines in which the prose of ``after`` differs from that of ``base`` (None: a JSON
    memory, no prose), line endings and a byte-order mark included."""
    mine = after.prose_lines() if after is not None else []
    theirs = base.prose_lines() if base is not None else []
    out = []
    start_a = start_b = 0
    for end_a, end_b in [*matching_lines([t for _, t in theirs], [t for _, t in mine]), (len(theirs), len(mine))]:
        # The lines between two matched ones (or an end) are one run, as difflib's opcodes group them.
        added = tuple(n for n, text in mine[start_b:end_b] if text is not None)
        removed = tuple(n for n, text in theirs[start_a:end_a] if text is not None)
        if added or removed:
            at = None if after is None else (mine[start_b][0] if start_b < len(mine) else mine[-1][0])
            items = tuple(n for n in added if after is not None and n in after.prose_items)
            comments = tuple(n for n in added if after is not None and n in after.prose_comments)
            out.append(ProseChange(added, removed, at, items, comments))
        start_a, start_b = end_a + 1, end_b + 1
    return tuple(out)
