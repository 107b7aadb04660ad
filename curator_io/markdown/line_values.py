"""How a value is written on one line of a Markdown memory (docs/markdown-memory.md), and read
back exactly: an instruction's text, and a scope's repository and path in its heading.

Pure, and line by line: the structure around these lines (which line is a list item, which is
in a code block) is :mod:`curator_io.markdown.document`'s. What is written here reads back to
the same value, and each value has exactly one written form, so a reader can check a line by
writing what it read (:func:`read_text` returns where the two first differ).

- **A text** is written as it is, Markdown and all, except for what would end its line, change
  what the line is, or hide part of it when the file is rendered; those characters are written
  as decimal character references, which every CommonMark renderer shows as the character
  (:func:`written_text` lists them).
- **A repository or a path** is written as a code span, whose content CommonMark takes
  literally (no escapes, no references): :func:`code_span`.
"""

from __future__ import annotations

import re

from curator_io.models import Scope

__all__ = [
    "written_text",
    "read_text",
    "code_span",
    "scope_heading",
    "read_scope_heading",
    "EVERYWHERE",
]

#: Characters always written as a reference: every C0 and C1 control and DEL (a line break, a
#: tab, an escape sequence) and the Unicode line and paragraph separators, so a text is one line
#: of the file for every tool that splits lines, and nothing in it acts on a terminal.
_ALWAYS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: ``<`` before ``!`` or ``?`` opens what a renderer does not show (a comment, a declaration,
#: CDATA, a processing instruction): so that nothing of a text, nor its key, can be hidden.
_HIDING = re.compile(r"<(?=[!?])")
#: An ``&`` the reader would take for a reference is written ``&amp;``.
_AMPERSAND = re.compile(r"&(?=amp;|#[0-9]{1,7};)")
#: A start that makes the line something other than a list item holding one paragraph: an
#: indented code block or a wider indent (a space), a heading, a block quote, an HTML block, a
#: nested list, a fence, a link reference definition. Its first character is written as a reference.
_BLOCK_START = re.compile(r"[ #><]|[-+*](?: |$)|[0-9]{1,9}[.)](?: |$)|```|~~~|\[.*\]:")
#: What looks like a reference, for pointing at one that is not written as the writer writes it.
_ANY_REFERENCE = re.compile(r"&(?:#[0-9]*|[A-Za-z]*);?")
#: What the reader decodes: the two forms :func:`written_text` writes.
_REFERENCE = re.compile(r"&(?:amp|#([0-9]{1,7}));")

EVERYWHERE = "## Everywhere"
"""The heading of the global scope."""
_IN = "## In "
_UNDER = " under "


def _reference(c: str) -> str:
    return f"&#{ord(c)};"


def written_text(text: str) -> str:
    """``text`` on one line of a list item: as it is, except, each as ``&#N;`` (decimal):

    1. every C0 and C1 control, DEL, U+2028 and U+2029;
    2. ``<`` before ``!`` or ``?``;
    3. the first character, when the text starts with a space, ``#``, ``>``, ``<``, a bullet
       (``-``, ``+`` or ``*`` then a space or nothing), an ordered-list number (``1.``, ``2)``
       then a space or nothing), three backticks or tildes, or ``[...]:``;

    and an ``&`` that starts ``&amp;`` or ``&#`` digits ``;`` is written ``&amp;``.
    """
    out = _AMPERSAND.sub("&amp;", text)
    out = _ALWAYS.sub(lambda m: _reference(m[0]), out)
    out = _HIDING.sub("&#60;", out)
    if _BLOCK_START.match(out):
        out = _reference(out[0]) + out[1:]
    return out


def read_text(written: str) -> tuple[str, int | None]:
    """The text ``written`` holds, and None when ``written`` is exactly how :func:`written_text`
    writes it; else the offset in ``written`` of the first character that is not.

    ``&amp;`` is ``&`` and ``&#N;`` is the character N; any other character is itself. A
    reference to what is not a Unicode scalar value (a surrogate, past U+10FFFF) is not
    decoded, so it is never how a text is written.
    """
    text = _REFERENCE.sub(_decoded, written)
    again = written_text(text)
    if again == written:
        return text, None
    wrong = next((i for i, (a, b) in enumerate(zip(again, written, strict=False)) if a != b), len(again))
    # Inside a reference, the reference is what is wrong: point at its "&".
    start = written.rfind("&", 0, wrong + 1)
    inside = _ANY_REFERENCE.match(written, start) if start >= 0 else None
    return text, start if inside is not None and inside.end() > wrong else wrong


def _decoded(m: re.Match[str]) -> str:
    if m[1] is None:
        return "&"
    code = int(m[1])
    return m[0] if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF else chr(code)


def code_span(value: str) -> str:
    """``value`` as a CommonMark code span that holds exactly it: fenced by the shortest run of
    backticks that does not occur in it, and padded with a space on each side when it starts or
    ends with a backtick, or starts and ends with a space and is not all spaces (CommonMark
    strips one such space from each side)."""
    runs = {len(r) for r in re.findall("`+", value)}
    fence = "`" * next(n for n in range(1, len(runs) + 2) if n not in runs)
    pad = value[:1] == "`" or value[-1:] == "`" or (value[:1] == value[-1:] == " " and value.strip(" ") != "")
    inner = f" {value} " if pad else value
    return fence + inner + fence


def _read_code_span(line: str, at: int) -> tuple[str, int] | None:
    """The content of the code span that starts at ``line[at]`` and where it ends, as CommonMark
    reads it; None when there is none there."""
    opening = re.compile("`+").match(line, at)
    if opening is None:
        return None
    n = len(opening[0])
    for closing in re.finditer("`+", line[opening.end() :]):
        if len(closing[0]) == n:
            inner = line[opening.end() : opening.end() + closing.start()]
            if inner[:1] == inner[-1:] == " " and inner.strip(" ") != "":
                inner = inner[1:-1]
            return inner, opening.end() + closing.end()
    return None


def scope_heading(scope: Scope) -> str:
    """The heading a scope's instructions are listed under: ``## Everywhere``, ``## In `REPO```,
    ``## In `REPO` under `PATH```."""
    if scope.level == "global":
        return EVERYWHERE
    assert scope.repository is not None  # Cannot fail: a narrow scope has a repository.
    heading = _IN + code_span(scope.repository)
    return heading + (_UNDER + code_span(scope.path) if scope.path is not None else "")


def read_scope_heading(line: str) -> dict[str, str] | None:
    """The scope (as SPEC §1 writes it) a heading line names, read as :func:`scope_heading` writes
    it; None when the line is not one of the three forms. The values are not checked here."""
    if line == EVERYWHERE:
        return {"level": "global"}
    if not line.startswith(_IN):
        return None
    repository = _read_code_span(line, len(_IN))
    if repository is None:
        return None
    repo, at = repository
    if at == len(line):
        return {"level": "repository", "repository": repo}
    if not line.startswith(_UNDER, at):
        return None
    path = _read_code_span(line, at + len(_UNDER))
    if path is None or path[1] != len(line):
        return None
    return {"level": "path", "repository": repo, "path": path[0]}
