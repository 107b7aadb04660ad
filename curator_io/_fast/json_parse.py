"""Speed only: orjson's parse, returned when it is exactly what the strict parser of
:mod:`curator_io.jsonio` returns.

Equals: ``curator_io.jsonio._parse_strict`` (the stdlib decoder with hooks), on
every document where :func:`parse_fast` does not return :data:`UNSURE`.
Proven by: ``tests/curator_io/test_jsonio.py``,
``test_parse_json_agrees_with_the_spec_on_arbitrary_documents`` (hypothesis, on
documents built to hit each case below), and the halfway-rounding tests there.

orjson's value is returned only when:

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

from typing import Any

import orjson

__all__ = ["UNSURE", "parse_fast"]

#: What :func:`parse_fast` returns when the strict parser must decide.
UNSURE = object()


def parse_fast(raw: bytes) -> Any:
    """orjson's value when it is exactly what the strict parser returns, else :data:`UNSURE`."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return UNSURE  # 1. the strict parser names the error
    if type(value) is not dict and type(value) is not list:
        return UNSURE  # a lone scalar costs nothing to parse twice
    if b"\\u003a" in raw or b"\\u003A" in raw:
        return UNSURE  # 3. an escaped colon would spoil the count
    try:
        dumped = _dumped_colons(value)
    except orjson.JSONEncodeError:
        return UNSURE  # 2. an int beyond 2^53 - 1
    if raw.count(b":") != dumped:
        return UNSURE  # 3. a duplicate member name
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
