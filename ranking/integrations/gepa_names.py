"""GEPA's names and data as a curator bundle can hold them (SPEC §0, RFC 8785): pure, no gepa import.

A component name becomes an instruction KEY (:func:`key_of`), an example's
data id a lineage (:func:`lineage_of`), and every text must be one RFC 8785
can write. What GEPA gives that cannot be (a text cut inside a character, a
data id that is not JSON, two names that meet in one key) raises
:class:`Unwritable`, which names what and where: the model's or the task's
data, which the criterion rejects, never an exception in GEPA's loop.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from curator_io.canonical import canon
from curator_io.grammar import is_id

__all__ = ["Unwritable", "check_writable", "key_of", "keys_of", "lineage_of", "shown", "written"]


class Unwritable(ValueError):
    """What GEPA gave (a component's text, a data id, two component names) cannot be written
    in a curator bundle: the model's or the task's data, not a programming error."""

    def __init__(self, place: str, why: str) -> None:
        super().__init__(f"{place}: {why}")
        self.place = place
        """What could not be written: ``the child's component 'instruction'``, ``data id [[...]]``."""
        self.why = why


def key_of(name: str) -> str:
    """A component name as an instruction KEY (SPEC §0): itself when it is an ID, else
    ``component.`` and the first 16 hex digits of the SHA-256 of its UTF-8."""
    if is_id(name):
        return name
    return "component." + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def lineage_of(example: Any) -> str:
    """An example's data id as a lineage ID: ``ex-7`` for a non-negative int (of at most 125
    digits), ``ex:<id>`` for a string of at most 64 ID characters, else ``ex.`` and 16 hex digits
    of the SHA-256 of its RFC 8785 form. The three prefixes never meet, so two ids never share a
    lineage. Raises :class:`Unwritable` for an id RFC 8785 cannot write."""
    if type(example) is int and 0 <= example < 10**125:
        return f"ex-{example}"
    if isinstance(example, str) and len(example) <= 64 and is_id(f"ex:{example}"):
        return f"ex:{example}"
    return "ex." + hashlib.sha256(written(f"data id {shown(example)}", example)).hexdigest()[:16]


def written(place: str, value: Any) -> bytes:
    """``canon(value)``, or :class:`Unwritable` naming ``place`` and why RFC 8785 refuses it."""
    try:
        return canon(value)
    except RecursionError:
        raise Unwritable(place, "it contains itself") from None
    except ValueError as e:
        raise Unwritable(place, _refusal(value, e)) from e


def _refusal(value: Any, error: ValueError) -> str:
    """Why RFC 8785 refuses ``value``: where a text holds a lone surrogate (what a model's reply
    cut inside a character decodes to), or rfc8785's own words."""
    if isinstance(value, str):
        for at, char in enumerate(value):
            if "\ud800" <= char <= "\udfff":
                return f"a lone surrogate (U+{ord(char):04X}) at character {at}"
    return f"not JSON: {error}"


def shown(value: Any) -> str:
    """``value`` as a one-line reason shows it: its repr (which escapes lone surrogates and
    newlines), cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def keys_of(parent: Mapping[str, str], *children: Mapping[str, str]) -> dict[str, str]:
    """Each component name of the candidates, as its instruction key (:func:`key_of`). Raises
    :class:`Unwritable` for two names that map to one key."""
    names = sorted(set(parent).union(*children))
    keys = {name: key_of(name) for name in names}
    owners: dict[str, str] = {}
    for name, key in keys.items():
        if key in owners:
            raise Unwritable(
                f"components {shown(owners[key])} and {shown(name)}", f"they would both be instruction {key!r}"
            )
        owners[key] = name
    return keys


def check_writable(parent: Mapping[str, str], child: Mapping[str, str], ids: Sequence[Any]) -> None:
    """Raise :class:`Unwritable` for what of a child candidate (or its parent) and its examples'
    data ``ids`` no bundle can hold: a component's text or a data id RFC 8785 cannot write, or
    two component names that map to one key. Children that pass can be written together, but
    for two children's names that meet in one key (:func:`keys_of` of them all says so)."""
    for whose, candidate in (("parent", parent), ("child", child)):
        for name, text in candidate.items():
            written(f"the {whose}'s component {shown(name)}", text)
    keys_of(parent, child)
    for example in ids:
        lineage_of(example)
