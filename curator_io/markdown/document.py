"""The Markdown form of a memory document (docs/markdown-memory.md): reading a file into the
memory its managed section holds and the prose around it, writing a memory as a section, and
putting a section into a file in place of the one it had, the prose kept byte for byte.

Reading, in the order the page's "Reading" lists (the first refusal is the one reported):

1. at most :data:`MAX_MARKDOWN_BYTES` (``input.markdown_too_large``);
2. UTF-8, a byte-order mark allowed and kept (``input.markdown_encoding``);
3. every marker in the form, outside code (``input.markdown_marker``);
4. one managed section (``input.markdown_no_section``, ``_two_sections``, ``_unpaired``);
5. no tab in it (``input.markdown_tab``);
6. its blocks: scope headings and one-line list items (:func:`~curator_io.markdown.structure.check_section`);
7. each line, in order: a scope heading, an item, or empty (``input.markdown_heading``,
   ``_scope``, ``_no_scope``, ``_no_key``, ``_key``, ``_duplicate_key``, ``_text``);
8. the lines laid out as :func:`section_lines` writes them (``input.markdown_layout``).

What you write, read back and compare: :func:`splice_memory` reads what it wrote, and refuses
(never writes) a file that would not read back to the same memory and prose.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curator_io import grammar as g
from curator_io.canonical import canon, digest, is_sealed
from curator_io.errors import InputError, pointer_of
from curator_io.kinds import parse_scope
from curator_io.markdown.line_values import read_scope_heading, read_text, scope_heading, written_text
from curator_io.markdown.structure import END, HEADING, ITEM, check_section, find_section, read_blocks, read_prose
from curator_io.memory_object import check_memory
from curator_io.models import Scope

__all__ = [
    "MAX_MARKDOWN_BYTES",
    "MarkdownMemory",
    "read_markdown_memory",
    "section_lines",
    "write_markdown_memory",
    "splice_memory",
    "split_lines",
    "decoded_text",
]

MAX_MARKDOWN_BYTES = 4 << 20
"""The most a Markdown memory may hold (4 MiB): its CommonMark parse is held in memory, and its
time grows with the prose (bench/RESULTS.md)."""

_BOM = "\ufeff"
_LINE_END = re.compile(r"\r\n|\r|\n")
_ITEM = re.compile(r"- (?P<text>.*) <!-- (?P<tag>.*) -->")
_TAG = re.compile(r"key=(?P<key>\S+) origin=(?P<origin>\S+)")
_ORIGINS = ("user", "curated", "repository")


def split_lines(text: str) -> list[tuple[str, str]]:
    """``text`` as (line, its line ending) pairs, as CommonMark splits it; the last ending may be empty."""
    out, at = [], 0
    for m in _LINE_END.finditer(text):
        out.append((text[at : m.start()], m[0]))
        at = m.end()
    if at < len(text) or not out:
        out.append((text[at:], ""))
    return out


@dataclass(frozen=True, slots=True)
class MarkdownMemory:
    """A Markdown memory file read: the memory its section holds and the file around it."""

    memory: dict[str, Any]
    """``{"version", "instructions"}``, each instruction sealed (its digest recomputed, SPEC §1)."""
    before: str
    """The text before the start marker's line, the byte-order mark included."""
    after: str
    """The text after the end marker's line and its line ending."""
    newline: str
    """The start marker's line ending: what the section is written with."""
    start: int
    """The 1-based line of the start marker."""
    end: int
    """The 1-based line of the end marker."""
    ended: bool
    """Whether the end marker's line has a line ending (it is not the file's last line)."""
    item_lines: tuple[int, ...]
    """The 1-based line of each instruction."""
    prose_items: frozenset[int]
    """The 1-based lines outside the section where a list item starts."""
    prose_comments: frozenset[int]
    """The 1-based lines outside the section that hold an HTML comment."""
    prose_rules: tuple[tuple[int, str], ...] = ()
    """(1-based line, text) of each list item of the prose that opens with a paragraph: a rule
    people left in the prose, which look-alikes compare proposals with (docs/lookalikes.md)."""

    def position(self, pointer: str) -> tuple[int, int] | None:
        """Where what ``pointer`` names in :attr:`memory` is written: an instruction's item, the
        version in the start marker, or the section for anything else in the memory."""
        parts = pointer.split("/")
        if (
            len(parts) > 2
            and parts[1] == "instructions"
            and parts[2].isdigit()
            and int(parts[2]) < len(self.item_lines)
        ):
            return self.item_lines[int(parts[2])], 1
        if pointer == "/version":
            return self.start, len("<!-- evidence-rank:memory ") + 1
        return self.start, 1

    def prose_lines(self) -> list[tuple[int, str | None]]:
        """The prose as (1-based line, its text and line ending), the section as one (line, None):
        no text stands for the section, so no line of prose can be mistaken for it."""
        head = self.before.removeprefix(_BOM)
        lines = [(n, text + end) for n, (text, end) in enumerate(split_lines(head) if head else [], 1)]
        if lines and self.before.startswith(_BOM):
            lines[0] = (1, _BOM + lines[0][1])
        tail = [(self.end + n, text + end) for n, (text, end) in enumerate(split_lines(self.after), 1)]
        return [*lines, (self.start, None), *(tail if self.after else [])]


def decoded_text(raw: bytes) -> str:
    """Steps 1 and 2: the file's text."""
    if len(raw) > MAX_MARKDOWN_BYTES:
        why = f"the file holds {len(raw):,} bytes; a Markdown memory holds at most {MAX_MARKDOWN_BYTES:,}"
        raise InputError("input.markdown_too_large", why, at=(1, 1))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        good = raw[: e.start].decode("utf-8")
        lines = split_lines(good)
        why = f"not UTF-8: byte 0x{raw[e.start]:02x} at offset {e.start} is not a character"
        raise InputError("input.markdown_encoding", why, at=(len(lines), len(lines[-1][0]) + 1)) from None


def read_markdown_memory(raw: bytes, *, as_written: bool = False) -> MarkdownMemory:
    """The memory a Markdown file's managed section holds, and the prose around it (module docstring).

    ``as_written``: a key an item above already has is kept, not refused (step 7), for the gate,
    which compares what a Writer wrote and names a repeated key as a ``duplicate_key`` finding, as
    it does in a JSON file (docs/gate.md); the memory is then not one SPEC §1 allows."""
    text = decoded_text(raw)
    body = text.removeprefix(_BOM)
    pairs = split_lines(body)
    lines = [line for line, _ in pairs]
    blocks = read_blocks(body, lines)
    section = find_section(blocks)  # 3, 4.
    for n in range(section.start + 1, section.end):  # 5.
        if "\t" in lines[n]:
            why = "a tab: the section is written with spaces only (a tab in a text is written &#9;)"
            raise InputError("input.markdown_tab", why, at=(n + 1, lines[n].index("\t") + 1))
    roles = check_section(blocks, section)  # 6.
    instructions, item_lines = _read_lines(lines, section.start, section.end, roles, as_written)  # 7.
    memory = {"version": section.version, "instructions": instructions}
    _check_layout(lines[section.start : section.end + 1], memory, section.start)  # 8.
    offsets = [0]
    for line, end in pairs:
        offsets.append(offsets[-1] + len(line) + len(end))
    prose = read_prose(blocks, section)
    return MarkdownMemory(
        memory=memory,
        before=text[: len(text) - len(body)] + body[: offsets[section.start]],
        after=body[offsets[section.end + 1] :],
        newline=pairs[section.start][1],
        start=section.start + 1,
        end=section.end + 1,
        ended=pairs[section.end][1] != "",
        item_lines=tuple(item_lines),
        prose_items=frozenset(n + 1 for n in prose.items),
        prose_comments=frozenset(n + 1 for n in prose.comments),
        prose_rules=tuple((n + 1, text) for n, text in prose.rules),
    )


def _read_lines(
    lines: Sequence[str], start: int, end: int, roles: Mapping[int, str], as_written: bool
) -> tuple[list[dict[str, Any]], list[int]]:
    """Step 7: every instruction, in the order written, and the 1-based line of each; a repeated
    key refused, unless ``as_written``."""
    scope: dict[str, str] | None = None
    instructions: list[dict[str, Any]] = []
    keys: dict[str, int] = {}
    item_lines: list[int] = []
    for n in range(start + 1, end):
        line, role = lines[n], roles.get(n)
        if role == HEADING:
            scope = _read_heading(line, n)
        elif role == ITEM:
            if scope is None:
                why = "an item before the first scope heading (## Everywhere, ## In `REPO`, ...)"
                raise InputError("input.markdown_no_scope", why, at=(n + 1, 1))
            instruction = _read_item(line, n, scope)
            key = instruction["key"]
            if key in keys and not as_written:
                why = f"instruction key {key!r} appears twice (first on line {keys[key]}); memory keys are unique"
                raise InputError("input.markdown_duplicate_key", why, at=(n + 1, line.rindex("key=") + 5))
            keys.setdefault(key, n + 1)
            instructions.append(instruction)
            item_lines.append(n + 1)
    return instructions, item_lines


def _read_heading(line: str, n: int) -> dict[str, str]:
    scope = read_scope_heading(line)
    if scope is None or scope_heading(Scope(**scope)) != line:  # type: ignore[arg-type]  # its level is one of three
        why = "not a scope heading as written: '## Everywhere', '## In `REPO`' or '## In `REPO` under `PATH`'"
        raise InputError("input.markdown_heading", why, at=(n + 1, 1))
    if parse_scope(scope) is None:
        rule = g.REPO if not g.is_repo(scope["repository"]) else g.PATH
        name = "repository" if rule is g.REPO else "path"
        why = f"the scope's {name} is not {rule.expected}: {g.shown(scope[name])}"
        raise InputError("input.markdown_scope", why, at=(n + 1, line.index("`") + 1))
    return scope


def _read_item(line: str, n: int, scope: dict[str, str]) -> dict[str, Any]:
    item = _ITEM.fullmatch(line)
    if item is None and " <!-- " in line:
        why = "the item's tag '<!-- key=KEY origin=ORIGIN -->' must end its line"
        raise InputError("input.markdown_key", why, at=(n + 1, line.rindex(" <!-- ") + 2))
    if item is None:
        why = "an item without its key: '- TEXT <!-- key=KEY origin=ORIGIN -->'"
        raise InputError("input.markdown_no_key", why, at=(n + 1, 1))
    tag = _TAG.fullmatch(item["tag"])
    at = (n + 1, item.start("tag") - 4)
    if tag is None:
        raise InputError("input.markdown_key", "the item's tag is not '<!-- key=KEY origin=ORIGIN -->'", at=at)
    if not g.is_id(tag["key"]):
        raise InputError("input.markdown_key", f"the key is not {g.ID.expected}: {g.shown(tag['key'])}", at=at)
    if tag["origin"] not in _ORIGINS:
        why = f"the origin is not one of {', '.join(_ORIGINS)}: {g.shown(tag['origin'])}"
        raise InputError("input.markdown_key", why, at=at)
    text, wrong = read_text(item["text"])
    if wrong is not None:
        shown = g.shown(item["text"][wrong : wrong + 12])
        why = f"the text is not written as the writer writes it, from {shown} (docs/markdown-memory.md, Texts)"
        raise InputError("input.markdown_text", why, at=(n + 1, 3 + wrong))
    if not 1 <= g.utf8_len(text) <= 4000:
        why = f"the text is {g.utf8_len(text)} bytes; SPEC §1 allows 1-4000"
        raise InputError("input.markdown_text", why, at=(n + 1, 3))
    body = {"key": tag["key"], "text": text, "scope": scope, "origin": tag["origin"]}
    return {**body, "digest": digest(body)}


def _check_layout(found: Sequence[str], memory: Mapping[str, Any], start: int) -> None:
    """Step 8: the section's lines are exactly what :func:`section_lines` writes for its memory."""
    expected = _lines_of(memory)  # Cannot fail: every instruction was just read and sealed.
    for n, (want, got) in enumerate(zip(expected, found, strict=False)):
        if want != got:
            what = "an empty line" if want == "" else g.shown(want[:60])
            why = f"the writer writes {what} here, not {g.shown(got[:60])} (docs/markdown-memory.md, Layout)"
            raise InputError("input.markdown_layout", why, at=(start + n + 1, 1))
    # Cannot fail otherwise: the markers end both, and every line between them was read into the memory.


def section_lines(memory: Mapping[str, Any]) -> list[str]:
    """The managed section's lines for ``memory``: the start marker; for each run of
    instructions with one scope, an empty line, the scope's heading, an empty line, and one
    item a line; an empty line; the end marker.

    Raises ``input.schema`` for a memory SPEC §1 does not allow, and
    ``input.markdown_unrepresentable`` for one the Markdown form cannot hold (docs/markdown-memory.md).
    """
    _check_representable(memory)
    return _lines_of(memory)


def _lines_of(memory: Mapping[str, Any]) -> list[str]:
    """:func:`section_lines` of a memory known to be representable (one just read)."""
    lines = [f"<!-- evidence-rank:memory version={int(memory['version'])} -->"]
    scope = None
    for instruction in memory["instructions"]:
        if instruction["scope"] != scope:
            scope = instruction["scope"]
            lines += ["", scope_heading(Scope(**scope)), ""]
        tag = f"<!-- key={instruction['key']} origin={instruction['origin']} -->"
        lines.append(f"- {written_text(instruction['text'])} {tag}")
    return [*lines, "", END]


def _check_representable(memory: Any) -> None:
    check_memory(memory)
    extra = sorted(set(memory) - {"version", "instructions"})
    if extra:
        why = f"memory member {extra[0]!r}: the Markdown form holds version and instructions only"
        raise InputError("input.markdown_unrepresentable", why, pointer=pointer_of(extra[0]))
    for i, instruction in enumerate(memory["instructions"]):
        extra = sorted(set(instruction) - {"key", "text", "scope", "origin", "digest"})
        if extra:
            why = f"instruction member {extra[0]!r}: the Markdown form holds key, text, scope, origin and the digest"
            raise InputError("input.markdown_unrepresentable", why, pointer=pointer_of("instructions", i, extra[0]))
        if not is_sealed(instruction):
            why = "the digest is not the instruction's seal: the Markdown form recomputes it (SPEC §1)"
            raise InputError("input.markdown_unrepresentable", why, pointer=pointer_of("instructions", i, "digest"))


def write_markdown_memory(memory: Mapping[str, Any], newline: str = "\n") -> bytes:
    """A file that holds ``memory`` and no prose: its section, and a final line ending."""
    return (newline.join(section_lines(memory)) + newline).encode("utf-8")


def splice_memory(found: MarkdownMemory, memory: Mapping[str, Any]) -> bytes:
    """The file ``found`` was read from, with ``memory`` in its section: every byte before and
    after it as it was. Read back before it is returned; a file that would not read back to
    ``memory`` and the same prose is refused (``input.markdown_layout``), never returned."""
    section = found.newline.join(section_lines(memory)) + (found.newline if found.ended else "")
    data = (found.before + section + found.after).encode("utf-8")
    again = read_markdown_memory(data)
    if canon(again.memory) != canon(memory) or (again.before, again.after) != (found.before, found.after):
        # Cannot happen for a file that was read: its prose closes every block before the section.
        raise InputError("input.markdown_layout", "the file would not read back as written", at=(found.start, 1))
    return data
