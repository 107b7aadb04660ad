"""A Markdown file written by hand, as ``memory import`` reads it (docs/markdown-memory.md,
"Importing a file written by hand"): its headings, the part of the file each heading owns, and
the bullet items of that part, each with whether it can stand as an instruction alone.

A heading **owns** the lines from itself to the next heading of any level (a ``####`` heading
owns its own part; its parent owns only what comes before it). The lines before the first
heading are owned by no heading. An **item** is an item of a bullet list at the top level (not
inside a block quote or another list). An item **stands alone**, and may become an instruction,
unless one of these says otherwise (the first that applies is the reason given):

1. it is not one paragraph: it holds a nested list or a code block, or is empty;
2. its list follows a paragraph that ends with a colon: the items finish that sentence
   ("Include:", "What the existing pragmas mean:") and read as instructions only with it;
3. it starts with a lowercase letter: it continues a sentence;
4. it ends with ``,``, ``;``, ``:``, or the word "or" or "and": the next item continues it;
5. it holds no instruction: once code spans, links and autolinks are left out, no letter is left;
6. its text (the paragraph's lines, each trimmed, joined by one space) is not 1 to 4,000 bytes.

Pure: the file's lines and markdown-it's tokens in, 0-based lines out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from curator_io import grammar as g

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["Item", "Heading", "read_outline", "heading_named"]

_BULLETS = ("-", "*", "+")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
_LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)")
_AUTOLINK = re.compile(r"<[^<>\s]+>")
_GOES_ON = re.compile(r"(?:[,;:]|\b(?:or|and))\Z")
_HASHES = re.compile(r"\A#{1,6}\s*")


@dataclass(frozen=True, slots=True)
class Item:
    """A top-level bullet item (0-based lines)."""

    first: int
    """Its first line."""
    end: int
    """The line after its last line of text."""
    text: str | None
    """Its text when it stands alone; None when it does not (see :attr:`why`)."""
    why: str = ""
    """Why it cannot be an instruction, when it cannot."""


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading and the part of the file it owns (0-based lines)."""

    line: int
    """The heading's line; -1 for the lines before the first heading."""
    level: int
    """1 to 6; 0 for the lines before the first heading."""
    title: str
    """The heading's text as written (its inline content, trimmed)."""
    end: int
    """The line after the last line it owns: the next heading's line, or the file's length."""
    items: tuple[Item, ...]

    def shown(self) -> str:
        """How import names it: ``## Testing`` (line 44)."""
        if self.level == 0:
            return "(before the first heading)"
        return f"{'#' * self.level} {self.title}"


def read_outline(tokens: Sequence[Token], lines: Sequence[str]) -> tuple[Heading, ...]:
    """The file's headings at the top level, in order, the part before the first among them."""
    marks: list[tuple[int, int, str]] = [(-1, 0, "")]
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map is not None:
            marks.append((token.map[0], int(token.tag[1:]), tokens[i + 1].content.strip()))
    items = _items(tokens, lines)
    out = []
    at = 0  # items and headings are both in the file's order: one pass over each
    for n, (line, level, title) in enumerate(marks):
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        first = at
        while at < len(items) and items[at].first < end:
            at += 1
        out.append(Heading(line, level, title, end, tuple(items[first:at])))
    return tuple(out)


def heading_named(outline: Sequence[Heading], name: str) -> list[Heading]:
    """The headings ``name`` names: its text, with or without its ``#`` marks, in any case."""
    wanted = _HASHES.sub("", name.strip()).strip().casefold()
    return [h for h in outline if h.level and h.title.casefold() == wanted]


def _items(tokens: Sequence[Token], lines: Sequence[str]) -> list[Item]:
    out: list[Item] = []
    colon = False  # whether the current list follows a paragraph ending with a colon (rule 2)
    for i, token in enumerate(tokens):
        if token.type == "bullet_list_open" and token.level == 0:
            before = tokens[i - 2] if i >= 2 and tokens[i - 1].type == "paragraph_close" else None
            colon = before is not None and before.content.rstrip().endswith(":")
        if not (token.type == "list_item_open" and token.level == 1 and token.markup in _BULLETS):
            continue
        assert token.map is not None  # Cannot fail: a block token has its lines.
        out.append(_item(tokens, i, lines, colon))
    return out


def _item(tokens: Sequence[Token], i: int, lines: Sequence[str], colon: bool) -> Item:
    first, last = tokens[i].map or (0, 0)
    inside = []
    j = i + 1
    while not (tokens[j].type == "list_item_close" and tokens[j].level == 1):
        inside.append(tokens[j])
        j += 1
    if [t.type for t in inside] != ["paragraph_open", "inline", "paragraph_close"]:
        return Item(first, last, None, "not one paragraph (a nested list, a code block, or empty)")
    p_first, p_last = inside[0].map or (0, 0)
    parts = [lines[p_first].lstrip(" \t")[1:], *lines[p_first + 1 : p_last]]
    text = " ".join(part.strip(" \t") for part in parts)
    why = _why_not(text, colon)
    return Item(first, p_last, None if why else text, why)


def _why_not(text: str, colon: bool) -> str:
    """Rules 2 to 6 of the module docstring: why ``text`` is no instruction, or ''."""
    if colon:
        return "its list finishes the sentence before it (which ends with a colon)"
    if text[:1].islower():
        return "it starts in lower case: it continues a sentence"
    if _GOES_ON.search(text):
        return "it ends as a sentence that goes on into the next item"
    bare = _AUTOLINK.sub("", _LINK.sub("", _CODE_SPAN.sub("", text)))
    if not any(c.isalpha() for c in bare):
        return "it holds no instruction (only code, links or marks)"
    size = g.utf8_len(text)
    if not 1 <= size <= 4000:
        return f"{size} bytes of text (SPEC §1 allows 1-4000)"
    return ""
