"""Adopting a Markdown file written by hand (``evidence-rank memory import``, docs/markdown-memory.md,
"Importing a file written by hand"): its bullet instructions become a managed section, with
keys made from the heading each sat under; everything else stays where it was, byte for byte.

1. The file is read as a Markdown memory is (size, UTF-8, markers in the form): one that has a
   managed section already is refused (``usage.invalid_option``), as is a marker anywhere.
2. Each item of a bullet list at the top level that holds one paragraph (one line or several)
   is an instruction: its text is the paragraph's lines, each trimmed, joined by a space (what
   a soft line break renders as). Any other item (a nested list, a code block, text over 4,000
   bytes) stays in the prose, and :class:`Imported` says where.
3. Its key is the slug of the heading above it and its number under that heading
   (``testing.2``; ``notes.1`` above the first heading); its scope and origin as the caller says.
4. The section goes where the first imported item was (at the end, when none was), written
   with the file's first line ending; the imported items' lines go. The result is read back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator_io import grammar as g
from curator_io.canonical import canon, seal
from curator_io.errors import ConfigError, InputError
from curator_io.markdown_blocks import find_section, read_blocks
from curator_io.markdown_memory import decoded_text, read_markdown_memory, section_lines, split_lines
from curator_io.models import Scope

__all__ = ["Imported", "import_markdown"]

_SLUG = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Imported:
    """What :func:`import_markdown` made."""

    data: bytes
    """The file, with its managed section."""
    memory: Mapping[str, Any]
    keys: tuple[tuple[int, str], ...]
    """(1-based line in the file as it was, key) of each imported item."""
    left: tuple[tuple[int, str], ...]
    """(1-based line, why) of each item left in the prose."""


def import_markdown(raw: bytes, *, scope: Scope, origin: str = "repository", version: int = 0) -> Imported:
    """``raw`` with its bullet instructions moved into a managed section (module docstring)."""
    text = decoded_text(raw)  # 1.
    body = text.removeprefix("\ufeff")
    pairs = split_lines(body)
    blocks = read_blocks(body, [line for line, _ in pairs])
    try:
        section = find_section(blocks)
    except InputError as e:  # no section is what import is for; a marker not in the form is refused
        if e.code != "input.markdown_no_section":
            raise
    else:
        why = f"the file has a managed section already (lines {section.start + 1}-{section.end + 1}): nothing to import"
        raise ConfigError("usage.invalid_option", why)
    found = _items(blocks.tokens, [line for line, _ in pairs])  # 2, 3.
    instructions: list[dict[str, Any]] = []
    keys: list[tuple[int, str]] = []
    left: list[tuple[int, str]] = []
    gone: set[int] = set()
    for first, last, key, item_text in found:
        if item_text is None:
            left.append((first + 1, key))
            continue
        body_ = {"key": key, "text": item_text, "scope": scope.to_json(), "origin": origin}
        instructions.append(seal(body_))
        keys.append((first + 1, key))
        gone.update(range(first, last))
    memory = {"version": version, "instructions": instructions}
    data = _placed(text[: len(text) - len(body)], pairs, gone, section_lines(memory))  # 4.
    again = read_markdown_memory(data)
    assert canon(again.memory) == canon(memory)  # Cannot fail: the section is a block of its own.
    return Imported(data, memory, tuple(keys), tuple(left))


def _items(tokens: Any, lines: list[str]) -> list[tuple[int, int, str, str | None]]:
    """(first line, line after, key or why not, text or None) of each top-level bullet item."""
    heading, numbers = "notes", dict[str, int]()
    out: list[tuple[int, int, str, str | None]] = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0:
            heading = _slug(tokens[i + 1].content)
        if not (token.type == "list_item_open" and token.level == 1 and token.markup in ("-", "*", "+")):
            continue
        first, last = token.map
        inside = []
        j = i + 1
        while not (tokens[j].type == "list_item_close" and tokens[j].level == 1):
            inside.append(tokens[j])
            j += 1
        if [t.type for t in inside] != ["paragraph_open", "inline", "paragraph_close"]:
            out.append((first, last, "not one paragraph (a nested list, a code block, or empty)", None))
            continue
        p_first, p_last = inside[0].map
        parts = [lines[p_first].lstrip(" \t")[1:]] + lines[p_first + 1 : p_last]
        item_text = " ".join(part.strip(" \t") for part in parts)
        if not 1 <= g.utf8_len(item_text) <= 4000:
            out.append((first, last, f"{g.utf8_len(item_text)} bytes of text (SPEC §1 allows 1-4000)", None))
            continue
        numbers[heading] = numbers.get(heading, 0) + 1
        out.append((first, p_last, f"{heading}.{numbers[heading]}", item_text))
    return out


def _slug(heading: str) -> str:
    words = _SLUG.findall(heading.lower())
    return "-".join(words)[:100].strip("-") or "notes"


def _placed(bom: str, pairs: list[tuple[str, str]], gone: set[int], section: list[str]) -> bytes:
    """The file's lines less ``gone``, the section where the first of them was (or at the end)."""
    newline = next((end for _, end in pairs if end), "\n")
    written = newline.join(section) + newline
    out, placed = [bom], False
    for n, (line, end) in enumerate(pairs):
        if n in gone:
            if not placed:
                out.append(written)
                placed = True
            continue
        out.append(line + end)
    if not placed:
        tail = "".join(out[1:])
        if tail:
            out.append(("" if tail.endswith(("\n", "\r")) else newline) + newline)
        out.append(written)
    return "".join(out).encode("utf-8")
