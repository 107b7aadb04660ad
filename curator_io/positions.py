"""Where a JSON Pointer's value is in a JSON file: the line and column a CI annotation needs to
appear on the changed line of a pull request. The one place a position in JSON text is found:
the gate's findings (through :meth:`curator_io.memory.MemoryFile.position`, which answers a
Markdown memory's too) and a refusal's (:func:`refusal_position`) alike.

Pure: the text (or the bytes read) in, a position out. Only the members and elements on the
pointer's path are read as JSON; everything else is skipped a value at a time, once for all
the pointers asked of one text (:class:`JsonPlaces`), so that a memory with many findings is
read once, not once a finding.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from curator_io.errors import EvidenceRankError

__all__ = ["JsonPlaces", "position_of", "position_in", "refusal_position", "text_of"]

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


def position_of(text: str, pointer: str) -> tuple[int, int] | None:
    """The 1-based ``(line, column)`` of the value ``pointer`` (RFC 6901) names in ``text``, or of
    the nearest value on its path that is there (a removed member: its object); None when ``text``
    is not JSON along that path."""
    return JsonPlaces(text).position(pointer)


class JsonPlaces:
    """Where each of many pointers is in one JSON text (:func:`position_of`'s answers): the
    members of an object and the elements of an array are found as far as a pointer asks, and
    remembered for the next, and lines are counted on from the last place asked."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._members: dict[int, tuple[dict[str, int], Iterator[tuple[str, int]]]] = {}
        self._elements: dict[int, tuple[list[int], Iterator[int]]] = {}
        self._counted = (0, 1)  # a place, and its line

    def position(self, pointer: str) -> tuple[int, int] | None:
        """As :func:`position_of`."""
        text = self.text
        at = _skip_space(text, 0)
        if at >= len(text):
            return None
        for token in (t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]):
            inner = self._child(at, token)
            if inner is None:
                break
            at = inner
        return self._line(at), at - (text.rfind("\n", 0, at) + 1) + 1

    def _line(self, at: int) -> int:
        since, line = self._counted
        if at < since:
            since, line = 0, 1
        line += self.text.count("\n", since, at)
        self._counted = (at, line)
        return line

    def _child(self, at: int, token: str) -> int | None:
        """Where the member ``token`` (an object) or the element ``int(token)`` (an array) of the
        value at ``at`` starts; None when there is no such member or element, or the text is not JSON."""
        try:
            if self.text[at] == "{":
                return self._member(at, token)
            if self.text[at] == "[" and token.isdigit():
                return self._element(at, int(token))
        except (ValueError, IndexError):
            return None
        return None

    def _member(self, at: int, token: str) -> int | None:
        if at not in self._members:
            self._members[at] = ({}, _members(self.text, at))
        seen, rest = self._members[at]
        if token in seen:
            return seen[token]
        for name, start in rest:
            seen.setdefault(name, start)  # the first of a repeated name, as a reader finds it
            if name == token:
                return start
        return None

    def _element(self, at: int, index: int) -> int | None:
        if at not in self._elements:
            self._elements[at] = ([], _elements(self.text, at))
        starts, rest = self._elements[at]
        if index >= len(starts):
            for start in rest:
                starts.append(start)
                if len(starts) > index:
                    break
        return starts[index] if index < len(starts) else None


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


def _members(text: str, at: int) -> Iterator[tuple[str, int]]:
    """The name and the start of the value of each member of the object at ``at``, in order, as
    far as the text is JSON."""
    at = _skip_space(text, at + 1)
    while text[at] == '"':
        name, at = _DECODER.raw_decode(text, at)
        at = _skip_space(text, at)
        if text[at] != ":":
            return
        start = _skip_space(text, at + 1)
        yield name, start
        at = _skip_space(text, _DECODER.raw_decode(text, start)[1])
        if text[at] != ",":
            return
        at = _skip_space(text, at + 1)


def _elements(text: str, at: int) -> Iterator[int]:
    """The start of each element of the array at ``at``, in order, as far as the text is JSON."""
    at = _skip_space(text, at + 1)
    while text[at] != "]":
        yield at
        at = _skip_space(text, _DECODER.raw_decode(text, at)[1])
        if text[at] != ",":
            return
        at = _skip_space(text, at + 1)
