"""The value grammar of SPEC §0: ID, REPO, PATH, TIMESTAMP, DIGEST, INT."""

from __future__ import annotations

import calendar
import re
from typing import Any, TypeGuard

__all__ = [
    "is_id",
    "are_ids",
    "are_timestamp_shaped",
    "is_repo",
    "is_path",
    "is_timestamp",
    "is_digest",
    "is_int",
    "is_number",
    "utf8_len",
    "instant_key",
    "MAX_INT",
]

MAX_INT = 2**53 - 1

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z")
# The TIMESTAMP grammar with each field bounded, so a match is a real instant but for the month's length.
_TIMESTAMP_FIELDS = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z"
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def utf8_len(s: str) -> int:
    """bytes(s): the length of ``s`` encoded as UTF-8."""
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def is_id(v: Any) -> TypeGuard[str]:
    # fullmatch, not match + $: "$" would accept a trailing newline.
    return type(v) is str and _ID.fullmatch(v) is not None


_IDS = re.compile(rf"{_ID.pattern}(?:\n{_ID.pattern})*")
_TIMESTAMPS = re.compile(rf"{_TIMESTAMP_FIELDS.pattern}(?:\n{_TIMESTAMP_FIELDS.pattern})*")


def _each_matches(joined_pattern: re.Pattern[str], values: list[Any]) -> bool:
    """Every value is a string that the joined pattern's unit matches whole, in one match
    over the values joined by newlines. No value the unit matches holds a newline, so each
    newline joins two (the count rules out one inside a value). For an empty list: True."""
    if not values:
        return True
    if not all(type(v) is str for v in values):
        return False
    joined = "\n".join(values)
    return joined.count("\n") == len(values) - 1 and joined_pattern.fullmatch(joined) is not None


def are_ids(values: list[Any]) -> bool:
    """``all(map(is_id, values))``, in one match."""
    return _each_matches(_IDS, values)


def are_timestamp_shaped(values: list[Any]) -> bool:
    """Every value has the TIMESTAMP form with each field in range, in one match: a real
    instant unless its day is past the 28th or its year is 0000 (those need :func:`is_timestamp`)."""
    return _each_matches(_TIMESTAMPS, values)


def is_digest(v: Any) -> TypeGuard[str]:
    return type(v) is str and _DIGEST.fullmatch(v) is not None


def is_repo(v: Any) -> TypeGuard[str]:
    return type(v) is str and 1 <= utf8_len(v) <= 200 and _CONTROL.search(v) is None


def is_path(v: Any) -> TypeGuard[str]:
    if type(v) is not str or not 1 <= utf8_len(v) <= 400 or _CONTROL.search(v):
        return False
    return all(seg not in ("", ".", "..") for seg in v.split("/"))


def is_timestamp(v: Any) -> TypeGuard[str]:
    """RFC 3339 UTC, ASCII digits, a real proleptic-Gregorian instant, no leap second."""
    if type(v) is not str:
        return False
    m = _TIMESTAMP_FIELDS.fullmatch(v)
    if m is None:
        return False
    year, month, day = m.group(1, 2, 3)
    if year == "0000":
        return False
    # The pattern bounds every field; only a day past the 28th needs the calendar.
    return day <= "28" or int(day) <= calendar.monthrange(int(year), int(month))[1]


def instant_key(ts: str) -> str:
    """A string that orders timestamps as instants: the fraction padded to 9 digits."""
    body = ts[:-1]
    if "." in body:
        whole, frac = body.split(".")
        return whole + "." + frac.ljust(9, "0")
    return body + ".000000000"


def is_number(v: Any) -> TypeGuard[int | float]:
    """A JSON number, never a boolean."""
    return type(v) is int or type(v) is float


def is_int(v: Any) -> TypeGuard[int | float]:
    """INT: a number whose binary64 value is an integer in [0, 2^53 - 1]."""
    if type(v) is int:
        return 0 <= v <= MAX_INT
    if type(v) is float:
        return v.is_integer() and 0 <= v <= MAX_INT
    return False


#: What the SPEC §0 names mean, for a message that says what was expected.
_MEANINGS = {
    "an ID": "an ID (1-128 ASCII letters, digits and . _ : / -, starting with a letter or digit)",
    "an INT": f"an INT (a whole number from 0 to {MAX_INT})",
    "an INT >= 1": f"an INT >= 1 (a whole number from 1 to {MAX_INT})",
    "a REPO": "a REPO (1-200 UTF-8 bytes, no control characters)",
    "a PATH or null": "a PATH (a relative POSIX path of 1-400 UTF-8 bytes, no . or .. segment) or null",
    "a DIGEST": "a DIGEST ('sha256:' and 64 lowercase hex digits)",
    "a TIMESTAMP": "a TIMESTAMP (RFC 3339 in UTC, e.g. 2026-11-29T10:00:00Z)",
}


def described(what: str) -> str:
    """``what`` with its SPEC §0 meaning spelled out, when it names one."""
    return _MEANINGS.get(what, what)


def shown(value: Any) -> str:
    """A value as a message shows it: JSON's spelling, cut short."""
    if value is None or type(value) is bool:
        return "null" if value is None else str(value).lower()
    if type(value) is dict:
        return "an object"
    if type(value) is list:
        return "an array"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
