"""Strict I-JSON parsing (RFC 7493), as SPEC §0 requires of every input.

Numbers follow JavaScript's ``JSON.parse``: every number is a binary64 value.
Integers that a binary64 holds exactly stay Python ``int`` (JCS writes them the
same either way); larger ones become the nearest ``float``, as JavaScript would
read them.

The strict parser here (the stdlib decoder with hooks) defines the semantics
and names every error. orjson parses first, because it is faster
(:mod:`curator_io._fast.json_parse`); its value is returned only when the strict
parser would return the very same value, and otherwise the strict parser runs
on the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from curator_io.errors import InputError
from curator_io.grammar import MAX_INT
from curator_io.reference import off

__all__ = ["parse_json", "iter_jsonl_lines"]

_SAFE_DIGITS = len(str(MAX_INT))
#: How deeply arrays and objects may nest: this implementation's limit, not I-JSON's.
MAX_DEPTH = 512
_BOM = b"\xef\xbb\xbf"


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
    if -MAX_INT <= value <= MAX_INT:
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
    if off("json_parse"):
        return _parse_strict(raw)
    from curator_io._fast.json_parse import UNSURE, parse_fast

    value = parse_fast(raw)
    return _parse_strict(raw) if value is UNSURE else value


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
