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
(:mod:`curator_io._fast.chunked`), so a large bundle is never held parsed whole:
each chunk of artifacts is checked, built and hashed, then dropped. A document
that passes 1 and 2 that way is the same bundle the whole parse would give.
Any doubt (malformed JSON, a schema error, an unusual layout) sends the
document to the whole parse, :func:`bundle_from_document`, which decides
exactly and names the first error.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from curator_io import grammar as g
from curator_io.artifacts import build_chunk, build_item, check_object, fail, member
from curator_io.canonical import digest
from curator_io.catalogue import BUNDLE_SCHEMA
from curator_io.errors import InputError, pointer_of
from curator_io.jsonio import parse_json
from curator_io.kinds import ARTIFACTS, BUNDLE, FROZEN, INSTRUCTION, MEMORY, RUN
from curator_io.models import Bundle, Instruction
from curator_io.reference import off

__all__ = ["load_bundle", "bundle_from_document", "SCHEMA", "CHUNKED_ABOVE"]

SCHEMA = BUNDLE_SCHEMA

#: The size from which reading in chunks pays: below it the whole parse is faster on every
#: layout users write, above it chunks are faster and hold less (bench/RESULTS.md, issue 34).
CHUNKED_ABOVE = 800_000


@dataclass(frozen=True, slots=True)
class Head:
    """``schema``, ``run`` and ``memory``, checked."""

    run_id: str
    version: int
    memory: dict[str, Any]
    memory_instructions: list[Instruction]


def _top(doc: dict[str, Any], name: str) -> Any:
    """Top-level member ``name``, as SPEC §1 (:data:`curator_io.kinds.BUNDLE`) says it must be."""
    return member(doc, name, (), BUNDLE.rule(name))


def check_head(doc: dict[str, Any]) -> Head:
    _top(doc, "schema")
    run = check_object(RUN, _top(doc, "run"), ("run",))
    memory = check_object(MEMORY, _top(doc, "memory"), ("memory",))
    listed = memory["instructions"]
    instructions = [build_item(INSTRUCTION, item, ("memory", "instructions", i)) for i, item in enumerate(listed)]
    return Head(run["id"], int(memory["version"]), memory, instructions)


def check_frozen(doc: dict[str, Any]) -> str:
    frozen = check_object(FROZEN, _top(doc, "frozen"), ("frozen",))
    return frozen["digest"]  # type: ignore[no-any-return]  # a DIGEST


def bundle_from_document(doc: Any) -> Bundle:
    """Check a parsed document against SPEC §1 and freeze it."""
    # 2. input.schema, over the whole document, in the order SPEC §1 lists it.
    if type(doc) is not dict:
        fail((), "expected an object")
    head = check_head(doc)
    lists = {name: build_chunk(name, _top(doc, name), 0) for name in ARTIFACTS}
    proposals = _top(doc, "proposals")
    frozen_digest = check_frozen(doc)
    body_digest = digest({k: v for k, v in doc.items() if k != "frozen"})
    return _freeze(head, lists, proposals, frozen_digest, body_digest)


def load_bundle(raw: bytes) -> Bundle:
    """Parse (strict I-JSON) and check one bundle document; above :data:`CHUNKED_ABOVE` bytes,
    a chunk at a time where it can."""
    if off("chunked") or len(raw) <= CHUNKED_ABOVE:
        return bundle_from_document(parse_json(raw))
    from curator_io._fast.chunked import Unsure, read_in_chunks

    try:
        head, lists, proposals, frozen_digest, body_digest = read_in_chunks(raw)
    except Unsure:
        return bundle_from_document(parse_json(raw))
    return _freeze(head, lists, proposals, frozen_digest, body_digest)


def _freeze(
    head: Head, lists: dict[str, list[Any]], proposals: list[Any], frozen_digest: str, body_digest: str
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
