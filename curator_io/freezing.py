"""A bundle's head checked and the bundle frozen: what reading a bundle does besides building
its artifacts, whether it was parsed whole (:func:`curator_io.bundle.bundle_from_document`) or
read a chunk at a time (:mod:`curator_io._fast.chunked`). Both call these; neither calls the other.

- :func:`check_head` and :func:`check_frozen`: the top-level members that are not lists
  (``input.schema``, step 2 of :mod:`curator_io.bundle`);
- :func:`freeze`: steps 3-5 over a document that passed 1 and 2, and the :class:`Bundle`.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, NamedTuple

from curator_io import grammar as g
from curator_io.artifacts import build_item, check_object, member
from curator_io.errors import InputError, pointer_of
from curator_io.kinds import BUNDLE, FROZEN, INSTRUCTION, MEMORY, RUN
from curator_io.models import Bundle, Instruction

__all__ = ["Head", "top_member", "check_head", "check_frozen", "freeze"]


class Head(NamedTuple):  # not a dataclass: every command that loads a bundle builds this class at start-up
    """``schema``, ``run`` and ``memory``, checked."""

    run_id: str
    version: int
    memory: dict[str, Any]
    memory_instructions: list[Instruction]


def top_member(doc: dict[str, Any], name: str) -> Any:
    """Top-level member ``name``, as SPEC §1 (:data:`curator_io.kinds.BUNDLE`) says it must be."""
    return member(doc, name, (), BUNDLE.rule(name))


def check_head(doc: dict[str, Any]) -> Head:
    top_member(doc, "schema")
    run = check_object(RUN, top_member(doc, "run"), ("run",))
    memory = check_object(MEMORY, top_member(doc, "memory"), ("memory",))
    listed = memory["instructions"]
    instructions = [build_item(INSTRUCTION, item, ("memory", "instructions", i)) for i, item in enumerate(listed)]
    return Head(run["id"], int(memory["version"]), memory, instructions)


def check_frozen(doc: dict[str, Any]) -> str:
    frozen = check_object(FROZEN, top_member(doc, "frozen"), ("frozen",))
    return frozen["digest"]  # type: ignore[no-any-return]  # a DIGEST


def freeze(
    head: Head, lists: dict[str, list[Any]], proposals: list[Any], frozen_digest: str, body_digest: str
) -> Bundle:
    """Steps 3-5 over a document that passed 1 and 2: ``lists`` are its artifacts, built;
    ``body_digest`` is the digest of the document without its ``frozen`` member."""
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
