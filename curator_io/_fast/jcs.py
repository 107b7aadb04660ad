"""Speed only: RFC 8785 (JCS) bytes written by orjson wherever orjson already writes JCS.

Equals: ``rfc8785.dumps``, byte for byte, on every value, exceptions included.
Proven by: ``tests/curator_io/test_canonical.py``,
``test_canon_is_byte_identical_to_rfc8785_on_arbitrary_json``,
``test_what_rfc8785_cannot_write_anywhere_in_a_value_is_refused_with_its_own_error`` and
``test_a_value_that_contains_itself_is_refused_quickly_as_rfc8785_refuses_it`` (hypothesis).
:func:`curator_io.canonical.canon` is :func:`dumps`.

1. A walk over the containers looks for what orjson would write otherwise: a
   float that is integral (orjson ``7.0``, JCS ``7``), that orjson writes in
   exponent form (``1e+16``, ``1e-6``; JCS ``10000000000000000``,
   ``0.000001``) or that is not finite (orjson ``null``; JCS refuses it), and
   any type that is not plain JSON (orjson writes enums and UUIDs; JCS refuses
   them). Integers beyond 2^53 - 1 are left to orjson, which refuses them as
   JCS does.
2. orjson writes the clean value with sorted keys. Its bytes are JCS unless a
   member name holds a character beyond U+FFFF while some string holds one in
   U+E000-U+FFFF: RFC 8785 §3.2.3 sorts names by UTF-16 code units and orjson
   by code points, and only such a pair orders differently. Two byte scans
   rule that out in almost every document.
3. A value that fails 1 or 2 is written here, member by member: each subtree
   that passes 1 and 2 is still written by orjson, the rest in Python
   (ECMAScript Number::toString for floats, UTF-16 order for names).
4. Anything this module does not handle exactly (a type that is not JSON, a
   lone surrogate, an integer beyond 2^53 - 1, a non-finite float, a value nested
   deeper than orjson writes) goes to ``rfc8785.dumps``, so the result or the
   exception is the reference's own. A value that contains itself is nested
   without end: the walk of step 1 counts levels, so it stops there too, and
   rfc8785 raises RecursionError.

The loader (:mod:`curator_io.bundle`) reuses steps 1 and 2
(:func:`orjson_writes_jcs`, :func:`names_sort_alike`) on orjson's sorted dump of
each chunk it parses, to hash the bundle without writing it twice.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from curator_io.grammar import MAX_INT

__all__ = ["dumps", "orjson_writes_jcs", "names_sort_alike"]

# Subclasses, dataclasses and datetimes raise instead of being encoded, so step 4 gets them.
_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_STRICT_INTEGER
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_SCALARS = frozenset({str, int, bool, type(None)})
_CONTAINERS = frozenset({dict, list, tuple})
_JSON_TYPES = _SCALARS | _CONTAINERS | {float}
# orjson writes a non-integral float in [1e-5, 1e16) as JCS does, in the shortest
# round-trip digits and positional decimal form (1e-4: a margin; above 2^52 every float is integral).
_DECIMAL_FLOAT_MIN = 1e-4
# UTF-8 lead bytes of U+E000-U+FFFF and of U+10000-U+10FFFF.
_HIGH_BMP = (b"\xee", b"\xef")
_ASTRAL = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
#: Past this many levels orjson refuses to write (254 is its last), and the walk gives up.
_DEEPEST = 255


class _Delegate(Exception):
    """This value goes to ``rfc8785.dumps`` (step 4)."""


def dumps(value: Any) -> bytes:
    """The RFC 8785 serialization of ``value``, UTF-8 encoded."""
    try:
        out = _orjson_exact(value)
        if out is not None:
            return out
        parts: list[bytes] = []
        _encode(value, parts, whole=False)
        return b"".join(parts)
    except (_Delegate, orjson.JSONEncodeError, UnicodeEncodeError, RecursionError):
        import rfc8785  # only here: most runs never need it, and every run would pay for its import

        return rfc8785.dumps(value)


def _orjson_exact(value: Any) -> bytes | None:
    """Steps 1-2: orjson's bytes for a dict or list when they are exactly JCS, else None."""
    if type(value) is dict:
        # Most objects hold scalars only: settle those without the walk.
        if not _SCALARS.issuperset(map(type, value.values())) and not orjson_writes_jcs(value):
            return None
    elif type(value) is not list or not orjson_writes_jcs(value):
        return None
    try:
        out = orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return None
    return out if names_sort_alike(out) else None


def orjson_writes_jcs(value: dict[str, Any] | list[Any]) -> bool:
    """Step 1: no float orjson spells otherwise, no type JCS refuses, anywhere in ``value``.

    Raises RecursionError for a value nested more than :data:`_DEEPEST` levels (a value that
    contains itself is nested without end), as ``rfc8785.dumps`` does for one that contains
    itself; orjson refuses to write one that deep anyway.
    """
    level: list[Any] = [value]  # JSON containers, untyped as JSON is; a level at a time, to count them
    depth = 0
    while level:
        depth += 1
        if depth > _DEEPEST:
            raise RecursionError(f"nested deeper than {_DEEPEST} levels")
        below: list[Any] = []
        for node in level:
            items = node.values() if type(node) is dict else node
            kinds = set(map(type, items))
            if kinds <= _SCALARS:
                continue
            if kinds <= _CONTAINERS:
                below += items  # not a bound extend: no method object per level, on every canon call
                continue
            if not kinds <= _JSON_TYPES:
                return False
            for item in items:
                t = type(item)
                if t is float:
                    # NaN fails every comparison; the infinities fail the bound.
                    if not (_DECIMAL_FLOAT_MIN <= abs(item) < 1e16) or item.is_integer():
                        return False
                elif t is dict or t is list or t is tuple:
                    below.append(item)
        level = below
    return True


def _encode(value: Any, parts: list[bytes], whole: bool = True) -> None:
    """Step 3: append the JCS bytes of ``value``; raise _Delegate for step 4.

    ``whole`` is False when orjson was already tried on this very value.
    """
    t = type(value)
    if t is str:
        parts.append(orjson.dumps(value))
    elif t is dict or t is list or t is tuple:
        out = _orjson_exact(value) if whole else None
        if out is not None:
            parts.append(out)
        elif t is dict:
            _encode_object(value, parts)
        else:
            _encode_array(value, parts)
    elif t is float:
        parts.append(_number(value))
    elif t is int:
        if not -MAX_INT <= value <= MAX_INT:
            raise _Delegate  # rfc8785 raises IntegerDomainError
        parts.append(str(value).encode())
    elif value is None:
        parts.append(b"null")
    elif value is True:
        parts.append(b"true")
    elif value is False:
        parts.append(b"false")
    else:
        raise _Delegate


def _encode_object(obj: dict[Any, Any], parts: list[bytes]) -> None:
    names = list(obj)
    if not all(type(name) is str for name in names):
        raise _Delegate
    if all(name.isascii() for name in names):
        names.sort()
    else:
        # RFC 8785 §3.2.3: by UTF-16 code units.
        names.sort(key=lambda name: name.encode("utf-16-be"))
    parts.append(b"{")
    for i, name in enumerate(names):
        if i:
            parts.append(b",")
        parts.append(orjson.dumps(name))
        parts.append(b":")
        _encode(obj[name], parts)
    parts.append(b"}")


def _encode_array(items: list[Any] | tuple[Any, ...], parts: list[bytes]) -> None:
    parts.append(b"[")
    for i, item in enumerate(items):
        if i:
            parts.append(b",")
        _encode(item, parts)
    parts.append(b"]")


def _number(x: float) -> bytes:
    """ECMAScript Number::toString (RFC 8785 §3.2.2.3), from the shortest round-trip digits."""
    if not math.isfinite(x):
        raise _Delegate  # rfc8785 raises FloatDomainError
    if x == 0:
        return b"0"  # -0 too
    text = repr(abs(x))
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + (int(exp) if exp else 0)  # value = 0.digits * 10**point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + ("e+" if e >= 0 else "e-") + str(abs(e))
    return ("-" + out if x < 0 else out).encode()


def names_sort_alike(out: bytes) -> bool:
    """Step 2: orjson's code-point order of names is RFC 8785's UTF-16 order in ``out``."""
    return out.isascii() or not any(b in out for b in _ASTRAL) or not any(b in out for b in _HIGH_BMP)
