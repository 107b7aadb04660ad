"""The value grammar of SPEC §0 (ID, REPO, PATH, TIMESTAMP, DIGEST, INT), as
predicates and as :class:`Rule` objects: each value's rule described once, with
its message and its JSON Schema fragment (:mod:`curator_io.kinds` puts them
together into the kinds of object a bundle holds)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from curator_io.catalogue import DIGEST_PREFIX

__all__ = [
    "DIGEST_PATTERN",
    "ID_PATTERN",
    "TIMESTAMP_FIELDS",
    "is_id",
    "is_repo",
    "is_path",
    "is_timestamp",
    "is_digest",
    "is_int",
    "is_number",
    "utf8_len",
    "instant_key",
    "shown",
    "MAX_INT",
    "Rule",
    "text",
    "one_of",
    "const",
    "STRING",
    "ID",
    "INT",
    "INT_FROM_1",
    "REPO",
    "PATH",
    "PATH_OR_NULL",
    "DIGEST",
    "TIMESTAMP",
]

MAX_INT = 2**53 - 1

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
DIGEST_PATTERN = re.compile(re.escape(DIGEST_PREFIX) + "[0-9a-f]{64}")
"""SPEC §0 DIGEST; also a key id (:attr:`ranking.signing.keys.PublicKey.keyid`)."""
# The TIMESTAMP grammar with each field bounded, so a match is a real instant but for the month's length.
TIMESTAMP_FIELDS = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z"
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def utf8_len(s: str) -> int:
    """bytes(s): the length of ``s`` encoded as UTF-8."""
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def is_id(v: Any) -> TypeGuard[str]:
    # fullmatch, not match + $: "$" would accept a trailing newline.
    return type(v) is str and ID_PATTERN.fullmatch(v) is not None


def is_digest(v: Any) -> TypeGuard[str]:
    return type(v) is str and DIGEST_PATTERN.fullmatch(v) is not None


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
    m = TIMESTAMP_FIELDS.fullmatch(v)
    if m is None:
        return False
    year, month, day = m.group(1, 2, 3)
    if year == "0000":
        return False
    # The pattern bounds every field; only a day past the 28th needs the calendar
    # (imported here: few timestamps need it, and every run would pay for its import).
    if day <= "28":
        return True
    return int(day) <= calendar.monthrange(int(year), int(month))[1]


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


# --- rules: each SPEC §0-§1 value described once --------------------------------------


@dataclass(frozen=True, slots=True)
class Rule:
    """What one member's value must be, said once and read three ways: by the loader, by an
    error message, and by the published JSON Schema."""

    expected: str
    """What a message says was expected, its SPEC §0 meaning spelled out."""
    holds: Callable[[Any], bool]
    """The rule, on one value."""
    schema: Mapping[str, Any]
    """The JSON Schema fragment: looser where no schema can state the rule (UTF-8 bytes, calendar dates)."""
    read: Callable[[Any], Any] | None = None
    """The value as a model keeps it (an INT as ``int``), when not as parsed."""
    number: bool = False
    """An INT: RFC 8785 writes ``7.0`` as ``7``, orjson does not."""
    shape: tuple[Any, ...] = ()
    """Which family of rules this is, and its parameters (``("text", 1, 4000)``): what a faster
    check of a whole column goes by (:mod:`curator_io._fast.bulk`). Empty: no such check."""


def _is_str(v: Any) -> bool:
    return type(v) is str


def text(least: int, most: int) -> Rule:
    """A string of ``least``-``most`` UTF-8 bytes (``least`` is 0 or 1)."""

    def holds(v: Any) -> bool:
        return type(v) is str and least <= utf8_len(v) <= most

    schema: dict[str, Any] = {"type": "string", "maxLength": most}
    if least:
        schema["minLength"] = least
    return Rule(f"a string of {least}-{most} bytes", holds, schema, shape=("text", least, most))


def one_of(*choices: str) -> Rule:
    """One of the strings ``choices``; a model keeps the table's own string, not the parsed copy."""
    names = {c: c for c in choices}

    expected = ", ".join(choices[:-1]) + " or " + choices[-1]
    return Rule(
        expected,
        lambda v: type(v) is str and v in names,
        {"type": "string", "enum": list(choices)},
        names.__getitem__,
        shape=("one_of", choices),
    )


def const(value: str) -> Rule:
    return Rule(repr(value), lambda v: v == value, {"type": "string", "const": value})


STRING = Rule("a string", _is_str, {"type": "string"}, shape=("string",))
ID = Rule(
    "an ID (1-128 ASCII letters, digits and . _ : / -, starting with a letter or digit)",
    is_id,
    {"type": "string", "pattern": f"^{ID_PATTERN.pattern}$"},
    shape=("id",),
)
INT = Rule(
    f"an INT (a whole number from 0 to {MAX_INT})",
    is_int,
    {"type": "integer", "minimum": 0, "maximum": MAX_INT},
    int,
    number=True,
    shape=("int", 0),
)
INT_FROM_1 = Rule(
    f"an INT >= 1 (a whole number from 1 to {MAX_INT})",
    lambda v: is_int(v) and v >= 1,
    {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    int,
    number=True,
    shape=("int", 1),
)
REPO = Rule(
    "a REPO (1-200 UTF-8 bytes, no control characters)", is_repo, {"type": "string", "minLength": 1, "maxLength": 200}
)
_PATH_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 400}
PATH = Rule("a PATH (a relative POSIX path of 1-400 UTF-8 bytes, no . or .. segment)", is_path, _PATH_SCHEMA)
PATH_OR_NULL = Rule(
    "a PATH (a relative POSIX path of 1-400 UTF-8 bytes, no . or .. segment) or null",
    lambda v: v is None or is_path(v),
    {"anyOf": [_PATH_SCHEMA, {"type": "null"}]},
    shape=("paths_or_null",),
)
DIGEST = Rule(
    "a DIGEST ('sha256:' and 64 lowercase hex digits)",
    is_digest,
    {"type": "string", "pattern": f"^{DIGEST_PATTERN.pattern}$"},
)
# The published pattern is SPEC §0's form alone, as the schema has always said; the loader's
# (TIMESTAMP_FIELDS, is_timestamp) also bounds each field. Two patterns on purpose, one rule.
TIMESTAMP = Rule(
    "a TIMESTAMP (RFC 3339 in UTC, e.g. 2026-11-29T10:00:00Z)",
    is_timestamp,
    {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$"},
    shape=("timestamp",),
)


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
