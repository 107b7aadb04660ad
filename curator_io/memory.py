"""A memory document (SPEC §1 ``memory``: ``{"version": INT, "instructions": [Instruction, ...]}``)
as a file holds it: JSON, or the Markdown form of docs/markdown-memory.md (an AGENTS.md, a
CLAUDE.md, a MEMORY.md), and the one door it comes in by.

:func:`read_memory` is that door: every command and helper that takes a memory file (``gate``'s
memory-after and base, ``apply --out FILE.md``, ``memory show``, the builder's next-day memory)
gets its :class:`MemoryDocument` from it, so a Markdown file is read by one set of rules
everywhere. Which form a file is in is said by its name (:func:`is_markdown_name`), never
guessed from its bytes.

Pure: bytes in. Reading the file is :mod:`ranking.running.inputs`' (``read_memory_file``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from curator_io.errors import InputError
from curator_io.jsonio import parse_json
from curator_io.memory_object import check_memory
from curator_io.positions import JsonPlaces, text_of

if TYPE_CHECKING:
    from curator_io.markdown.document import MarkdownMemory

__all__ = ["MARKDOWN_SUFFIXES", "is_markdown_name", "MemoryDocument", "MemoryFile", "read_memory", "check_memory"]

#: A file whose name ends so (in any case) holds the Markdown form; any other, JSON.
MARKDOWN_SUFFIXES = (".md", ".markdown")


def is_markdown_name(name: str) -> bool:
    """Whether a file so named holds the Markdown form (``AGENTS.md``, ``notes.MARKDOWN``)."""
    return name.lower().endswith(MARKDOWN_SUFFIXES)


@dataclass(frozen=True, slots=True)
class MemoryDocument:
    """A memory file read: the memory object it holds, and for the Markdown form the file around it."""

    memory: Any
    """The memory object, as parsed. From Markdown it is a memory SPEC §1 allows, every
    instruction sealed (read ``as_written``, its keys may repeat); from JSON it is the parsed
    value, checked by whoever takes it (:func:`check_memory`, or the gate, which reports a
    duplicate key as a finding in either form)."""
    markdown: MarkdownMemory | None = None
    """The prose around the managed section, and where each instruction is: Markdown only."""

    def position(self, pointer: str) -> tuple[int, int] | None:
        """The 1-based line and column in a Markdown file of what ``pointer`` names in the memory
        object; None for JSON, which holds no text (:meth:`MemoryFile.position` answers both)."""
        return None if self.markdown is None else self.markdown.position(pointer)


def read_memory(raw: bytes, *, markdown: bool, source: str | None = None, as_written: bool = False) -> MemoryDocument:
    """The memory ``raw`` holds: the Markdown form (docs/markdown-memory.md) when ``markdown``,
    else a JSON document (SPEC §0: I-JSON). ``source`` names the file in a refusal.
    ``as_written``: a Markdown section's repeated key is kept, as JSON keeps one, for the gate
    to name (a ``duplicate_key`` finding, whatever the form).

    Raises ``input.markdown_*`` (at a line and a column) or ``input.malformed_json``.
    """
    try:
        if not markdown:
            return MemoryDocument(parse_json(raw))
        from curator_io.markdown.document import read_markdown_memory  # only a Markdown file pays for it

        found = read_markdown_memory(raw, as_written=as_written)
        return MemoryDocument(found.memory, found)
    except InputError as e:
        raise (e if source is None or e.source is not None else e.in_file(source)) from None


class MemoryFile:
    """A memory file as the reader returned it: its bytes, its form, its name; read into a
    :class:`MemoryDocument` (:func:`read_memory`) once, when first asked. The gate asks only
    once the report is accepted, so a forged report is refused before the file is discussed."""

    def __init__(self, raw: bytes, *, markdown: bool, source: str | None = None) -> None:
        self.raw, self.markdown, self.source = raw, markdown, source

    @functools.cached_property
    def document(self) -> MemoryDocument:
        return read_memory(self.raw, markdown=self.markdown, source=self.source)

    @functools.cached_property
    def written(self) -> MemoryDocument:
        """The document as a Writer wrote it, for the gate to compare: a repeated key kept in
        either form (:func:`read_memory`'s ``as_written``); for JSON, :attr:`document` itself."""
        if not self.markdown:
            return self.document
        return read_memory(self.raw, markdown=True, source=self.source, as_written=True)

    def position(self, pointer: str) -> tuple[int, int] | None:
        """The 1-based line and column in the file of what ``pointer`` names in its memory object,
        whatever the form: in Markdown, the instruction's item, the version in the start marker, or
        the section (:meth:`MemoryDocument.position`, of the document as written); in JSON, the
        value in the text, or the nearest on its path that is there
        (:class:`curator_io.positions.JsonPlaces`); None when the JSON text has none."""
        if self.markdown:
            return self.written.position(pointer)
        return self._places.position(pointer)

    @functools.cached_property
    def _places(self) -> JsonPlaces:
        """The JSON text, decoded and read once for every position asked of it."""
        return JsonPlaces(text_of(self.raw))
