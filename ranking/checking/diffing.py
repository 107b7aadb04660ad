"""Where two JSON documents first differ, as JSON Pointers (for tamper messages)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from curator_io.errors import pointer_of
from curator_io.grammar import is_number

__all__ = ["differences"]


def differences(a: Any, b: Any, *, limit: int = 5) -> list[str]:
    """Up to ``limit`` JSON Pointers where ``a`` and ``b`` differ, in document order; each names a place
    in ``a`` (RFC 6901), or a member missing from an object of ``a``."""
    out: list[str] = []
    for pointer in _walk(a, b, ()):
        out.append(pointer)
        if len(out) >= limit:
            break
    return out


def _walk(a: Any, b: Any, path: tuple[str | int, ...]) -> Iterator[str]:
    if type(a) is dict and type(b) is dict:
        for key in sorted(a.keys() | b.keys()):
            if key not in a or key not in b:
                yield pointer_of(*path, key)
            else:
                yield from _walk(a[key], b[key], (*path, key))
    elif type(a) is list and type(b) is list:
        for i in range(max(len(a), len(b))):
            if i >= len(a):
                # The index names nothing in ``a``: name its array, the place that is too short.
                yield pointer_of(*path)
                break
            if i >= len(b):
                yield pointer_of(*path, i)
            else:
                yield from _walk(a[i], b[i], (*path, i))
    elif (type(a) is not type(b) and not (is_number(a) and is_number(b))) or a != b:
        yield pointer_of(*path)
