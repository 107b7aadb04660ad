"""Strict I-JSON parsing (RFC 7493), as SPEC §0 requires of every input.

Numbers follow JavaScript's ``JSON.parse``: every number is a binary64 value.
Integers that a binary64 holds exactly stay Python ``int`` (JCS writes them the
same either way); larger ones become the nearest ``float``, as JavaScript would
read them.

Two parsers give one result. The strict one (the stdlib decoder with hooks)
defines the semantics and names every error. orjson parses first, because it
is faster; its value is returned only when the strict parser
would return the very same value:

1. orjson accepts the document (it refuses a BOM, invalid UTF-8, a lone
   surrogate, NaN, a non-finite number, like the strict parser), and rounds
   every number as ``float(text)`` does (correctly; the tests hold it to that
   on halfway cases, integers beyond 64 bits included);
2. no integer is beyond 2^53 - 1 in magnitude (orjson keeps one up to 64 bits
   as an int; the strict parser reads it as a float);
3. no member name repeats: orjson keeps the last of two equal names, so the
   document has duplicates exactly when it holds more name-separating colons
   than orjson's re-serialization of the value. A colon is either that
   separator or a character inside a string, and a string's colons survive the
   round trip unless written as the escape ``\u003a`` (then the strict parser
   decides).

Otherwise, and on every error, the strict parser runs on the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from curator_io.errors import InputError

__all__ = ["parse_json", "iter_jsonl_lines"]

_MAX_SAFE = 2**53 - 1
_SAFE_DIGITS = len(str(_MAX_SAFE))
#: How deeply arrays and objects may nest: this implementation's limit, not I-JSON's.
MAX_DEPTH = 512
_BOM = b"\xef\xbb\xbf"
#: What the fast path returns when the strict parser must decide.
_UNSURE = object()


class _Malformed(ValueError):
    """Raised from inside the decoder's hooks; turned into an InputError."""


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _Malformed(f"duplicate member name {name!r}")
            seen.add(name)
    return obj


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Malformed(f"number {text[:40]} is not finite as a binary64")
    return value


def _parse_int(text: str) -> int | float:
    # 2^53 - 1 has 16 digits. A longer integer is read as the binary64 JavaScript
    # reads, which also keeps ``int()`` off digit strings of any length: Python
    # refuses to convert one of more than 4,300 digits (a ValueError, not ours).
    if len(text) - text.startswith("-") > _SAFE_DIGITS:
        return _parse_float(text)
    value = int(text)
    if -_MAX_SAFE <= value <= _MAX_SAFE:
        return value
    return _parse_float(text)


def _reject_constant(name: str) -> Any:
    raise _Malformed(f"{name} is not JSON")


_DECODER = json.JSONDecoder(
    object_pairs_hook=_reject_duplicates,
    parse_float=_parse_float,
    parse_int=_parse_int,
    parse_constant=_reject_constant,
)


def _malformed(detail: str) -> InputError:
    return InputError("input.malformed_json", detail, pointer="")


def parse_json(raw: bytes) -> Any:
    """Parse one I-JSON document, or raise ``input.malformed_json``.

    Refused: a byte-order mark, bytes that are not UTF-8, a syntax error,
    a duplicate member name in any object, a lone surrogate (escaped or not),
    a number that is not finite as a binary64.
    """
    if raw.startswith(_BOM):
        raise _malformed("a UTF-8 byte-order mark is not allowed")
    value = _parse_fast(raw)
    return _parse_strict(raw) if value is _UNSURE else value


def _parse_fast(raw: bytes) -> Any:
    """orjson's value when it is exactly what :func:`_parse_strict` returns, else ``_UNSURE``."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _UNSURE  # 1. the strict parser names the error
    if type(value) is not dict and type(value) is not list:
        return _UNSURE  # a lone scalar costs nothing to parse twice
    if b"\\u003a" in raw or b"\\u003A" in raw:
        return _UNSURE  # 3. an escaped colon would spoil the count
    try:
        dumped = _dumped_colons(value)
    except orjson.JSONEncodeError:
        return _UNSURE  # 2. an int beyond 2^53 - 1
    if raw.count(b":") != dumped:
        return _UNSURE  # 3. a duplicate member name
    return value


_SLICE = 1024


def _dumped_colons(value: Any, depth: int = 0) -> int:
    """The colons in ``orjson.dumps(value)``, written a piece at a time: the top levels of a
    document are split (a bundle's artifact arrays sit at depth 1 or 2) so that no copy of the
    whole document is ever held.

    Raises ``orjson.JSONEncodeError`` for an integer beyond 2^53 - 1.
    """
    if depth < 3 and type(value) is dict:
        # One separator per member, the name's own colons, then the value's.
        return sum(1 + name.count(":") + _dumped_colons(item, depth + 1) for name, item in value.items())
    if depth < 3 and type(value) is list and len(value) > _SLICE:
        return sum(_dumped_colons(value[i : i + _SLICE], 3) for i in range(0, len(value), _SLICE))
    return orjson.dumps(value, option=orjson.OPT_STRICT_INTEGER).count(b":")


def _parse_strict(raw: bytes) -> Any:
    """The reference semantics (SPEC §0 "JSON"), with an error for each refusal."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _malformed(f"not UTF-8 at byte {e.start}") from e
    try:
        value = _DECODER.decode(text)
    except _Malformed as e:
        raise _malformed(str(e)) from e
    except json.JSONDecodeError as e:
        # The stdlib's own msg may end in "at" ("Invalid control character at").
        msg = e.msg.removesuffix(" at")
        raise _malformed(f"{msg} at line {e.lineno} column {e.colno}") from e
    except RecursionError as e:
        raise _malformed(f"nested deeper than {MAX_DEPTH} levels") from e
    if _deeper_than(value, MAX_DEPTH):
        # Not an I-JSON rule but this implementation's limit: canonicalization
        # recurses, and a refusal beats a crash. (The fast path never returns a
        # document this deep: orjson refuses to write past 255 levels.)
        raise _malformed(f"nested deeper than {MAX_DEPTH} levels")
    if "\\u" in text and _has_escaped_surrogate(text):
        # The stdlib decoder accepts a lone escaped surrogate; orjson does not.
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise _malformed(f"lone surrogate: {e}") from e
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if type(node) is dict:
            stack.extend((v, depth + 1) for v in node.values() if type(v) in (dict, list))
        elif type(node) is list:
            stack.extend((v, depth + 1) for v in node if type(v) in (dict, list))
    return False


def _has_escaped_surrogate(text: str) -> bool:
    lowered = text.lower()
    return any(f"\\ud{c}" in lowered for c in "89abcdef")


def iter_jsonl_lines(stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, line_bytes)`` for each non-blank JSONL line (1-based), lazily.

    SPEC §0: a line's terminator (``\n`` or ``\r\n``) is not part of its
    document; blank lines are skipped. The stream is read a line at a time,
    never whole.
    """
    for number, line in enumerate(iter(stream.readline, b""), start=1):
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip(b" \t\r"):
            yield number, line
