"""Loading a ``curator-bundle-v1`` (SPEC §1) into a frozen :class:`Bundle`.

The checks run in the order of the spec's input-error table, each over the
whole document before the next begins, so the error reported is always the
first in that order:

1. ``input.malformed_json`` (parsing, :mod:`curator_io.jsonio`);
2. ``input.schema``;
3. ``input.duplicate_id``;
4. ``input.inconsistent_trace``;
5. ``input.frozen_digest_mismatch``.

:func:`load_bundle` parses a document whole, :func:`bundle_from_document`, up to
:data:`CHUNKED_ABOVE` bytes. A larger one it reads a chunk at a time
(:mod:`curator_io._jsonstream`), so a large bundle is never held parsed whole:
each chunk of artifacts is checked, built and hashed, then dropped. A document
that passes 1 and 2 that way is the same bundle the whole parse would give.
Any doubt (malformed JSON, a schema error, an unusual layout) sends the
document to the whole parse, :func:`bundle_from_document`, which decides
exactly and names the first error.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import orjson

from curator_io import grammar as g
from curator_io._fast_jcs import names_sort_alike, orjson_writes_jcs
from curator_io._jsonstream import ArrayMember, Unsure, iter_members, parse_chunk
from curator_io.artifacts import build_chunk, build_item, check_object, fail, member
from curator_io.canonical import canon, digest
from curator_io.catalogue import BUNDLE_SCHEMA, DIGEST_PREFIX
from curator_io.errors import InputError, pointer_of
from curator_io.jsonio import parse_json
from curator_io.kinds import ARTIFACTS, BUNDLE, FROZEN, INSTRUCTION, MEMORY, RUN
from curator_io.models import Bundle, Instruction

__all__ = ["load_bundle", "bundle_from_document", "SCHEMA", "CHUNKED_ABOVE"]

SCHEMA = BUNDLE_SCHEMA

#: The size from which reading in chunks pays: below it the whole parse is faster on every
#: layout users write, above it chunks are faster and hold less (bench/RESULTS.md, issue 34).
CHUNKED_ABOVE = 800_000


@dataclass(frozen=True, slots=True)
class _Head:
    """``schema``, ``run`` and ``memory``, checked."""

    run_id: str
    version: int
    memory: dict[str, Any]
    memory_instructions: list[Instruction]


def _top(doc: dict[str, Any], name: str) -> Any:
    """Top-level member ``name``, as SPEC §1 (:data:`curator_io.kinds.BUNDLE`) says it must be."""
    return member(doc, name, (), BUNDLE.rule(name))


def _check_head(doc: dict[str, Any]) -> _Head:
    _top(doc, "schema")
    run = check_object(RUN, _top(doc, "run"), ("run",))
    memory = check_object(MEMORY, _top(doc, "memory"), ("memory",))
    listed = memory["instructions"]
    instructions = [build_item(INSTRUCTION, item, ("memory", "instructions", i)) for i, item in enumerate(listed)]
    return _Head(run["id"], int(memory["version"]), memory, instructions)


def _check_frozen(doc: dict[str, Any]) -> str:
    frozen = check_object(FROZEN, _top(doc, "frozen"), ("frozen",))
    return frozen["digest"]  # type: ignore[no-any-return]  # a DIGEST


def bundle_from_document(doc: Any) -> Bundle:
    """Check a parsed document against SPEC §1 and freeze it."""
    # 2. input.schema, over the whole document, in the order SPEC §1 lists it.
    if type(doc) is not dict:
        fail((), "expected an object")
    head = _check_head(doc)
    lists = {name: build_chunk(name, _top(doc, name), 0) for name in ARTIFACTS}
    proposals = _top(doc, "proposals")
    frozen_digest = _check_frozen(doc)
    body_digest = digest({k: v for k, v in doc.items() if k != "frozen"})
    return _freeze(head, lists, proposals, frozen_digest, body_digest)


def load_bundle(raw: bytes) -> Bundle:
    """Parse (strict I-JSON) and check one bundle document; above :data:`CHUNKED_ABOVE` bytes,
    a chunk at a time where it can."""
    if len(raw) <= CHUNKED_ABOVE:
        return bundle_from_document(parse_json(raw))
    try:
        head, lists, proposals, frozen_digest, body_digest = _read_in_chunks(raw)
    except Unsure:
        return bundle_from_document(parse_json(raw))
    return _freeze(head, lists, proposals, frozen_digest, body_digest)


def _freeze(
    head: _Head, lists: dict[str, list[Any]], proposals: list[Any], frozen_digest: str, body_digest: str
) -> Bundle:
    """Steps 3-5 over a document that passed 1 and 2."""
    # 3. input.duplicate_id.
    by_key = _index(head.memory_instructions, ("memory", "instructions"), "key")
    keys = set(by_key)
    for i, inst in enumerate(lists["instructions"]):
        if inst.key in keys:
            raise InputError(
                "input.duplicate_id",
                f"instruction key {inst.key!r} appears twice",
                pointer=pointer_of("instructions", i, "key"),
            )
        keys.add(inst.key)
    mats = _index(lists["materializations"], ("materializations",), "id")
    traces = _index(lists["traces"], ("traces",), "id")
    evidence = _index(lists["evidence"], ("evidence",), "id")
    lessons = _index(lists["lessons"], ("lessons",), "id")
    proposal_ids: set[str] = set()
    for i, proposal in enumerate(proposals):
        pid = proposal.get("id") if type(proposal) is dict else None
        if g.is_id(pid):
            if pid in proposal_ids:
                raise InputError(
                    "input.duplicate_id", f"proposal id {pid!r} appears twice", pointer=pointer_of("proposals", i, "id")
                )
            proposal_ids.add(pid)

    # 4. input.inconsistent_trace.
    for i, t in enumerate(lists["traces"]):
        if t.verified_prefix > t.steps or (t.completeness == "complete" and t.verified_prefix != t.steps):
            raise InputError(
                "input.inconsistent_trace",
                f"trace {t.id!r}: verified_prefix {t.verified_prefix} does not fit "
                f"{t.completeness} with {t.steps} steps",
                pointer=pointer_of("traces", i, "verified_prefix"),
            )

    # 5. input.frozen_digest_mismatch.
    if body_digest != frozen_digest:
        raise InputError(
            "input.frozen_digest_mismatch",
            f"frozen.digest is {frozen_digest}, the content digests to {body_digest}",
            pointer="/frozen/digest",
        )

    return Bundle(
        run_id=head.run_id,
        input_digest=frozen_digest,
        memory_version=head.version,
        memory=head.memory,
        memory_instructions=by_key,
        applicable=tuple(lists["instructions"]),
        materializations=mats,
        traces=traces,
        evidence=evidence,
        lessons=lessons,
        proposals=tuple(proposals),
    )


def _index(items: list[Any], path: tuple[str, ...], member: str) -> dict[str, Any]:
    """``items`` by their ``member`` (``id``, or ``key`` for instructions); a repeated one is
    ``input.duplicate_id`` at the later item's member, ``/PATH/INDEX/MEMBER``."""
    ident = attrgetter(member)
    out = dict(zip(map(ident, items), items, strict=True))
    if len(out) == len(items):
        return out
    seen: set[str] = set()
    for i, key in enumerate(map(ident, items)):
        if key in seen:
            raise InputError(
                "input.duplicate_id",
                f"{'.'.join(path)} {member} {key!r} appears twice",
                pointer=pointer_of(*path, i, member),
            )
        seen.add(key)
    raise AssertionError("unreachable: a shorter index has a repeated key")


# --- a chunk at a time ------------------------------------------------------------


def _read_in_chunks(raw: bytes) -> tuple[_Head, dict[str, list[Any]], list[Any], str, str]:
    """Steps 1 and 2 a chunk at a time, and the body's digest; :class:`Unsure` when in doubt.

    1. Walk the top-level members in document order (:func:`iter_members`).
    2. Build each artifact of a listed array as its chunk arrives, and keep the
       proposals as parsed; any other array is only hashed.
    3. Hash each member into the body's digest, unless the members come out of
       RFC 8785 order: then the arrays are read a second time, in that order.
    4. Check ``schema``, ``run``, ``memory`` and ``frozen``.
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
        return _check_head(small), lists, proposals, _check_frozen(small), body_digest  # 4.
    except InputError as e:
        raise Unsure(e.detail) from None


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
            suspects = None if kind is None else kind.not_orjson_exact(items)
            body.elements(_canonical_chunk(items, sorted_dump, suspects))
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
            body.elements(_canonical_chunk(items, sorted_dump))
        body.close_array()
    return body.result()


# --- the body's digest, from the chunks as they are parsed ----------------------------


def _canonical_chunk(items: list[Any], sorted_dump: bytes, suspects: list[Any] | None = None) -> bytes:
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
