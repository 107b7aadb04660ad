"""Where a JSON Pointer's value is in a JSON file: the line and column a CI annotation needs to
appear on the changed line of a pull request. The one place a position in JSON text is found:
the gate's findings (through :meth:`curator_io.memory.MemoryFile.position`, which answers a
Markdown memory's too) and a refusal's (:func:`refusal_position`) alike.

Pure: the text (or the bytes read) in, a position out. Only the members and elements on the
pointer's path are read as JSON; everything else is skipped a value at a time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from curator_io.errors import EvidenceRankError

__all__ = ["position_of", "position_in", "refusal_position", "text_of"]

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


def position_of(text: str, pointer: str) -> tuple[int, int] | None:
    """The 1-based ``(line, column)`` of the value ``pointer`` (RFC 6901) names in ``text``, or of
    the nearest value on its path that is there (a removed member: its object); None when ``text``
    is not JSON along that path."""
    at = _skip_space(text, 0)
    if at >= len(text):
        return None
    for token in (t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]):
        inner = _child(text, at, token)
        if inner is None:
            break
        at = inner
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def text_of(raw: bytes) -> str:
    """The text a file's positions are counted in: its bytes as UTF-8, a byte that is not one a
    replacement character (a file the gate refuses still has places to point at)."""
    return raw.decode("utf-8", "replace")


def position_in(raw: bytes, pointer: str) -> tuple[int, int] | None:
    """:func:`position_of` in the bytes of a file as read (:func:`text_of`)."""
    return position_of(text_of(raw), pointer)


def refusal_position(e: EvidenceRankError, read: Mapping[str, bytes]) -> tuple[int, int] | None:
    """The 1-based line and column of what a refusal is about in its file: its own (a Markdown
    memory's, :attr:`~curator_io.errors.EvidenceRankError.at`), else where its pointer is in the
    bytes already read of that file (``read``, by path); None when neither is known."""
    if e.at is not None:
        return e.at
    raw = read.get(e.source) if e.source is not None else None
    return None if raw is None or e.pointer is None else position_in(raw, e.pointer)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def _child(text: str, at: int, token: str) -> int | None:
    """Where the member ``token`` (an object) or the element ``int(token)`` (an array) of the
    value at ``at`` starts; None when there is no such member or element, or the text is not JSON."""
    try:
        if text[at] == "{":
            return _member(text, at, token)
        if text[at] == "[" and token.isdigit():
            return _element(text, at, int(token))
    except (ValueError, IndexError):
        return None
    return None


def _member(text: str, at: int, token: str) -> int | None:
    at = _skip_space(text, at + 1)
    while text[at] == '"':
        name, at = _DECODER.raw_decode(text, at)
        at = _skip_space(text, at)
        if text[at] != ":":
            return None
        start = _skip_space(text, at + 1)
        if name == token:
            return start
        at = _skip_space(text, _DECODER.raw_decode(text, start)[1])
        if text[at] != ",":
            return None
        at = _skip_space(text, at + 1)
    return None


def _element(text: str, at: int, index: int) -> int | None:
    at = _skip_space(text, at + 1)
    for _ in range(index):
        if text[at] == "]":
            return None
        at = _skip_space(text, _DECODER.raw_decode(text, at)[1])
        if text[at] != ",":
            return None
        at = _skip_space(text, at + 1)
    return None if text[at] == "]" else at
