"""The pool: evidence that waits for its recurrence (docs/ledger.md, "The pool (schema 4)"). Pure:
a run's bundle and report in, what the ledger keeps of them out; a stored row in, the reason it is
not what the ledger writes out.

For each edit (fingerprint) a report ``deferred`` or left ``unselected``, and that the ledger has not
admitted, the ledger keeps its proposal's **closure** as the bundle held it (SPEC §3.3: the lesson,
the cited evidence, their traces and materializations, the memory instructions its ``replace`` and
``remove`` cite), so that the next bundle can carry it (:mod:`ranking.ledger.carry`) and the lesson's
recurrence adds up across runs. Beside each run, the **memory** it was ranked against.

A closure is one JSON object, stored as its canonical bytes (RFC 8785)::

    {"proposal": {...}, "lesson": {...}, "evidence": [...], "traces": [...],
     "materializations": [...], "instructions": [...]}

each list in ordinal order of its items' ``id`` (``key`` for instructions), each artifact as the
bundle held it, sealed (SPEC §0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from curator_io.canonical import canon, digest, is_sealed
from curator_io.errors import InputError
from curator_io.jsonio import parse_json
from curator_io.memory_object import check_memory
from ranking.ledger.fate import WAITING
from validator.proposal import Proposal, check_structure

__all__ = [
    "DROPPED_MOST",
    "ENTRY_BYTES",
    "MEMORY_BYTES",
    "POOL_BYTES",
    "POOLED",
    "WAIT_RUNS",
    "ADMITTED",
    "WAITED",
    "POOL_FULL",
    "TOO_LARGE",
    "WHY",
    "Dropped",
    "Memory",
    "PoolEntry",
    "Pooled",
    "closure_fault",
    "export_lines",
    "closure_of",
    "memory_fault",
    "memory_of",
    "pooled_of",
]

#: The final dispositions whose edit waits in the pool: not yet, for want of evidence (SPEC §3.5.7,
#: §5.1) or of room (§5.4): what :mod:`ranking.ledger.fate` calls waiting. A refused edit is not
#: pooled: it must change to pass.
POOLED = WAITING

#: An entry falls out once this many runs were recorded after its own without admitting it.
WAIT_RUNS = 10
#: The pool holds at most this many bytes of closures (their canonical JSON); the oldest fall out first.
POOL_BYTES = 8 * 1024 * 1024
#: A closure larger than this is not pooled at all (it falls out at once, ``too-large``).
ENTRY_BYTES = 1024 * 1024
#: A run's memory document is kept when its canonical JSON is at most this long; else its version
#: and digest alone.
MEMORY_BYTES = 256 * 1024
#: At most this many tombstones are kept; the oldest go first.
DROPPED_MOST = 1000

# Why an entry left the pool (a tombstone's ``why``).
ADMITTED = "admitted"
"""A later report selected the edit: it needs no carrying."""
WAITED = "waited"
"""WAIT_RUNS runs were recorded after its own and none admitted it."""
POOL_FULL = "pool-full"
"""The pool was over POOL_BYTES; the oldest entries made room."""
TOO_LARGE = "too-large"
"""Its closure alone is over ENTRY_BYTES."""
WHY = (ADMITTED, WAITED, POOL_FULL, TOO_LARGE)

_CLOSURE_MEMBERS = ("evidence", "instructions", "lesson", "materializations", "proposal", "traces")
_LISTS = {"evidence": "id", "traces": "id", "materializations": "id", "instructions": "key"}


class Pooled(NamedTuple):
    """What a recording pools of one edit: its fingerprint and its closure's canonical bytes."""

    fingerprint: str
    closure: bytes


class Memory(NamedTuple):
    """The memory a run was ranked against: the bundle's ``memory`` object."""

    version: int
    """``memory.version``."""
    digest: str
    """``digest(memory)`` (SPEC §0): the memory object, canonical."""
    document: bytes | None
    """Its canonical bytes when at most :data:`MEMORY_BYTES`; else None."""


class PoolEntry(NamedTuple):
    """An edit waiting in the pool: one report's closure of its proposal (``Ledger.pool()``)."""

    fingerprint: str
    report: str
    """The digest of the report that deferred it or left it unselected."""
    run: str
    """That report's ``run``."""
    proposal: str
    """The proposal's id in that run's bundle."""
    lesson: str
    """Its lesson's id."""
    lineages: tuple[str, ...]
    """The distinct ``lineage`` of the traces of its cited support, in ordinal order."""
    runs_waited: int
    """How many reports this ledger recorded after that one."""
    closure: Mapping[str, Any]
    """The closure (the module docstring)."""


class Dropped(NamedTuple):
    """A tombstone: an edit that left the pool without being carried (``Ledger.pool_dropped()``)."""

    fingerprint: str
    report: str
    """The digest of the report whose closure left."""
    run: str
    """That report's ``run``."""
    why: str
    """One of :data:`WHY`."""
    dropped_in: str | None
    """The run in which it left (for ``admitted``, the run that selected it); None when a
    ``ledger merge`` made room (``pool-full``)."""


def memory_of(document: Mapping[str, Any]) -> Memory:
    """The memory a bundle (a loaded one's document) was ranked against."""
    memory = document["memory"]
    body = canon(memory)
    return Memory(memory["version"], digest(memory), body if len(body) <= MEMORY_BYTES else None)


def pooled_of(
    document: Mapping[str, Any], report: Mapping[str, Any], proposals: Mapping[str, Proposal]
) -> tuple[Pooled, ...]:
    """The closure of each edit ``report`` deferred or left unselected, from the bundle it ranked
    (``document``; ``proposals``: its structurally complete proposals by id, as validation checked
    them), each fingerprint once (its first such proposal in report order)."""
    wanted = {}
    for entry in report["proposals"]:
        fingerprint = entry["fingerprint"]
        if entry["disposition"] in POOLED and fingerprint is not None and fingerprint not in wanted:
            wanted[fingerprint] = proposals[entry["id"]]  # Cannot fail: a fingerprint is a complete proposal's.
    if not wanted:
        return ()
    artifacts = _Artifacts(document)
    found = {f: canon(artifacts.closure_of(p, document["proposals"][p.index])) for f, p in wanted.items()}
    return tuple(Pooled(f, c) for f, c in sorted(found.items()))


def closure_of(document: Mapping[str, Any], proposal: Proposal, raw: Mapping[str, Any]) -> dict[str, Any]:
    """SPEC §3.3's closure of ``proposal`` in ``document``: the artifacts as the bundle holds them.
    The lesson's own evidence the bundle holds is included with the cited: a lesson re-filed cites it."""
    return _Artifacts(document).closure_of(proposal, raw)


class _Artifacts:
    """A bundle's artifacts by id (instructions by key), indexed once for every closure taken."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.by_id = {
            name: {a["id"]: a for a in document[name]} for name in ("lessons", "evidence", "traces", "materializations")
        }
        self.memory = {i["key"]: i for i in document["memory"]["instructions"]}

    def closure_of(self, proposal: Proposal, raw: Mapping[str, Any]) -> dict[str, Any]:
        lesson = self.by_id["lessons"][proposal.lesson]
        evidence_by_id = self.by_id["evidence"]
        # SPEC §3.2 resolves what the proposal cites; a lesson may name evidence the bundle lacks.
        cited = {*proposal.support, *proposal.contradict, *(e for e in lesson["evidence"] if e in evidence_by_id)}
        evidence = [evidence_by_id[e] for e in sorted(cited)]
        traces = {t: self.by_id["traces"][t] for t in sorted({e["trace"] for e in evidence})}
        kept = sorted({t["materialization"] for t in traces.values()})
        cites = sorted({op.key for op in proposal.operations if op.action != "add"})
        return {
            "proposal": dict(raw),
            "lesson": lesson,
            "evidence": evidence,
            "traces": list(traces.values()),
            "materializations": [self.by_id["materializations"][m] for m in kept],
            "instructions": [self.memory[k] for k in cites],
        }


def lineages_of(closure: Mapping[str, Any]) -> tuple[str, ...]:
    """The distinct lineages of the traces of the closure's cited support, in ordinal order."""
    evidence = {e["id"]: e for e in closure["evidence"]}
    traces = {t["id"]: t for t in closure["traces"]}
    support = closure["proposal"]["support"]
    return tuple(sorted({traces[evidence[e]["trace"]]["lineage"] for e in support}))


def closure_fault(fingerprint: str, closure: bytes, dispositions: Iterable[str]) -> str | None:
    """Why a pool row is not one the ledger wrote, or None: its closure must be canonical JSON of the
    closure's members, every artifact in it sealed (SPEC §0), its proposal complete (SPEC §3.1) with
    the row's fingerprint, and its report must have decided that fingerprint ``deferred`` or
    ``unselected`` (``dispositions``: the report's final dispositions of that fingerprint)."""
    try:
        value = parse_json(closure)
    except InputError as e:
        return f"the closure is not JSON: {e.detail}"
    if canon(value) != closure:
        return "the closure is not canonical JSON"
    if type(value) is not dict or sorted(value) != list(_CLOSURE_MEMBERS):
        return f"the closure is not an object of exactly {', '.join(_CLOSURE_MEMBERS)}"
    checked = check_structure(value["proposal"], 0)
    if not isinstance(checked, Proposal):
        return "its proposal is not structurally complete (SPEC §3.1)"
    if checked.fingerprint != fingerprint:
        return f"its proposal's fingerprint is {checked.fingerprint}, not the row's"
    artifacts = [value["lesson"], *(a for name in _LISTS for a in _items(value[name]))]
    for artifact in artifacts:
        if type(artifact) is not dict or not is_sealed(artifact):
            return "an artifact of its closure is not sealed (SPEC §0)"
    if not POOLED & set(dispositions):
        return "its report did not defer it or leave it unselected"
    return _closure_gap(value, checked)


def _items(value: Any) -> list[Any]:
    return value if type(value) is list else [None]


def _closure_gap(closure: Mapping[str, Any], proposal: Proposal) -> str | None:
    """Why the closure's artifacts do not resolve its proposal's references, or None."""
    lesson = closure["lesson"]
    evidence = {e.get("id"): e for e in closure["evidence"]}
    traces = {t.get("id"): t for t in closure["traces"]}
    materializations = {m.get("id") for m in closure["materializations"]}
    keys = {i.get("key") for i in closure["instructions"]}
    if lesson.get("id") != proposal.lesson or type(lesson.get("evidence")) is not list:
        return "its lesson is not the proposal's"
    for cited in (*proposal.support, *proposal.contradict):
        item = evidence.get(cited)
        if item is None or item.get("trace") not in traces:
            return f"evidence {cited!r} or its trace is not in the closure"
        if traces[item["trace"]].get("materialization") not in materializations:
            return f"the materialization of trace {item['trace']!r} is not in the closure"
    if not {op.key for op in proposal.operations if op.action != "add"} <= keys:
        return "an instruction its operations cite is not in the closure"
    return None


def memory_fault(version: object, memory_digest: object, document: object) -> str | None:
    """Why a ``memories`` row is not one the ledger wrote, or None: the document (when kept) is the
    canonical JSON of a SPEC §1 memory whose version and digest are the row's."""
    if document is None:
        return None
    try:
        value = parse_json(document)  # type: ignore[arg-type]  # a BLOB: rows.py checked its type
    except InputError as e:
        return f"the memory is not JSON: {e.detail}"
    if canon(value) != document:
        return "the memory is not canonical JSON"
    try:
        check_memory(value)
    except InputError as e:
        return f"the memory is not a memory (SPEC §1): {e.detail}"
    if value["version"] != version:
        return f"the memory's version is {value['version']}, the row says {version}"
    if digest(value) != memory_digest:
        return "the memory's digest is not the row's"
    return None


def export_lines(
    memories: Mapping[str, Memory], entries: Iterable[PoolEntry], dropped: Iterable[Dropped]
) -> list[dict[str, Any]]:
    """``ledger export --pool``: one object per memory, pool entry and tombstone, in an order that
    depends on the content alone (memories by report; entries and tombstones by fingerprint, run,
    report), so two ledgers with the same pool give the same lines. ``runs_waited`` is left out:
    it counts this file's recordings, not content."""
    lines: list[dict[str, Any]] = []
    for report, memory in sorted(memories.items()):
        document = None if memory.document is None else parse_json(memory.document)
        lines.append(
            {"memory": {"report": report, "version": memory.version, "digest": memory.digest, "document": document}}
        )
    for e in sorted(entries, key=lambda e: (e.fingerprint, e.run, e.report)):
        lines.append(
            {"pool": {"fingerprint": e.fingerprint, "run": e.run, "report": e.report, "closure": dict(e.closure)}}
        )
    for d in sorted(dropped, key=lambda d: (d.fingerprint, d.run, d.report)):
        lines.append(
            {
                "dropped": {
                    "fingerprint": d.fingerprint,
                    "run": d.run,
                    "report": d.report,
                    "why": d.why,
                    "dropped_in": d.dropped_in,
                }
            }
        )
    return lines
