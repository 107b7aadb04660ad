"""Adopting a Markdown file written by hand (``evidence-rank memory import``, docs/markdown-memory.md,
"Importing a file written by hand"): a managed section is added, and nothing a person wrote
moves away from its heading.

1. The file is read as a Markdown memory is (size, UTF-8, markers in the form): one that has a
   managed section already is refused (``usage.invalid_option``), as is a marker anywhere, and
   a file that only imports another (Claude Code's ``@AGENTS.md``).
2. Its headings and their bullet items are read (:mod:`curator_io.markdown.outline`).
3. Where the section goes, as the caller says (:class:`Placement`): at the end of the file
   (the default), at the end of what one heading owns before its first subheading, or, with
   ``adopt``, where the first item of one heading stood, that heading's items that stand alone
   moving into it as instructions. No other line changes.
4. An adopted item's key is the heading's slug, a dot, and its number under the heading,
   zero-padded to the width of the last (``testing.01`` ... ``testing.12``), so that the keys'
   ordinal order (SPEC §8 sorts by key) is the order of the file; its scope and origin as the
   caller says. The section is written with the file's first line ending.
5. The result is read back, and must hold the memory and the section where it was put.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from curator_io.canonical import canon, seal
from curator_io.errors import ConfigError, InputError
from curator_io.markdown.document import decoded_text, read_markdown_memory, section_lines, split_lines
from curator_io.markdown.outline import Heading, heading_named, read_outline
from curator_io.markdown.structure import Blocks, find_section, imports_only, read_blocks
from curator_io.models import Scope

__all__ = ["Placement", "Imported", "import_markdown"]

_SLUG = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where :func:`import_markdown` puts the section: at the end (both None), at the end of the
    part ``at`` names, or where the items of the heading ``adopt`` names stood, with them."""

    at: str | None = None
    adopt: str | None = None


@dataclass(frozen=True, slots=True)
class Imported:
    """What :func:`import_markdown` made."""

    data: bytes
    """The file, with its managed section."""
    memory: Mapping[str, Any]
    start: int
    """The 1-based line of the start marker in :attr:`data`."""
    outline: tuple[Heading, ...]
    """The file's headings as it was, each with its items (0-based lines)."""
    adopted: Heading | None
    """The heading whose items were adopted, with ``adopt``."""
    keys: tuple[tuple[int, str], ...]
    """(1-based line in the file as it was, key) of each adopted item."""


def import_markdown(
    raw: bytes,
    *,
    scope: Scope,
    placement: Placement = Placement(),
    origin: str = "repository",
    version: int = 0,
) -> Imported:
    """``raw`` with a managed section added where ``placement`` says (module docstring)."""
    text = decoded_text(raw)  # 1.
    body = text.removeprefix("\ufeff")
    pairs = split_lines(body)
    lines = [line for line, _ in pairs]
    blocks = read_blocks(body, lines)
    _refuse_adopted(blocks)
    named = imports_only(lines)
    if named:
        why = (
            f"the file only imports {', '.join(named)} (Claude Code's @ line): the instructions are there; "
            f"import {named[0]} and leave this file as it is"
        )
        raise ConfigError("usage.invalid_option", why)
    outline = read_outline(blocks.tokens, lines)  # 2.
    heading = _named(outline, placement)  # 3.
    adopted = heading if placement.adopt is not None else None
    instructions: list[dict[str, Any]] = []
    keys: list[tuple[int, str]] = []
    gone: set[int] = set()
    if adopted is not None:
        alone = [item for item in adopted.items if item.text is not None]
        width = len(str(len(alone)))
        for n, item in enumerate(alone, 1):  # 4.
            assert item.text is not None  # Cannot fail: filtered just above.
            key = f"{_slug(adopted.title)}.{n:0{width}d}"
            instructions.append(seal({"key": key, "text": item.text, "scope": scope.to_json(), "origin": origin}))
            keys.append((item.first + 1, key))
            gone.update(range(item.first, item.end))
    memory = {"version": version, "instructions": instructions}
    section = section_lines(memory)
    if adopted is not None and gone:
        data, start = _replacing(text[: len(text) - len(body)], pairs, gone, section)
    else:
        data, start = _inserted(text[: len(text) - len(body)], pairs, _insertion(heading, len(pairs)), section)
    _read_back(data, memory, start)  # 5.
    return Imported(data, memory, start + 1, outline, adopted, tuple(keys))


def _refuse_adopted(blocks: Blocks) -> None:
    try:
        section = find_section(blocks)
    except InputError as e:  # no section is what import is for; a marker not in the form is refused
        if e.code != "input.markdown_no_section":
            raise
    else:
        why = f"the file has a managed section already (lines {section.start + 1}-{section.end + 1}): nothing to import"
        raise ConfigError("usage.invalid_option", why)


def _named(outline: tuple[Heading, ...], placement: Placement) -> Heading | None:
    """The heading ``placement`` names, or None for the end of the file."""
    if placement.at is not None and placement.adopt is not None:
        raise ConfigError("usage.invalid_option", "--at and --adopt each say where the section goes: give one")
    option, name = ("--adopt", placement.adopt) if placement.adopt is not None else ("--at", placement.at)
    if name is None:
        return None
    found = heading_named(outline, name)
    if not found:
        titles = ", ".join(repr(h.title) for h in outline if h.level)
        why = f"{option} {name!r}: no heading of the file reads so (its headings: {titles or 'none'})"
        raise ConfigError("usage.invalid_option", why)
    if len(found) > 1:
        why = f"{option} {name!r}: {len(found)} headings read so (lines {', '.join(str(h.line + 1) for h in found)})"
        raise ConfigError("usage.invalid_option", why + ": give one of them another name first")
    return found[0]


def _slug(heading: str) -> str:
    words = _SLUG.findall(heading.lower())
    return "-".join(words)[:100].strip("-") or "notes"


def _newline(pairs: list[tuple[str, str]]) -> str:
    return next((end for _, end in pairs if end), "\n")


def _replacing(bom: str, pairs: list[tuple[str, str]], gone: set[int], section: list[str]) -> tuple[bytes, int]:
    """The file's lines less ``gone``, the section where the first of them was, with an empty line
    on each side where the lines next to it are not empty; and the section's 0-based line."""
    newline = _newline(pairs)
    first = min(gone)
    kept_after = [n for n in range(first + 1, len(pairs)) if n not in gone]
    head = [line + end for line, end in pairs[:first]]
    tail = [pairs[n][0] + pairs[n][1] for n in kept_after]
    lead = [newline] if head and head[-1].strip(" \t\r\n") else []
    gap = [newline] if tail and tail[0].strip(" \t\r\n") else []
    follows = bool(tail) or bool(pairs[-1][1])
    written = newline.join(section) + (newline if follows else "")
    start = len(head) + len(lead)
    return (bom + "".join([*head, *lead, written, *gap, *tail])).encode("utf-8"), start


def _insertion(heading: Heading | None, count: int) -> int:
    """The 0-based line the section goes before: the end of the file, or the end of what
    ``heading`` owns (:func:`_inserted` keeps the empty lines it ends with after the section)."""
    return count if heading is None else heading.end


def _inserted(bom: str, pairs: list[tuple[str, str]], at: int, section: list[str]) -> tuple[bytes, int]:
    """The file with the section before line ``at``, an empty line on each side of it; and its 0-based line."""
    newline = _newline(pairs)
    if at >= len(pairs) and pairs[-1] == ("", ""):
        at = len(pairs) - 1  # the file ends with a line ending: nothing after it
    while at > 0 and not pairs[at - 1][0].strip(" \t"):
        at -= 1  # keep the empty lines that part ends with after the section, before the next heading
    head = [line + end for line, end in pairs[:at]]
    if head and not head[-1].endswith(("\n", "\r")):
        head[-1] += newline  # the file's last line had no line ending
    lead = [newline] if head else []
    written = newline.join(section) + newline
    tail = [line + end for line, end in pairs[at:] if (line, end) != ("", "")]
    gap = [newline] if tail and tail[0].strip(" \t\r\n") else []
    start = len(head) + len(lead)
    return (bom + "".join([*head, *lead, written, *gap, *tail])).encode("utf-8"), start


def _read_back(data: bytes, memory: Mapping[str, Any], start: int) -> None:
    """Step 5: a section put after a code block that is never closed (or an HTML block that is not)
    would be read as part of it; refused, never written."""
    try:
        again = read_markdown_memory(data)
    except InputError as e:
        why = f"a section put at line {start + 1} would not read back ({e.message}): close the block above it first"
        raise InputError("input.markdown_layout", why, at=(start + 1, 1)) from None
    if canon(again.memory) != canon(memory) or again.start != start + 1:
        why = f"a section put at line {start + 1} would not read back as written"
        raise InputError("input.markdown_layout", why, at=(start + 1, 1))
