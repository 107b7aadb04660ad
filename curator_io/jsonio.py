"""Strict I-JSON parsing (RFC 7493), as SPEC §0 requires of every input.

Numbers follow JavaScript's ``JSON.parse``: every number is a binary64 value.
Integers that a binary64 holds exactly stay Python ``int`` (JCS writes them the
same either way); larger ones become the nearest ``float``, as JavaScript would
read them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import orjson

from curator_io.errors import InputError

__all__ = ["parse_json", "iter_jsonl_lines"]

_MAX_SAFE = 2**53 - 1
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
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _malformed(f"not UTF-8 at byte {e.start}") from e
    try:
        value = _DECODER.decode(text)
    except _Malformed as e:
        raise _malformed(str(e)) from e
    except json.JSONDecodeError as e:
        raise _malformed(f"{e.msg} at line {e.lineno} column {e.colno}") from e
    if "\\u" in text and _has_escaped_surrogate(text):
        # The stdlib decoder accepts a lone escaped surrogate; orjson does not.
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise _malformed(f"lone surrogate: {e}") from e
    return value


def _has_escaped_surrogate(text: str) -> bool:
    lowered = text.lower()
    return any(f"\\ud{c}" in lowered for c in "89abcdef")


def iter_jsonl_lines(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, line_bytes)`` for each non-blank JSONL line (1-based).

    A line's terminator (``\\n`` or ``\\r\\n``) is not part of its document.
    """
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip(b" \t\r"):
            yield number, line
