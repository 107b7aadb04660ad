"""The one escaper: every line the tool prints to a terminal or a CI log passes through here.

Text in a line may come from anyone (a file name, a rationale, a key, a ledger row),
and a terminal or a CI runner acts on some of it: an escape sequence recolours or hides
the rest of the line, a bidi override reorders it, a line break starts a new line that
can pass for the tool's own, and GitHub Actions obeys ``##[command]`` anywhere in a line
and ``::command::`` at its start. So nothing is printed that did not pass one of:

- :func:`printable`: one line of text;
- :func:`printable_json`: a JSON document on one line, its value unchanged;
- :class:`Command`: a workflow command the tool itself issues (``::error file=...::...``),
  its properties and its message escaped as the runner unescapes them.

The callers are the doors out, not the code that composes text: the command line's
standard output and error (:mod:`ranking.cli.output`), its log lines
(:mod:`ranking.cli.logs`), the progress line, and the pytest plugin's messages. Whoever
adds an output path calls one of them; no text is escaped twice by hand, or forgotten.
(GitHub's own toolkit escapes a command's data and properties in one place, ``issueCommand``.)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["printable", "printable_json", "Command"]

#: Unicode categories a terminal acts on or hides: controls (ESC, BEL, ...), formats (the
#: bidi overrides), surrogates, private use, unassigned, and line/paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str) -> str:
    """``text`` safe on one line of a terminal or a CI log:

    - each character a terminal would act on or hide is escaped as ``repr`` writes it: a line
      break (``\\n``), a control (``\\x1b``), a bidi override (``\\u202e``);
    - ``##[`` is written ``#\\x23[`` wherever it is, and a leading ``::`` (after any spaces)
      ``:\\x3a``: the runner obeys ``##[command]`` anywhere in a line and ``::command::`` at
      its start, so neither can be forged from a value.

    The rest is kept as it is; escaping twice is escaping once."""
    if not text.isprintable():
        text = "".join(ascii(c)[1:-1] if unicodedata.category(c) in _HIDDEN else c for c in text)
    if "##[" in text:
        text = text.replace("##[", "#\\x23[")
    rest = text.lstrip()  # the runner trims every kind of space before it looks for "::"
    if rest.startswith("::"):
        text = text[: len(text) - len(rest)] + ":\\x3a" + rest[2:]
    return text


def printable_json(data: bytes) -> bytes:
    """JSON bytes on one line that a terminal or a CI log cannot read anything into, with the
    same value: ``##[`` (only ever inside a string) is written ``#\\u0023[``, and a character a
    terminal would act on, which RFC 8785 leaves as it is inside a string (a bidi override,
    U+0085, U+2028), as its ``\\uXXXX`` escape. A document starts with ``{`` or ``[``, so no
    ``::`` can start a line of it."""
    if not data.isascii():
        text = data.decode("utf-8")
        if not text.isprintable():
            text = "".join(_json_escape(c) if unicodedata.category(c) in _HIDDEN else c for c in text)
            data = text.encode("utf-8")
    return data.replace(b"##[", b"#\\u0023[")


def _json_escape(c: str) -> str:
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class Command(NamedTuple):
    """A GitHub Actions workflow command the tool issues: ``::NAME PROPERTIES::MESSAGE``. (A named
    tuple, not a dataclass: every command imports this class, and a frozen dataclass costs
    start-up to build, bench/RESULTS.md, issue 48.)"""

    name: str
    """``error``, ``warning`` or ``notice``: the tool's own word, never a value."""
    message: str
    properties: Mapping[str, str | int] | None = None
    """``file``, ``line``, ``col``, ``title``, in the order given; a value may come from anyone."""

    def line(self) -> str:
        """The command as one line: a message and properties that cannot end it or start another."""
        props = ",".join(f"{key}={_property(str(value))}" for key, value in (self.properties or {}).items())
        return f"::{self.name}{' ' + props if props else ''}::{_data(printable(self.message))}"


def _data(s: str) -> str:
    """A command's message: ``%``, CR and LF escaped as the runner unescapes them."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(s: str) -> str:
    """A command's property: also ``:`` and ``,``, which end it, and (as :func:`printable` writes
    them) the characters a terminal would act on; CR and LF stay percent-escaped, so a file with
    a line break in its name is still that file."""
    shown = "".join(c if c in "\r\n" else printable(c) for c in s).replace("##[", "#\\x23[")
    return _data(shown).replace(":", "%3A").replace(",", "%2C")
