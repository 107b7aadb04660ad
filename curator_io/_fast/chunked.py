"""Speed only (memory and time, above :data:`curator_io.bundle.CHUNKED_ABOVE`): a bundle
checked and hashed a chunk at a time as :mod:`curator_io._fast.jsonstream` reads it, so its
whole parse is never held.

Equals: :func:`curator_io.bundle.bundle_from_document` of the whole parse, the :class:`Bundle`
or the error, or :class:`Unsure` (and then the loader parses whole). Proven by:
``tests/curator_io/test_jsonstream.py``, ``test_every_corpus_bundle_loads_in_chunks_as_it_loads_whole``
and ``test_a_bundle_holding_what_the_strict_parser_refuses_is_refused_as_the_whole_parse_refuses_it``
(hypothesis), and ``tests/curator_io/test_bundle.py``,
``test_a_bundle_of_many_chunks_loads_in_chunks_as_it_loads_whole``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from curator_io._fast.bulk import not_orjson_exact
from curator_io._fast.jcs import names_sort_alike, orjson_writes_jcs
from curator_io._fast.jsonstream import ArrayMember, Unsure, iter_members, parse_chunk
from curator_io.artifacts import build_chunk
from curator_io.canonical import canon
from curator_io.catalogue import DIGEST_PREFIX
from curator_io.errors import InputError
from curator_io.freezing import check_frozen, check_head, freeze
from curator_io.kinds import ARTIFACTS
from curator_io.models import Bundle

__all__ = ["Unsure", "read_in_chunks", "canonical_chunk"]


# --- a chunk at a time ------------------------------------------------------------


def read_in_chunks(raw: bytes) -> Bundle:
    """The bundle in ``raw``, read a chunk at a time; :class:`Unsure` when in doubt.

    1. Walk the top-level members in document order (:func:`iter_members`).
    2. Build each artifact of a listed array as its chunk arrives, and keep the
       proposals as parsed; any other array is only hashed.
    3. Hash each member into the body's digest, unless the members come out of
       RFC 8785 order: then the arrays are read a second time, in that order.
    4. Check ``schema``, ``run``, ``memory`` and ``frozen``.
    5. Freeze it (:func:`curator_io.freezing.freeze`): its errors are the whole parse's own.
    """
    small: dict[str, Any] = {}
    lists: dict[str, list[Any]] = {}
    proposals: list[Any] | None = None
    spans: dict[str, list[tuple[int, int]]] = {}
    body = _BodyDigest()
    try:
        for name, value in iter_members(raw):  # 1.
            hashed = name != "frozen" and body.member(name)
            if not isinstance(value, ArrayMember):
                small[name] = value
                if hashed:
                    body.value(canon(value))
                continue
            if hashed:
                body.open_array()
            built = _read_array(name, value, body if hashed else None)  # 2.
            if name == "proposals":
                proposals = built
            elif name in ARTIFACTS:
                lists[name] = built
            spans[name] = value.spans
            if hashed:
                body.close_array()
        body_digest = body.result() if body.in_order else _digest_again(raw, small, spans)  # 3.
        if proposals is None or len(lists) != len(ARTIFACTS):
            raise Unsure("an artifact list is missing or not an array")
        head, frozen_digest = check_head(small), check_frozen(small)  # 4.
    except InputError as e:
        raise Unsure(e.detail) from None
    return freeze(head, lists, proposals, frozen_digest, body_digest)  # 5.


def _read_array(name: str, array: ArrayMember, body: _BodyDigest | None) -> list[Any]:
    kind = ARTIFACTS.get(name)
    out: list[Any] = []
    for items, sorted_dump in array:
        if kind is not None:
            out.extend(build_chunk(name, items, len(out)))
        elif name == "proposals":
            out.extend(items)
        if body is not None:
            # Built artifacts that orjson writes exactly as JCS need no walk to know it.
            suspects = None if kind is None else not_orjson_exact(kind, items)
            body.elements(canonical_chunk(items, sorted_dump, suspects))
    return out


def _digest_again(raw: bytes, small: dict[str, Any], spans: dict[str, list[tuple[int, int]]]) -> str:
    """The body's digest when its members came out of order: each member again, in order."""
    body = _BodyDigest()
    names = sorted((n for n in (*small, *spans) if n != "frozen"), key=lambda n: n.encode("utf-16-be"))
    for name in names:
        body.member(name)
        if name in small:
            body.value(canon(small[name]))
            continue
        body.open_array()
        for start, end in spans[name]:
            items, sorted_dump = parse_chunk(raw, start, end)
            body.elements(canonical_chunk(items, sorted_dump))
        body.close_array()
    return body.result()


# --- the body's digest, from the chunks as they are parsed ----------------------------


def canonical_chunk(items: list[Any], sorted_dump: bytes, suspects: list[Any] | None = None) -> bytes:
    """``canon(items)``, given orjson's sorted dump of them (:func:`parse_chunk`): the dump
    itself wherever orjson writes JCS (:mod:`curator_io.canonical`, steps 1 and 2).

    ``suspects``: the items that may hold what orjson writes otherwise; by default, all.
    """
    if orjson_writes_jcs(items if suspects is None else suspects) and names_sort_alike(sorted_dump):
        return sorted_dump
    return canon(items)


class _BodyDigest:
    """``digest()`` of an object whose members arrive one at a time, an array's in pieces.

    The members must arrive in RFC 8785 order (names by UTF-16 code units);
    ``in_order`` turns False at the first that does not, and the digest is
    then computed another way (:func:`_digest_again`).
    """

    def __init__(self) -> None:
        self._hash = hashlib.sha256(b"{")
        self._last: bytes | None = None
        self._pieces = 0
        self.in_order = True

    def member(self, name: str) -> bool:
        """Open member ``name``; False once the members are out of order (nothing more is hashed)."""
        key = name.encode("utf-16-be")
        if self._last is not None and key <= self._last:
            self.in_order = False
        if self.in_order:
            self._hash.update((b"," if self._last is not None else b"") + orjson.dumps(name) + b":")
        self._last = key
        return self.in_order

    def value(self, canonical: bytes) -> None:
        """The open member's whole value, canonical."""
        if self.in_order:
            self._hash.update(canonical)

    def open_array(self) -> None:
        self._pieces = 0
        if self.in_order:
            self._hash.update(b"[")

    def elements(self, canonical: bytes) -> None:
        """Some of the open array's elements, as the canonical bytes of an array holding them."""
        if self.in_order and len(canonical) > 2:
            self._hash.update(b"," if self._pieces else b"")
            self._hash.update(memoryview(canonical)[1:-1])
            self._pieces += 1

    def close_array(self) -> None:
        if self.in_order:
            self._hash.update(b"]")

    def result(self) -> str:
        assert self.in_order  # Cannot fail: read only when the members came in order.
        done = self._hash.copy()
        done.update(b"}")
        return DIGEST_PREFIX + done.hexdigest()
