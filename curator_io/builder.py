"""Writing a ``curator-bundle-v1`` (SPEC §1): what an agent did and what its curator proposes,
recorded call by call, sealed, and loaded back.

A :class:`BundleBuilder` records the memory snapshot, the instructions in force,
materializations, traces (with their steps, or their number, and the verified
prefix), evidence, lessons and proposals, in the order they are recorded.
:meth:`BundleBuilder.build` then:

1. writes the document, each array in recording order, each artifact's members in
   SPEC §1's order and then its own (``members=``), which count in its seal;
2. seals it (:func:`curator_io.sealing.seal_artifacts`: every artifact's ``digest``, then
   ``frozen.digest``); a value RFC 8785 cannot write (a lone surrogate, a number that is
   not finite, a Python object, a value that contains itself) is ``input.malformed_json``,
   as the same value in a file would be, with a pointer to it;
3. loads the canonical bytes with :func:`curator_io.bundle.load_bundle`, the loader every
   command uses, so every value is checked by its rules, with its codes and its
   pointers (``/traces/2/verified_prefix`` is the third trace recorded). No rule is
   restated here.

Pure: no files, no clock (the caller gives every timestamp), no environment.
What the builder refuses by itself are mistakes in calling it (a member that the
kind already has, a ``replace`` of a key the memory lacks with no digest given):
``ValueError``. A proposal is written as given: a malformed one is not an input
error but a ``proposal.incomplete`` rejection (SPEC §3.1).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from curator_io.bundle import load_bundle
from curator_io.canonical import canon, digest, is_sealed
from curator_io.catalogue import BUNDLE_SCHEMA
from curator_io.errors import InputError, pointer_of
from curator_io.fitting import fit_text
from curator_io.jcs_limits import digest_or_none, malformed, too_deep
from curator_io.jsonio import parse_json
from curator_io.kinds import EVIDENCE, INSTRUCTION, LESSON, MATERIALIZATION, TRACE, Kind
from curator_io.loop_mistakes import mistakes
from curator_io.memory import MemoryDocument, check_memory
from curator_io.models import Bundle, Scope
from curator_io.sealing import seal_artifacts

if TYPE_CHECKING:
    from curator_io.transcripts.into_bundle import RecordedSession
    from curator_io.transcripts.model import Transcript

__all__ = [
    "BundleBuilder",
    "SealedBundle",
    "Add",
    "Replace",
    "Remove",
    "STEP_DIGESTS",
    "Carrier",
    "PoolHolder",
    "fit_text",
]

STEP_DIGESTS = "step_digests"
"""The trace member that holds the digest of each recorded step (null for a step RFC 8785
cannot write): SPEC §1 allows it, and it counts in the trace's seal."""


@dataclass(frozen=True, slots=True)
class Add:
    """SPEC §1 ``add``: a new instruction ``key`` with ``text``."""

    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Replace:
    """SPEC §1 ``replace``: the memory instruction ``key`` gets ``text``."""

    key: str
    text: str
    expected_digest: str | None = None
    """The digest of the instruction the edit was written against; None: the memory's, as recorded."""


@dataclass(frozen=True, slots=True)
class Remove:
    """SPEC §1 ``remove``: the memory instruction ``key`` goes."""

    key: str
    expected_digest: str | None = None
    """As for :class:`Replace`."""


Operation = Add | Replace | Remove


class Carrier(Protocol):
    """Evidence carried into a bundle as it is built: ``ranking.ledger.carry.Pool``."""

    def carry_into(self, document: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[Any, ...]]:
        """The document with what it carries filed in, and what became of each edit."""
        ...  # pragma: no cover - a protocol


class PoolHolder(Protocol):
    """What :meth:`BundleBuilder.carry` takes: an open ``ranking.ledger.Ledger``."""

    def carrier(self) -> Carrier:
        """Its pool as it is now."""
        ...  # pragma: no cover - a protocol


@dataclass(frozen=True, slots=True)
class SealedBundle:
    """What :meth:`BundleBuilder.build` returns: one bundle in three forms."""

    document: Mapping[str, Any]
    """The sealed document, as parsing :attr:`canonical` gives it back."""
    canonical: bytes
    """Its RFC 8785 bytes: what to write to a file, sign or hand to ``evidence-rank``."""
    bundle: Bundle
    """Those bytes loaded (:func:`curator_io.load_bundle`): what ``ranking.rank`` takes."""


@dataclass(frozen=True, slots=True)
class _Proposal:
    id: str
    members: Mapping[str, Any]
    operations: tuple[Operation, ...]


class BundleBuilder:
    """Records one bundle; :meth:`build` seals, writes and loads it (the module docstring).

    ``memory_version`` is the version of the memory snapshot (SPEC §1 ``memory.version``);
    ``curator`` names who proposes; ``frozen_at`` is when the bundle was frozen, a
    TIMESTAMP the caller gives (nothing here reads a clock).
    """

    def __init__(self, *, memory_version: int, curator: str, frozen_at: str) -> None:
        self.memory_version = memory_version
        self._run = {"curator": curator, "frozen_at": frozen_at}
        self._lists: dict[str, list[dict[str, Any]]] = {
            name: [] for name in ("memory", "instructions", "materializations", "traces", "evidence", "lessons")
        }
        self._proposals: list[_Proposal] = []
        self._memory_members: dict[str, Any] = {}
        self._checkout: str | None = None
        self._carriers: list[Carrier] = []
        #: What became of each pooled edit at the last build, with :meth:`carry` (``ranking.ledger.carry.Carried``).
        self.carried: tuple[Any, ...] = ()

    @classmethod
    def from_memory(cls, memory: Mapping[str, Any] | MemoryDocument, *, curator: str, frozen_at: str) -> BundleBuilder:
        """A builder whose memory is ``memory``, exactly: a memory object, or the
        :class:`~curator_io.memory.MemoryDocument` a memory file holds, JSON or Markdown
        (``ranking.read_memory_file(path).document``): yesterday's memory, for today's bundle.
        Its version, its instructions in their order with every member, and its other members
        are the bundle's ``memory``, so the gate finds the bundle curated against that file.

        Raises ``input.schema`` (or ``input.duplicate_id``) for a memory SPEC §1 does not allow
        (:func:`curator_io.memory.check_memory`), and ``input.schema`` at an instruction whose
        ``digest`` is not its seal: the bundle would carry another memory than the file's.
        """
        found = memory.memory if isinstance(memory, MemoryDocument) else memory
        check_memory(found)
        builder = cls(memory_version=found["version"], curator=curator, frozen_at=frozen_at)
        for i, instruction in enumerate(found["instructions"]):
            if not is_sealed(instruction):
                why = "the digest is not the instruction's seal (SPEC §0): the bundle would not hold this memory"
                raise InputError("input.schema", why, pointer=pointer_of("instructions", i, "digest"))
            own = {"key", "text", "scope", "origin", "digest"}
            builder.memory_instruction(
                instruction["key"],
                instruction["text"],
                scope=Scope(**instruction["scope"]),
                origin=instruction["origin"],
                members={name: value for name, value in instruction.items() if name not in own},
            )
        builder._memory_members = {
            name: value for name, value in found.items() if name not in ("version", "instructions")
        }
        return builder

    def memory_instruction(
        self, key: str, text: str, *, scope: Scope, origin: str = "curated", members: Mapping[str, Any] | None = None
    ) -> None:
        """One instruction of the memory the Writer would change."""
        self._add("memory", INSTRUCTION, members, key=key, text=text, scope=scope.to_json(), origin=origin)

    def applicable_instruction(
        self, key: str, text: str, *, scope: Scope, origin: str = "user", members: Mapping[str, Any] | None = None
    ) -> None:
        """One of the other instructions in force (a user rule, a repository file): read-only."""
        self._add("instructions", INSTRUCTION, members, key=key, text=text, scope=scope.to_json(), origin=origin)

    def materialization(
        self,
        id: str,
        *,
        repository: str,
        source_revision: str,
        status: str = "compatible",
        members: Mapping[str, Any] | None = None,
    ) -> None:
        """One concrete checkout an agent ran in."""
        self._add(
            "materializations",
            MATERIALIZATION,
            members,
            id=id,
            repository=repository,
            source_revision=source_revision,
            status=status,
        )

    def trace(
        self,
        id: str,
        *,
        lineage: str,
        materialization: str,
        steps: Sequence[Any] | int,
        verified_prefix: int | None = None,
        members: Mapping[str, Any] | None = None,
    ) -> None:
        """One invocation of an agent. ``steps`` is the list of its steps (any JSON values:
        the digest of each is written under :data:`STEP_DIGESTS`, so the trace's seal
        covers what each step was), or their number.

        ``verified_prefix`` None: the trace is ``complete``, except that with a list, a
        step RFC 8785 cannot write ends what is verified (the trace is ``partial``,
        verified up to that step, and its digest is null). An int: ``partial``, verified
        up to there (SPEC §3.5.2).
        """
        extra = dict(members or {})
        count: Any = steps  # not a list or a number: written as given, for the loader to refuse
        if isinstance(steps, list | tuple):
            if STEP_DIGESTS in extra:
                raise ValueError(f"trace {id!r}: {STEP_DIGESTS!r} is written from the steps given")
            digests = [digest_or_none(step) for step in steps]
            written = next((k for k, d in enumerate(digests) if d is None), len(digests))
            if verified_prefix is not None and verified_prefix > written:
                raise ValueError(f"trace {id!r}: step {written} cannot be written, so at most {written} are verified")
            if verified_prefix is None and written < len(digests):
                verified_prefix = written
            extra = {STEP_DIGESTS: digests, **extra}
            count = len(digests)
        self._add(
            "traces",
            TRACE,
            extra,
            id=id,
            lineage=lineage,
            materialization=materialization,
            steps=count,
            completeness="complete" if verified_prefix is None else "partial",
            verified_prefix=count if verified_prefix is None else verified_prefix,
        )

    def evidence(
        self,
        id: str,
        *,
        trace: str,
        step: int,
        signal: str,
        observed_at: str,
        summary: str = "",
        path: str | None = None,
        members: Mapping[str, Any] | None = None,
    ) -> None:
        """One observation at step ``step`` of ``trace``; ``signal`` is a SPEC §1 signal
        (``user``, ``deterministic``, ``tool``, ``observable``, ``self_assessment``)."""
        self._add(
            "evidence",
            EVIDENCE,
            members,
            id=id,
            trace=trace,
            step=step,
            signal=signal,
            observed_at=observed_at,
            path=path,
            summary=summary,
        )

    def transcript(
        self,
        transcript: Transcript,
        *,
        repository: str | None = None,
        revision: str | None = None,
        checkout: str | None = None,
        lineage: str | None = None,
    ) -> tuple[RecordedSession, ...]:
        """Every session of an agent's log (``ranking.read_transcript_file``): a materialization, a trace
        of its tool calls and the evidence they support (:mod:`curator_io.transcripts.into_bundle`)."""
        from curator_io.transcripts.into_bundle import record_transcript  # the builder's other callers never pay for it

        return record_transcript(
            self, transcript, repository=repository, revision=revision, checkout=checkout, lineage=lineage
        )

    def first_checkout(self, directory: str | None) -> str | None:
        """The directory of the first session :meth:`transcript` recorded (``directory`` if none was)."""
        if self._checkout is None:
            self._checkout = directory
        return self._checkout

    def lesson(self, id: str, *, text: str, evidence: Sequence[str], members: Mapping[str, Any] | None = None) -> None:
        """What the curator learned, from these evidence items."""
        self._add("lessons", LESSON, members, id=id, text=text, evidence=_array(evidence))

    def propose(
        self,
        id: str,
        *,
        lesson: str,
        scope: Scope,
        confidence: float,
        operations: Sequence[Operation],
        support: Sequence[str],
        contradict: Sequence[str] = (),
        rationale: str | None = None,
        base_memory_version: int | None = None,
    ) -> None:
        """One proposal. ``base_memory_version`` None: the memory's version. An operation on a
        key of the memory without an ``expected_digest`` gets that instruction's digest."""
        members: dict[str, Any] = {"id": id, "lesson": lesson, "scope": scope.to_json(), "confidence": confidence}
        if rationale is not None:
            members["rationale"] = rationale
        members["base_memory_version"] = self.memory_version if base_memory_version is None else base_memory_version
        members["support"] = _array(support)
        members["contradict"] = _array(contradict)
        self._proposals.append(_Proposal(id, members, tuple(operations)))

    def carry(self, ledger: PoolHolder) -> None:
        """Carry ``ledger``'s pool (docs/ledger.md, "Carry") into this bundle when it is built: each
        edit a run deferred or left unselected is re-filed with its evidence, re-based on this
        bundle's memory (or left out where the instructions it edits changed), its evidence joining
        a proposal of the same edit here. The pool is read now; :attr:`carried` says after each
        build what became of each edit. A bundle to be signed is signed after it is built."""
        self._carriers.append(ledger.carrier())

    def content_digest(self) -> str:
        """The digest of the sealed document without ``run`` and ``frozen``: a name for the
        bundle's content that does not depend on the run id (what :meth:`build_named` uses)."""
        return _digest(self._body(None), leave_out="run")

    def build(self, run_id: str, *, strict: bool = False) -> SealedBundle:
        """The sealed bundle, as ``run_id`` (an ID: the reports' ``run``), checked by the loader.

        Raises ``curator_io.InputError`` as :func:`curator_io.load_bundle` would for the same
        document (``input.malformed_json`` for a value RFC 8785 cannot write, naming it);
        ``ValueError`` for an operation on a key the memory lacks with no digest given, and, with
        ``strict``, for any of :meth:`mistakes` (SPEC allows such a bundle: by default it is built,
        and validation rejects what cites them).
        """
        if strict:
            found = self.mistakes()
            if found:
                more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                raise ValueError(f"the bundle's bookkeeping: {found[0]}{more}")
        return _frozen(self._body(run_id))

    def mistakes(self) -> tuple[str, ...]:
        """The loop's bookkeeping errors recorded so far, in recording order
        (:func:`curator_io.loop_mistakes.mistakes`): each is valid input (SPEC §1), and validation
        rejects what cites it (``closure.*``)."""
        return mistakes(self._lists, [(p.id, p.members) for p in self._proposals])

    def build_named(self, prefix: str) -> SealedBundle:
        """:meth:`build` with the run id ``{prefix}-`` and 12 hex digits of :meth:`content_digest`:
        the same records always make the same bundle, byte for byte, whatever the run. The
        artifacts are sealed once."""
        body = self._body(None)
        body["run"] = {**body["run"], "id": f"{prefix}-{_digest(body, leave_out='run')[7:19]}"}
        return _frozen(body)

    # --- writing ---------------------------------------------------------------------

    def _add(self, where: str, kind: Kind, members: Mapping[str, Any] | None, **values: Any) -> None:
        taken = sorted((kind.names | {"digest"}) & set(members or {}))
        if taken:
            raise ValueError(f"{kind.title}: members= may not set {', '.join(taken)}: the builder writes them")
        self._lists[where].append({**values, **(members or {})})

    def _document(self, run_id: str | None) -> dict[str, Any]:
        memory = self._lists["memory"]
        digests = {}
        for at, instruction in enumerate(memory):
            found = digest_or_none(instruction)
            if found is None:
                raise malformed(instruction, ("memory", "instructions", at))
            if isinstance(instruction["key"], str):
                digests[instruction["key"]] = found
        return {
            "schema": BUNDLE_SCHEMA,
            "run": {"id": run_id, **self._run},
            "memory": {"version": self.memory_version, "instructions": memory, **self._memory_members},
            **{name: items for name, items in self._lists.items() if name != "memory"},
            "proposals": [{**p.members, "operations": _written(p, digests)} for p in self._proposals],
        }

    def _body(self, run_id: str | None) -> dict[str, Any]:
        """The document as ``run_id``, every artifact sealed, no ``frozen`` yet; or
        ``input.malformed_json`` naming the first value RFC 8785 cannot write."""
        document = self._document(run_id)
        carried: tuple[Any, ...] = ()
        for carrier in self._carriers:
            document, said = carrier.carry_into(document)
            carried += said
        self.carried = carried
        try:
            return seal_artifacts(document)
        except (ValueError, RecursionError):
            raise malformed(document, ()) from None


def _digest(body: dict[str, Any], *, leave_out: str = "frozen") -> str:
    """The digest of ``body`` less its member ``leave_out``; or ``input.malformed_json`` naming the
    first value RFC 8785 cannot write (a proposal's text: proposals are not artifacts)."""
    try:
        return digest({name: value for name, value in body.items() if name != leave_out})
    except (ValueError, RecursionError):
        raise malformed(body, ()) from None


def _frozen(body: dict[str, Any]) -> SealedBundle:
    """``body`` frozen (SPEC §1 ``frozen.digest``), written and loaded back, as every command reads a bundle."""
    canonical = canon({**body, "frozen": {"digest": _digest(body)}})
    try:
        document = parse_json(canonical)
    except InputError as e:
        deep = too_deep(body)
        if e.code == "input.malformed_json" and deep is not None:  # the parser cannot say where
            raise InputError(e.code, e.detail, pointer=pointer_of(*deep)) from None
        raise
    return SealedBundle(document, canonical, load_bundle(canonical))


def _written(proposal: _Proposal, digests: Mapping[str, str]) -> list[dict[str, Any]]:
    """The proposal's operations as SPEC §1 writes them, each ``expected_digest`` filled in."""
    out = []
    for op in proposal.operations:
        if isinstance(op, Add):
            out.append({"action": "add", "key": op.key, "text": op.text})
            continue
        expected = op.expected_digest if op.expected_digest is not None else digests.get(op.key)
        if expected is None:
            # The likely mistake is the key, not a missing digest: name the nearest key the memory holds.
            near = difflib.get_close_matches(op.key, sorted(digests), n=1)
            fix = f"did you mean {near[0]!r}?" if near else "give expected_digest= to edit one it does not hold"
            raise ValueError(
                f"proposal {proposal.id!r}: {type(op).__name__.lower()} of {op.key!r}: no instruction {op.key!r} "
                f"in the memory; {fix}"
            )
        if isinstance(op, Replace):
            out.append({"action": "replace", "key": op.key, "text": op.text, "expected_digest": expected})
        else:
            out.append({"action": "remove", "key": op.key, "expected_digest": expected})
    return out


def _array(ids: Sequence[str]) -> Any:
    """A list or tuple as a JSON array; anything else (a string) as given, for the rules to refuse."""
    return list(ids) if isinstance(ids, list | tuple) else ids
