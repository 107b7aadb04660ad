"""What RFC 8785 cannot write in a document the builder was given, and where (SPEC §0: a bundle is
I-JSON): a value that contains itself, a lone surrogate, a number that is not finite, a value
nested past what the parser reads. Named so that a loop's mistake is refused at its place, as the
same value in a file would be. Pure; each walk that may go as deep as the value is a loop.
"""

from __future__ import annotations

from typing import Any

from curator_io.canonical import canon, digest
from curator_io.errors import InputError, pointer_of
from curator_io.jsonio import MAX_DEPTH

__all__ = ["digest_or_none", "malformed", "too_deep"]


def digest_or_none(value: Any) -> str | None:
    try:
        return digest(value)
    except (ValueError, RecursionError):
        return None


def malformed(value: Any, where: tuple[str | int, ...]) -> InputError:
    """``input.malformed_json`` at the first place in ``value`` (itself at ``where``) that RFC 8785
    cannot write: SPEC §0, a bundle is I-JSON, as the same value in a file would be refused."""
    place, why = _unwritable(value, where, frozenset())
    return InputError("input.malformed_json", why, pointer=pointer_of(*place))


def _unwritable(value: Any, where: tuple[str | int, ...], inside: frozenset[int]) -> tuple[tuple[str | int, ...], str]:
    if isinstance(value, dict | list | tuple):
        if len(where) >= MAX_DEPTH:  # the value at ``where`` is level len(where) + 1, the root level 1
            return where, f"nested deeper than {MAX_DEPTH} levels"  # as the parser refuses it in a file
        if id(value) in inside:
            return where, "a value that contains itself"
        if isinstance(value, dict):
            for name in value:
                if not isinstance(name, str) or digest_or_none(name) is None:
                    return where, f"a member name RFC 8785 cannot write: {_shown(name)}"
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for name, item in items:
            if digest_or_none(item) is None:
                return _unwritable(item, (*where, name), inside | {id(value)})
    try:
        canon(value)
    except ValueError as e:
        return where, f"RFC 8785 cannot write {_shown(value)}: {e}"
    return where, "RFC 8785 cannot write it"


def too_deep(document: Any) -> tuple[str | int, ...] | None:
    """Where the first array or object nested deeper than the parser reads (SPEC §0: 512) is, in a
    loop: a value so deep is past what a recursion takes."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(document, ())]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict | list | tuple):
            if len(where) >= MAX_DEPTH:
                return where
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((item, (*where, name)) for name, item in reversed(list(items)))
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
