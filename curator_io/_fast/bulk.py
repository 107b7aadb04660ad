"""Speed only: a chunk of artifacts checked a member at a time across the chunk, and sealed
without the canonicalizer's walk where orjson already writes RFC 8785.

Equals: :func:`curator_io.artifacts.build_item` on each item, in turn, or None (and then the
loader builds the chunk item by item, which names the first error, or raises what
``build_item`` raises on what no canonical writer writes). Proven by:
``tests/curator_io/test_artifacts.py``, ``test_a_chunk_builds_what_its_items_build_one_by_one``
and ``test_a_chunk_holding_what_cannot_be_written_is_refused_as_its_items_are_one_by_one``
(hypothesis), and ``tests/curator_io/test_grammar.py`` for the column checks.

1. Each member's column is checked at once, by the check its rule's ``shape`` names: one
   regular-expression match over a column of IDs joined by newlines, one ``min`` and ``max``
   over a column of integers, and so on. A rule with no shape is checked value by value.
2. An INT column holds only when every value is written as an integer, so a chunk that
   passes has only what orjson writes as RFC 8785 does: its items' seals are hashed from
   orjson's sorted dump, unless an item has a member the kind does not list.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import repeat
from typing import Any

import orjson

from curator_io import grammar as g
from curator_io.canonical import canon, seal_verdict
from curator_io.kinds import Kind
from curator_io.models import SealVerdict

__all__ = ["build_in_bulk", "column_holds", "are_ids", "are_timestamp_shaped", "not_orjson_exact"]

_SORTED = orjson.OPT_SORT_KEYS
#: A chunk's models from its columns, ``tuple.__new__(Model, fields)``: the named tuple's own
#: ``__new__`` is a Python function, this is not.
_new = tuple.__new__

_IDS = re.compile(rf"{g.ID_PATTERN.pattern}(?:\n{g.ID_PATTERN.pattern})*")
_TIMESTAMPS = re.compile(rf"{g.TIMESTAMP_FIELDS.pattern}(?:\n{g.TIMESTAMP_FIELDS.pattern})*")
# What a PATH may not hold, "\n" aside (it joins them): a control character, or an empty, "." or ".." segment.
_NOT_PATHS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]|(?:\A|/|\n)\.{0,2}(?:/|\n|\Z)")


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
    """``all(map(g.is_id, values))``, in one match."""
    return _each_matches(_IDS, values)


def are_timestamp_shaped(values: list[Any]) -> bool:
    """Every value has the TIMESTAMP form with each field in range, in one match: a real
    instant unless its day is past the 28th or its year is 0000 (those need ``is_timestamp``)."""
    return _each_matches(_TIMESTAMPS, values)


def _are_strs(values: list[Any]) -> bool:
    return all(type(v) is str for v in values)


def _are_ints(values: list[Any], least: int) -> bool:
    return all(type(v) is int for v in values) and (not values or (least <= min(values) and max(values) <= g.MAX_INT))


def _are_timestamps(values: list[Any]) -> bool:
    # Only a day past the 28th or the year 0000 needs the calendar.
    return are_timestamp_shaped(values) and all(g.is_timestamp(t) for t in values if t[8:10] > "28" or t[:4] == "0000")


def _are_paths_or_null(values: list[Any]) -> bool:
    paths = [v for v in values if v is not None]
    if not paths:
        return True
    if not _are_strs(paths):
        return False
    joined = "\n".join(paths)
    if joined.count("\n") != len(paths) - 1 or _NOT_PATHS.search(joined):
        return False
    # bytes(s) <= 4 len(s): a short enough column needs no UTF-8 count.
    return max(map(len, paths)) <= 100 or all(1 <= g.utf8_len(v) <= 400 for v in paths)


def _are_texts(values: list[Any], least: int, most: int) -> bool:
    if not _are_strs(values) or (least and not all(values)):
        return False
    # bytes(s) <= 4 len(s): a short enough column needs no UTF-8 count.
    return not values or max(map(len, values)) <= most // 4 or all(g.utf8_len(v) <= most for v in values)


def _are_unique_id_lists(values: list[Any]) -> bool:
    return (
        all(type(v) is list and v for v in values)
        and are_ids([e for v in values for e in v])
        and all(len(set(v)) == len(v) for v in values)
    )


_COLUMN_CHECKS: dict[str, Callable[..., bool]] = {
    "string": _are_strs,
    "id": are_ids,
    "int": _are_ints,
    "text": _are_texts,
    "one_of": lambda values, choices: _are_strs(values) and set(choices) >= set(values),
    "paths_or_null": _are_paths_or_null,
    "timestamp": _are_timestamps,
    "unique_ids": _are_unique_id_lists,
}


def column_holds(rule: g.Rule, values: list[Any]) -> bool:
    """``all(map(rule.holds, values))``, in fewer passes where the rule's ``shape`` says how.
    An INT column holds only when every value is written as an integer."""
    if not rule.shape:
        return all(map(rule.holds, values))
    name, *parameters = rule.shape
    return _COLUMN_CHECKS[name](values, *parameters)


def _seal_of(obj: dict[str, Any], orjson_exact: bool) -> SealVerdict:
    body = dict(obj)
    claimed = body.pop("digest")
    return seal_verdict(claimed, orjson.dumps(body, option=_SORTED) if orjson_exact else canon(body))


def build_in_bulk(kind: Kind, items: list[Any]) -> list[Any] | None:
    """Every item of a chunk built at once, or None when a rule does not hold for the whole chunk."""
    try:
        columns = [[x[name] for x in items] for name, _ in kind.members]
    except (KeyError, TypeError):
        return None
    try:
        if not all(column_holds(rule, column) for (_, rule), column in zip(kind.members, columns, strict=True)):
            return None
        # Every INT in the chunk is written as an integer (column_holds): exact unless a member is unknown.
        size = len(kind.members)
        seals = [_seal_of(x, len(x) == size) for x in items]
    except (ValueError, TypeError, RecursionError):
        # What no canonical writer writes (a lone surrogate, a float that is not finite, an item
        # that contains itself): refused here in other words than the reference's, or in another
        # item than its first refusal (a column check skips the UTF-8 count that refuses a lone
        # surrogate). Item by item raises the reference's own error, at its place.
        return None
    kept = [
        column if rule.read is None or rule.number else list(map(rule.read, column))
        for (_, rule), column in zip(kind.members, columns[: len(kind.kept)], strict=False)
    ]
    model: type[tuple[Any, ...]] = kind.model  # type: ignore[assignment]  # a named tuple: keeps_object is False
    return list(map(_new, repeat(model), zip(*kept, seals, strict=True)))


def not_orjson_exact(kind: Kind, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checked ``items`` that orjson may write otherwise than RFC 8785 (one may come twice):
    an item with a member the kind does not list, or an INT written as a float."""
    size = len(kind.members)
    numbers = [name for name, rule in kind.members if rule.number]
    out = [x for x in items if len(x) != size]
    for name in numbers:
        if set(map(type, [x[name] for x in items])) != {int}:
            out.extend(x for x in items if type(x[name]) is not int)
    return out
