"""The Markdown structure of a memory file, as a CommonMark parser reads it (docs/markdown-memory.md):
where the managed section's markers are, that the section holds only scope headings and
one-line list items, and where the prose holds list items and HTML comments.

markdown-it-py does the reading, so that what counts as a marker is what any CommonMark reader
(GitHub, an agent's own Markdown library) takes for an HTML comment on a line of its own: the
same text in a fenced or indented code block, or in a code span, is not one. Its block rules
only: inline Markdown (emphasis, links) is read just where a marker or a comment may be.
markdown-it-py is imported where a Markdown text is parsed, so that a JSON memory never pays for it.

Pure: text in, positions and refusals out (``input.markdown_*``, at a line and a column).
Lines are counted as CommonMark counts them (``\\n``, ``\\r\\n`` or ``\\r`` ends one), from 1;
columns in characters (code points), from 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from curator_io.errors import InputError
from curator_io.grammar import MAX_INT

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = [
    "START",
    "END",
    "HEADING",
    "ITEM",
    "Blocks",
    "read_blocks",
    "Section",
    "find_section",
    "check_section",
    "Prose",
    "read_prose",
    "imports_only",
]

#: The start marker: ``<!-- evidence-rank:memory version=N -->``, N an INT without leading zeros.
START = re.compile(r"<!-- evidence-rank:memory version=(0|[1-9][0-9]{0,15}) -->")
#: The end marker.
END = "<!-- /evidence-rank:memory -->"
#: What every marker holds: a comment that holds it and is not a marker in the form is refused.
_MARKED = "evidence-rank:memory"

HEADING, ITEM = "heading", "item"
#: markdown-it's CommonMark preset's limit on nesting (a list item is two levels: its list and
#: itself): past it, the parser reads no block of the rest of the file.
_MAX_NESTING = 20
#: Claude Code's import line: ``@path`` alone on its line (a CLAUDE.md that is ``@AGENTS.md``).
_IMPORT_LINE = re.compile(r"@\S+")


@dataclass(frozen=True, slots=True)
class Blocks:
    """A file's lines and its blocks, as markdown-it reads them."""

    lines: Sequence[str]
    """Every line, without its line ending."""
    tokens: Sequence[Token]


def read_blocks(text: str, lines: Sequence[str]) -> Blocks:
    """``text`` (no byte-order mark) read by CommonMark's block rules."""
    from markdown_it import MarkdownIt  # only a Markdown memory pays for the import

    parser = MarkdownIt("commonmark", {"maxNesting": _MAX_NESTING})
    parser.core.ruler.disable(["inline", "text_join"])
    return Blocks(lines, parser.parse(text))


_INLINE_BUDGET = 8192
"""How many characters of paragraphs and headings that hold a marker's text in a comment the
inline parser reads, in all, to find whether each such comment is in a code span: inline
parsing is far slower than the block parse on text made for it (runs of ``[``, ``![``,
emphasis; bench/RESULTS.md), so past this a comment that holds a marker's text is refused
rather than parsed."""


def _comments_with_marker(text: str) -> int:
    """How many comments in ``text`` hold a marker's text, as the lines show them: each ``<!--``
    to the next ``-->`` (or the end), whatever a parser makes of it. Linear: one pass."""
    count, at = 0, text.find("<!--")
    while at >= 0:
        end = text.find("-->", at + 4)
        end = len(text) if end < 0 else end
        count += _MARKED in text[at:end]
        at = text.find("<!--", end)
    return count


def _code_spans(tokens: Sequence[Token]) -> list[str]:
    """The text of every code span among ``tokens`` and their children (an image's too)."""
    found, stack = [], list(tokens)
    while stack:
        token = stack.pop()
        if token.type == "code_inline":
            found.append(token.content)
        stack.extend(token.children or ())
    return found


def _hides_a_marker(content: str, budget: list[int]) -> str | None:
    """Why the text of a paragraph or heading holds a marker, or None: every comment in it that
    holds a marker's text must be inside a code span, as CommonMark reads the text (the lines
    and the parser alike: a comment the parser does not see, past its nesting limit or for any
    other reason, is still a comment)."""
    wanted = _comments_with_marker(content)
    if not wanted:
        return None
    budget[0] -= len(content)
    if budget[0] < 0:
        return (
            f"a marker's text in a comment, in more text than the reader parses for code spans "
            f"({_INLINE_BUDGET:,} characters in all): a marker is a line of its own"
        )
    from markdown_it import MarkdownIt

    spans = _code_spans(MarkdownIt("commonmark").parseInline(content))
    if sum(_comments_with_marker(span) for span in spans) < wanted:
        return "a marker inside a line of text: a marker is a line of its own"
    return None


def _where(blocks: Blocks, first: int, last: int, needle: str) -> tuple[int, int]:
    """The 1-based line and column of ``needle`` in lines ``first`` to ``last`` (0-based, ``last``
    excluded); the first line's first non-space character when it is not there."""
    for n in range(first, max(last, first + 1)):
        at = blocks.lines[n].find(needle)
        if at >= 0:
            return n + 1, at + 1
    line = blocks.lines[first]
    return first + 1, len(line) - len(line.lstrip(" ")) + 1


def _comment_at(blocks: Blocks, first: int, last: int) -> tuple[int, int]:
    """Where the comment that holds a marker's text opens (or the text, on a later line of the comment)."""
    line, column = _where(blocks, first, last, _MARKED)
    opening = blocks.lines[line - 1].rfind("<!--", 0, column - 1)
    return line, column if opening < 0 else opening + 1


@dataclass(frozen=True, slots=True)
class Section:
    """Where the managed section is: its markers' lines (0-based) and tokens, and its version."""

    start: int
    end: int
    version: int
    first_token: int
    last_token: int


def _marker(blocks: Blocks, token: Token) -> str | None:
    """``start`` or ``end`` when ``token`` is a marker in the form; None when it holds no marker
    text; ``input.markdown_marker`` when it holds one that is not in the form."""
    assert token.map is not None  # Cannot fail: every block token has its lines.
    first, last = token.map
    line = blocks.lines[first]
    if token.level == 0 and last == first + 1:
        found = START.fullmatch(line)
        if found is not None and int(found[1]) <= MAX_INT:
            return "start"
        if line == END:
            return "end"
    if token.level > 0:
        why = "a marker inside a list or a block quote: a marker is a line of its own, at the start of the line"
    elif line[:1] == " ":
        why = "an indented marker: a marker starts its line"
    else:
        why = (
            f"not a marker in the form: '<!-- evidence-rank:memory version=N -->' (N an INT without leading "
            f"zeros) or '{END}', each alone on its line"
        )
    raise InputError("input.markdown_marker", why, at=_comment_at(blocks, first, last))


def _is_code(token: Token) -> bool:
    return token.type in ("fence", "code_block")


def find_section(blocks: Blocks) -> Section:
    """The one managed section, or the refusal that says why there is none: a marker not in the
    form, no marker, a second section, a marker without its pair (docs/markdown-memory.md,
    "Reading", steps 3-4). What is refused is decided on the lines and the parser's view alike: a
    line that holds a marker's text where the parser read no block (past its nesting limit) is
    refused, as is a comment holding one that the parser does not show inside a code span."""
    markers: list[tuple[str, int]] = []
    in_code: int | None = None  # the first code block holding a marker's text, for the message
    unread = _first_unread_marker(blocks)
    budget = [_INLINE_BUDGET]
    for i, token in enumerate(blocks.tokens):
        if unread is not None and token.map is not None and token.map[0] > unread:
            break
        if _MARKED not in token.content:
            continue
        if _is_code(token):
            in_code = i if in_code is None else in_code
        elif token.type == "html_block":
            kind = _marker(blocks, token)
            if kind is not None:
                markers.append((kind, i))
        elif token.type == "inline" and (why := _hides_a_marker(token.content, budget)) is not None:
            assert token.map is not None  # Cannot fail: an inline token has its block's lines.
            raise InputError("input.markdown_marker", why, at=_comment_at(blocks, token.map[0], token.map[1]))
    if unread is not None:
        why = (
            "a marker's text where the Markdown parser reads no block (past a list nested "
            f"{_MAX_NESTING // 2} deep, or in a link reference definition), so nothing can show it is not a marker"
        )
        raise InputError("input.markdown_marker", why, at=_comment_at(blocks, unread, unread + 1))
    return _paired(blocks, markers, in_code)


def _read_lines(blocks: Blocks) -> list[bool]:
    """Whether the parser read each line into a block that holds text (a paragraph, a heading,
    code, HTML, a break): past its nesting limit it reads none of the lines that follow."""
    read = [False] * len(blocks.lines)
    for token in blocks.tokens:
        if token.nesting == 0 and token.map is not None:
            first, last = token.map
            read[first:last] = [True] * (last - first)
    return read


def _first_unread_marker(blocks: Blocks) -> int | None:
    """The first line (0-based) that holds a marker's text and that the parser read into no block."""
    marked = [n for n, line in enumerate(blocks.lines) if _MARKED in line]
    if not marked:
        return None
    read = _read_lines(blocks)
    return next((n for n in marked if not read[n]), None)


def _line_of(blocks: Blocks, i: int) -> int:
    token = blocks.tokens[i]
    assert token.map is not None  # Cannot fail: markers and code blocks have their lines.
    return token.map[0]


def _paired(blocks: Blocks, markers: list[tuple[str, int]], in_code: int | None) -> Section:
    if not markers:
        hint = ""
        if in_code is not None:
            code = blocks.tokens[in_code].map
            assert code is not None  # Cannot fail: a code block has its lines.
            line = _where(blocks, code[0], code[1], _MARKED)[0]
            hint = f"; the marker on line {line} is inside a code block, so it is text"
        named = imports_only(blocks.lines)
        advice = (
            f"the file only imports {', '.join(named)} (Claude Code's @ line): its memory is there, "
            f"give {named[0]} instead"
            if named
            else "evidence-rank memory import adopts a file written by hand"
        )
        why = f"no managed section: no line '<!-- evidence-rank:memory version=N -->'{hint} ({advice})"
        raise InputError("input.markdown_no_section", why, at=(1, 1))
    (kind, first), *rest = markers
    at = (_line_of(blocks, first) + 1, 1)
    if kind == "end":
        raise InputError("input.markdown_unpaired", "an end marker with no start marker before it", at=at)
    if not rest:
        why = f"the managed section that starts here has no end marker '{END}'"
        if in_code is not None and _line_of(blocks, in_code) > at[0] - 1:
            why += f": a code block opens on line {_line_of(blocks, in_code) + 1} and holds it"
        raise InputError("input.markdown_unpaired", why, at=at)
    (kind, last), *more = rest
    if kind == "start":
        where = (_line_of(blocks, last) + 1, 1)
        why = f"a second managed section starts inside the one that starts on line {at[0]}"
        raise InputError("input.markdown_two_sections", why, at=where)
    if more:
        kind, extra = more[0]
        where = (_line_of(blocks, extra) + 1, 1)
        if kind == "start":
            why = (
                f"a second managed section: a file holds one (the first is lines {at[0]}-{_line_of(blocks, last) + 1})"
            )
            raise InputError("input.markdown_two_sections", why, at=where)
        raise InputError("input.markdown_unpaired", "an end marker with no start marker before it", at=where)
    version = START.fullmatch(blocks.lines[_line_of(blocks, first)])
    assert version is not None  # Cannot fail: _marker matched it.
    return Section(at[0] - 1, _line_of(blocks, last), int(version[1]), first, last)


def imports_only(lines: Sequence[str]) -> list[str]:
    """The files a file names with Claude Code's ``@path`` lines, when those (and empty lines) are
    all it holds; [] otherwise."""
    named = [line.strip()[1:] for line in lines if _IMPORT_LINE.fullmatch(line.strip())]
    rest = [line for line in lines if line.strip() and not _IMPORT_LINE.fullmatch(line.strip())]
    return [] if rest else named


def _close(tokens: Sequence[Token], i: int) -> int:
    """The index of the token that closes the one at ``i`` (same level, nesting -1)."""
    level = tokens[i].level
    j = i + 1
    while not (tokens[j].level == level and tokens[j].nesting == -1):
        j += 1
    return j


_WHAT = {
    "paragraph_open": "a paragraph: a line of text that is not a list item",
    "fence": "a code block",
    "code_block": "a code block (an indented line)",
    "blockquote_open": "a block quote",
    "hr": "a thematic break",
    "html_block": "an HTML block: a comment here would hide text from the rendered page",
    "ordered_list_open": "an ordered list: instructions are '- ' items",
}


def check_section(blocks: Blocks, section: Section) -> dict[int, str]:
    """Each line (0-based) of the section that holds a scope heading or a list item, by which it
    holds, once every block between the markers is one of those two and every item is one line
    holding one paragraph; else the refusal (docs/markdown-memory.md, "Reading", step 6)."""
    tokens, roles = blocks.tokens, {}
    i = section.first_token + 1
    while i < section.last_token:
        token = tokens[i]
        assert token.map is not None  # Cannot fail: a block that opens has its lines.
        at = _start_of(blocks, token.map[0])
        if token.type == "heading_open":
            if token.markup != "##":
                level = "a Setext heading (a line underlined with = or -)" if token.markup in ("=", "-") else None
                why = f"{level or f'a level-{len(token.markup)} heading'}: a scope is an ATX heading of level 2 (##)"
                raise InputError("input.markdown_heading", why, at=at)
            roles[token.map[0]] = HEADING
        elif token.type == "bullet_list_open" and token.markup == "-":
            roles |= _items(blocks, i)
        elif token.type == "bullet_list_open":
            raise InputError("input.markdown_block", f"a list written with '{token.markup}': items are '- '", at=at)
        else:
            raise InputError("input.markdown_block", _WHAT.get(token.type, token.type), at=at)
        i = _close(tokens, i) + 1 if token.nesting == 1 else i + 1
    return roles


def _start_of(blocks: Blocks, line: int) -> tuple[int, int]:
    text = blocks.lines[line]
    return line + 1, len(text) - len(text.lstrip(" ")) + 1


def _items(blocks: Blocks, opening: int) -> dict[int, str]:
    """The lines of a bullet list's items, each one line holding one paragraph."""
    tokens, roles = blocks.tokens, {}
    i = opening + 1
    while tokens[i].type == "list_item_open":
        item, end = tokens[i], _close(tokens, i)
        assert item.map is not None  # Cannot fail: an item has its lines.
        inside = tokens[i + 1 : end]
        nested = next((t for t in inside if t.type in ("bullet_list_open", "ordered_list_open")), None)
        if nested is not None:
            assert nested.map is not None
            raise InputError(
                "input.markdown_nested_list", "a nested list: an item is one line", at=_start_of(blocks, nested.map[0])
            )
        if not inside:
            raise InputError("input.markdown_item", "an empty item", at=_start_of(blocks, item.map[0]))
        if [t.type for t in inside] != ["paragraph_open", "inline", "paragraph_close"]:
            blocks_in = [t for t in inside if t.level == inside[0].level and t.nesting != -1]
            second = blocks_in[1] if blocks_in[0].type == "paragraph_open" else blocks_in[0]
            assert second.map is not None
            why = "an item holds a block other than one line of text (a code block, a second paragraph, a comment)"
            raise InputError("input.markdown_item", why, at=_start_of(blocks, second.map[0]))
        paragraph = inside[0].map
        assert paragraph is not None
        if paragraph[1] - paragraph[0] > 1:
            why = "the item's text goes on to this line: an item is one line (a line break is written &#10;)"
            raise InputError("input.markdown_item", why, at=_start_of(blocks, paragraph[0] + 1))
        roles[item.map[0]] = ITEM
        i = end + 1
    return roles


@dataclass(frozen=True, slots=True)
class Prose:
    """Where the prose holds what an agent reads as an instruction: list items, and HTML comments
    (hidden when the file is rendered). 0-based lines."""

    items: frozenset[int]
    comments: frozenset[int]
    rules: tuple[tuple[int, str], ...] = ()
    """(line, text) of each list item that opens with a paragraph: its lines, trimmed, joined by
    a space (what look-alikes compare a proposal with: a rule people left in the prose)."""


def read_prose(blocks: Blocks, section: Section) -> Prose:
    """The list items, the rules they hold and the HTML comments outside ``section``. A comment
    is any line outside code blocks that holds ``<!--``, as the lines show it (in a code span too:
    the reader is told more, never less), and any such line the parser read no block of."""
    items: set[int] = set()
    code: set[int] = set()
    rules = []
    tokens = blocks.tokens
    for n, token in enumerate(tokens):
        if section.first_token <= n <= section.last_token or token.map is None:
            continue
        if token.type == "list_item_open":
            items.add(token.map[0])
            if n + 2 < len(tokens) and tokens[n + 1].type == "paragraph_open":
                text = " ".join(part.strip() for part in tokens[n + 2].content.splitlines())
                if text:
                    rules.append((token.map[0], text))
        elif _is_code(token):
            code.update(range(*token.map))
    inside = range(section.start, section.end + 1)
    comments = {n for n, line in enumerate(blocks.lines) if "<!--" in line and n not in code and n not in inside}
    return Prose(frozenset(items), frozenset(comments), tuple(rules))
