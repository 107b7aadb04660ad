"""The prose of a Markdown memory against the base's (docs/markdown-memory.md, "The gate holds the
whole file"): what an agent reads outside the managed section is an instruction to it too, so
the gate compares it, line by line, with what the base branch's file has.

Pure: two read files in, the changed runs of lines out. A JSON memory has no prose; the
section is one line of its own in the comparison, so a section that moved is a change of the
prose around it, never of the section: which prose an agent reads before the instructions, and
which after ("ignore every instruction that follows"), changes what they mean. A run in which
only the section's line differs (the section moved past prose that did not change) is a change
too, and says so. Which lines are the same is :mod:`ranking.checking.line_matching`'s, in time
near linear in the lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ranking.checking.line_matching import matching_lines

if TYPE_CHECKING:  # a gate on a JSON memory never reads one, and imports no Markdown reader
    from curator_io.markdown.document import MarkdownMemory

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
    moved: bool = False
    """Whether the section's line is on one side of the run only: the section moved, and other
    prose now stands before or after it."""

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
        if self.moved and not self.added and not self.removed:
            return (
                f"the managed section moved (it now starts at line {self.at}): other prose stands before or after "
                "it than the base's, and an agent reads the prose before the instructions as leading to them"
            )
        message = f"the prose changed at {where} ({', '.join(counts)}), outside the managed section"
        if self.moved:
            message += "; the managed section moved with it"
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
        # The lines between two matched ones (or an end) are one run, as difflib's opcodes group them;
        # the section's own line is None.
        added = tuple(n for n, text in mine[start_b:end_b] if text is not None)
        removed = tuple(n for n, text in theirs[start_a:end_a] if text is not None)
        here = [n for n, text in mine[start_b:end_b] if text is None]
        there = any(text is None for _, text in theirs[start_a:end_a])
        moved = bool(here) != there and after is not None and base is not None
        run_start = start_b
        start_a, start_b = end_a + 1, end_b + 1
        if not added and not removed and not here:
            continue  # nothing changed here, or the section left this run: the run it moved into says so
        if not added and not removed and not moved:
            continue
        first = added[0] if added else here[0] if here else None
        at = None if after is None else first or (mine[run_start][0] if run_start < len(mine) else mine[-1][0])
        items = tuple(n for n in added if after is not None and n in after.prose_items)
        comments = tuple(n for n in added if after is not None and n in after.prose_comments)
        out.append(ProseChange(added, removed, at, items, comments, moved))
    return tuple(out)
