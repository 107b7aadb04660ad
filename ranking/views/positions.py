"""Where a JSON Pointer's value is in the text of a document: the line and column a CI
annotation needs to appear on the changed line of a pull request.

Pure: the text in, a position out. Only the members and elements on the pointer's path are
read as JSON; everything else is skipped a value at a time.
"""

from __future__ import annotations

import json

__all__ = ["position_of"]

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
