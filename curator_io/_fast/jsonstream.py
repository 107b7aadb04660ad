"""Speed only (memory): reading a large JSON object a piece at a time, so its whole parse is never held.

Equals: :func:`curator_io.jsonio.parse_json` of the whole document, member by
member, wherever it does not raise :class:`Unsure`. Proven by:
``tests/curator_io/test_jsonstream.py``, ``test_any_document_reads_in_chunks_as_parsed_whole``
and ``test_a_document_with_one_byte_changed_is_never_read_differently`` (hypothesis),
and ``test_every_corpus_bundle_loads_in_chunks_as_it_loads_whole``.

A bundle is one JSON object whose big members are arrays (evidence, traces,
proposals). Parsed whole, a bundle takes about five times its size in Python
objects; read here, only one chunk of about 128 KB is parsed at a time:

1. The top-level object is walked member by member: a name is matched and
   decoded on its own, a member that is not an array is parsed on its own.
2. An array member is parsed in chunks of whole elements, each chunk by
   ``orjson`` as ``b"[" + chunk + b"]"``. Where a chunk ends is a guess: just
   after the first ``}`` that is followed by ``,`` and ``{`` past
   :data:`CHUNK` bytes. Parsing proves or refutes the guess. A chunk that
   starts at an element and parses ends at an element too; a guess inside a
   string or a nested value leaves the chunk unterminated ("unexpected end of
   data"), and the next ``},{`` is tried. A chunk that reaches past the end
   of its array closes early ("unexpected content after document"), which
   tells where the array ends; that shorter chunk is parsed again.
3. Every chunk meets the rules :func:`curator_io.jsonio.parse_json` applies to
   a whole document: no integer beyond 2^53 - 1, and no repeated member name
   (the colon count of the chunk's bytes equals that of its *sorted dump*,
   ``orjson.dumps(value, OPT_SORT_KEYS | OPT_STRICT_INTEGER)``; see jsonio). A
   chunk whose bytes *are* its sorted dump, as a canonical document's are, has
   lost no member: it needs no count.

Whatever this reader cannot vouch for raises :class:`Unsure`: a syntax error,
a duplicate name, an escaped colon, an element larger than :data:`LIMIT`, a
guess refuted too often. The caller then parses the document whole with
``parse_json``, which decides exactly and names any error. So what this module
returns is always what ``parse_json`` would return, a piece at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from curator_io.errors import InputError
from curator_io.jsonio import parse_json

__all__ = ["Unsure", "ArrayMember", "iter_members", "parse_chunk", "CHUNK", "LIMIT"]

#: Bytes of input per chunk, about: a chunk ends at the first guess past this. Small
#: enough that a chunk's objects stay in the CPU's caches while the loader makes its
#: passes over them (bench/RESULTS.md, "Second round", 6).
CHUNK = 1 << 17
#: The longest chunk tried; an element longer than this is left to the whole parse.
LIMIT = 8 << 20
#: How many refuted guesses a chunk may cost before the whole parse takes over.
MAX_GUESSES = 32

_WS = re.compile(rb"[ \t\n\r]*")
_NAME = re.compile(rb'"(?:[^"\\]|\\.)*"')
_GUESS = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*\{")
_SORTED_DUMP = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER
_OPEN_ARRAY, _CLOSE_ARRAY, _OPEN_OBJECT, _CLOSE_OBJECT, _COMMA, _COLON = b"[]{},:"


class Unsure(Exception):
    """This reader cannot vouch for the document: parse it whole."""


class _Unterminated(Exception):
    """A chunk was cut inside an element."""


class _Refused(Unsure):
    """orjson refused a chunk before its end."""


class _ClosedEarly(Exception):
    """A chunk reached past the end of its array."""

    def __init__(self, length: int) -> None:
        self.length = length
        """Bytes of the chunk that belong to the array."""


def parse_chunk(raw: bytes, start: int, end: int) -> tuple[list[Any], bytes]:
    """The elements in ``raw[start:end]`` (a run of whole array elements), and their sorted dump.

    The sorted dump, ``orjson.dumps(elements, OPT_SORT_KEYS | OPT_STRICT_INTEGER)``,
    proves no name repeats (step 3), and it is the chunk's canonical form
    wherever orjson writes JCS (``curator_io._fast.chunked.canonical_chunk``).
    """
    wrapped = b"".join((b"[", memoryview(raw)[start:end], b"]"))
    try:
        items = orjson.loads(wrapped)
    except orjson.JSONDecodeError as e:
        if e.msg == "unexpected end of data":
            raise _Unterminated from None
        if e.msg == "unexpected content after document":
            # e.pos counts characters of the wrapped chunk up to what follows the array's "]".
            closed = e.doc[: e.pos].rstrip(" \t\n\r")
            if closed.endswith("]"):
                raise _ClosedEarly(len(closed.encode()) - 2) from None
        raise _Refused(e.msg) from None
    try:
        sorted_dump = orjson.dumps(items, option=_SORTED_DUMP)
    except orjson.JSONEncodeError as e:
        raise Unsure(str(e)) from None  # an integer beyond 2^53 - 1, or nesting beyond orjson's limit
    if sorted_dump == wrapped:
        # The chunk is written as orjson writes its value (a canonical bundle's chunks
        # mostly are): no member was dropped, and no colon hides in an escape.
        return items, sorted_dump
    if raw.find(b"\\u003", start, end) != -1 and (b"\\u003a" in wrapped or b"\\u003A" in wrapped):
        raise Unsure("an escaped colon spoils the count of names")
    if sorted_dump.count(b":") != raw.count(b":", start, end):
        raise Unsure("a member name repeats")
    return items, sorted_dump


class ArrayMember:
    """One array member of the top-level object, read a chunk at a time.

    Iterate it for ``(elements, sorted dump)`` pairs, in order; the walk goes on to
    the next member only once the array has been read to its end.
    """

    def __init__(self, raw: bytes, start: int) -> None:
        self._raw = raw
        self._start = start  # raw[start] is "["
        self._chunks = self._read()
        self.spans: list[tuple[int, int]] = []
        """``(start, end)`` of each chunk's bytes, to read it again."""
        self.end = -1
        """Just past the array's "]", once it has been read."""

    def __iter__(self) -> Iterator[tuple[list[Any], bytes]]:
        return self._chunks

    def finish(self) -> int:
        for _ in self._chunks:
            pass
        return self.end

    def _read(self) -> Iterator[tuple[list[Any], bytes]]:
        raw = self._raw
        s = _skip(raw, self._start + 1)
        if raw[s : s + 1] == b"]":
            self.end = s + 1
            return
        while True:
            items, sorted_dump, c = self._chunk(s)
            self.spans.append((s, c))
            yield items, sorted_dump
            q = _skip(raw, c)
            after = raw[q] if q < len(raw) else None
            if after == _CLOSE_ARRAY:
                self.end = q + 1
                return
            if after != _COMMA:
                raise Unsure(f"expected , or ] at byte {q}")
            s = _skip(raw, q + 1)

    def _chunk(self, s: int) -> tuple[list[Any], bytes, int]:
        """The elements from ``s`` to a proven end, their sorted dump, and that end.

        Guesses are looked for in a window of two chunks; without one, the
        window's end is tried. So the chunk that reaches past its array's end
        (the last) copies at most the window, and is parsed only up to that end.
        """
        raw = self._raw
        look, reach = s + CHUNK, s + 2 * CHUNK
        for _ in range(MAX_GUESSES):
            m = _GUESS.search(raw, look, reach)
            c = m.start() + 1 if m else _char_boundary(raw, min(len(raw), reach))
            try:
                items, sorted_dump = parse_chunk(raw, s, c)
            except (_Unterminated, _Refused) as e:
                if m is not None:
                    # A guess is just past a "}" that "," and "{" follow, so orjson reads to the
                    # chunk's end unless the bytes before the guess are malformed.
                    if isinstance(e, _Refused):
                        raise
                    look = m.end()
                elif reach - s >= LIMIT or reach >= len(raw):
                    raise Unsure(f"no element ends within {LIMIT} bytes of byte {s}") from None
                else:
                    # The window's end cuts an element anywhere, and orjson says so in its own words.
                    look, reach = reach, reach + CHUNK
                continue
            except _ClosedEarly as early:
                c = s + early.length
                items, sorted_dump = parse_chunk(raw, s, c)
            return items, sorted_dump, c
        raise Unsure(f"no end of a chunk found after {MAX_GUESSES} guesses at byte {s}")


def iter_members(raw: bytes) -> Iterator[tuple[str, Any]]:
    """Yield ``(name, value)`` for each member of the top-level object, in document order.

    ``value`` is an :class:`ArrayMember` for an array, else the parsed value.
    Raises :class:`Unsure` for anything the whole parse must decide.
    """
    p = _skip(raw, 0)
    if raw[p : p + 1] != b"{":
        raise Unsure("not an object")
    p = _skip(raw, p + 1)
    names: set[str] = set()
    if raw[p : p + 1] != b"}":
        while True:
            m = _NAME.match(raw, p)
            if m is None:
                raise Unsure(f"expected a name at byte {p}")
            name = _decode_name(m.group())
            if name in names:
                raise Unsure(f"member name {name!r} repeats")
            names.add(name)
            p = _skip(raw, m.end())
            if raw[p : p + 1] != b":":
                raise Unsure(f"expected : at byte {p}")
            p = _skip(raw, p + 1)
            if raw[p : p + 1] == b"[":
                member = ArrayMember(raw, p)
                yield name, member
                p = member.finish()
            else:
                p, value = _value(raw, p)
                yield name, value
            p = _skip(raw, p)
            if raw[p : p + 1] != b",":
                break
            p = _skip(raw, p + 1)
    if raw[p : p + 1] != b"}" or _skip(raw, p + 1) != len(raw):
        raise Unsure(f"expected the end of the object at byte {p}")


def _decode_name(quoted: bytes) -> str:
    try:
        name = orjson.loads(quoted)
    except orjson.JSONDecodeError as e:
        raise Unsure(e.msg) from None
    return name  # type: ignore[no-any-return]  # a quoted name decodes to a str


def _value(raw: bytes, p: int) -> tuple[int, Any]:
    """A value that is not an array, parsed on its own: ``(end, value)``."""
    size = 1 << 16
    while True:
        c = _char_boundary(raw, min(len(raw), p + size))
        try:
            orjson.loads(raw[p:c])
        except orjson.JSONDecodeError as e:
            if e.msg == "unexpected content after document":
                c = p + len(e.doc[: e.pos].rstrip(" \t\n\r").encode())
            elif e.msg != "unexpected end of data" or c == len(raw):
                raise Unsure(e.msg) from None
            else:
                size *= 8
                continue
        try:
            return c, parse_json(raw[p:c])  # the exact rules, on this value alone
        except InputError as e:
            raise Unsure(e.detail) from None


def _skip(raw: bytes, p: int) -> int:
    return _WS.match(raw, p).end()  # type: ignore[union-attr]  # _WS matches the empty string: never None


def _char_boundary(raw: bytes, c: int) -> int:
    """``c``, or the start of the UTF-8 sequence ``c`` falls inside."""
    while c < len(raw) and raw[c] & 0xC0 == 0x80:
        c -= 1
    return c
