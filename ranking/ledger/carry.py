"""Carrying the pool into the next bundle (docs/ledger.md, "Carry"): the one way, for the library
(:meth:`curator_io.BundleBuilder.carry`) and the CLI (``ledger carry``) alike. Pure: a bundle's
document and the pool's entries in, the document with them out, and what became of each edit.

Steps, for each pooled edit (fingerprint) in ordinal order, its entries oldest run first:

1. **Re-based or left out.** Each instruction its ``replace`` or ``remove`` cites must be in the new
   memory under the same key with the same digest (so its ``expected_digest`` still holds); an
   ``add``'s key must be in neither the new memory nor its ``instructions``. Else the edit is left out,
   and said why.
2. **Its artifacts filed.** The materializations, traces, evidence (and, for a proposal filed on its
   own, its lesson) of every entry, references first. An artifact whose id the bundle holds with the
   same content is shared; one with the same id and other content is filed as ``ID.HEX``: the id cut
   to 115 characters, a dot, and the first 12 hex digits of the digest of its content as filed (its
   references renamed, its ``digest`` member left out): SPEC §0's ID grammar holds. Every reference
   to it is renamed alike; more digits (16, 24, 32, 64) only if that id is taken too.
3. **Joined or filed.** Where the bundle proposes the same edit (the same fingerprint), the carried
   ``support`` and ``contradict`` join that proposal's (each id once, after its own) and the carried
   support joins its lesson's ``evidence``: one proposal holds every run's lineages. Otherwise the
   oldest entry's proposal is filed, with ``base_memory_version`` the new ``memory.version``, and the
   later entries join it.

What carry adds or changes is sealed here (SPEC §0); the rest of the bundle is left as it is, so an
artifact the curator left unsealed stays so. The caller freezes the result (``frozen.digest``).
The same document and pool give the same bytes, whatever the order of the pool's rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from curator_io.bundle import load_bundle
from curator_io.canonical import canon, digest, seal
from ranking.ledger.pool import PoolEntry
from validator.proposal import Proposal, check_structure

__all__ = ["CARRIED", "JOINED", "LEFT_OUT", "Carried", "Pool", "carried_bundle", "carry_into", "carried_id"]

CARRIED = "carried"
"""Filed as a proposal of its own."""
JOINED = "joined"
"""Its evidence joined the bundle's proposal of the same edit."""
LEFT_OUT = "left-out"
"""Not carried: the memory it was written against changed (``why`` says how)."""

_ID_MOST = 128  # SPEC §0: an ID is at most 128 characters
_KINDS = (("materializations", "id"), ("traces", "id"), ("evidence", "id"), ("lessons", "id"))


class Carried(NamedTuple):
    """What became of one pooled edit."""

    fingerprint: str
    outcome: str
    """:data:`CARRIED`, :data:`JOINED` or :data:`LEFT_OUT`."""
    proposal: str | None
    """The proposal that holds it in the new bundle; None when left out."""
    runs: tuple[str, ...]
    """The runs whose evidence it carries (or would have), oldest first."""
    why: str | None
    """Why it was left out; None otherwise."""

    def sentence(self) -> str:
        """One line for a person: what became of the edit."""
        runs = ", ".join(self.runs)
        if self.outcome == LEFT_OUT:
            return f"left out {self.fingerprint} (from {runs}): {self.why}"
        verb = "joined" if self.outcome == JOINED else "carried as"
        return f"{verb} {self.proposal}: {self.fingerprint}, with the evidence of {runs}"


def carried_id(given: str, content: Mapping[str, Any], digits: int = 12) -> str:
    """The id an artifact is filed under when ``given`` is taken by another (step 2)."""
    return f"{given[: _ID_MOST - 1 - digits]}.{digest(content)[7 : 7 + digits]}"


def carry_into(document: Mapping[str, Any], entries: Iterable[PoolEntry]) -> tuple[dict[str, Any], tuple[Carried, ...]]:
    """``document`` (a bundle's, ``frozen`` left out of the answer) with the pool's ``entries`` carried
    into it (the module docstring's steps), and what became of each edit, by fingerprint."""
    bundle = _Filing(document)
    groups: dict[str, list[PoolEntry]] = {}
    for entry in sorted(entries, key=lambda e: (e.fingerprint, e.run, e.report)):
        groups.setdefault(entry.fingerprint, []).append(entry)
    said = tuple(bundle.carry(fingerprint, group) for fingerprint, group in groups.items())
    return bundle.document(), said


class Pool(NamedTuple):
    """The pool's entries as a ledger held them (:meth:`ranking.ledger.Ledger.carrier`): what
    :meth:`curator_io.BundleBuilder.carry` takes, to carry them when it builds."""

    entries: tuple[PoolEntry, ...]

    def carry_into(self, document: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[Carried, ...]]:
        return carry_into(document, self.entries)


def carried_bundle(document: Mapping[str, Any], entries: Iterable[PoolEntry]) -> tuple[bytes, tuple[Carried, ...]]:
    """``ledger carry``: a loaded bundle's document with the pool carried into it, frozen again
    (``frozen.digest``; its other members kept) as canonical bytes that load
    (:func:`curator_io.load_bundle`, whose input error is raised as it is), and what became of
    each edit."""
    body, said = carry_into(document, entries)
    frozen = document.get("frozen")
    kept = {name: value for name, value in frozen.items() if name != "digest"} if isinstance(frozen, dict) else {}
    canonical = canon({**body, "frozen": {**kept, "digest": digest(body)}})
    load_bundle(canonical)
    return canonical, said


class _Filing:
    """The new bundle, as carry changes it."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self._document = {name: value for name, value in document.items() if name != "frozen"}
        self._lists: dict[str, list[dict[str, Any]]] = {
            name: list(document.get(name) or []) for name, _ in (*_KINDS, ("proposals", "id"))
        }
        memory = document["memory"]
        self._version = memory["version"]
        self._memory = {i.get("key"): _content_digest(i) for i in memory.get("instructions", [])}
        self._keys = set(self._memory) | {i.get("key") for i in document.get("instructions", [])}
        self._by_id: dict[str, dict[Any, int]] = {
            name: {a.get("id"): at for at, a in enumerate(self._lists[name]) if isinstance(a, dict)}
            for name in self._lists
        }
        self._fingerprints: dict[str, int] = {}
        for at, raw in enumerate(self._lists["proposals"]):
            checked = check_structure(raw, at)
            if isinstance(checked, Proposal):
                self._fingerprints.setdefault(checked.fingerprint, at)

    def document(self) -> dict[str, Any]:
        return {**self._document, **self._lists}

    # --- step 1 ------------------------------------------------------------------------------

    def carry(self, fingerprint: str, group: Sequence[PoolEntry]) -> Carried:
        runs = tuple(e.run for e in group)
        why = self._changed(group[0].closure)
        if why is not None:
            return Carried(fingerprint, LEFT_OUT, None, runs, why)
        at = self._fingerprints.get(fingerprint)
        outcome = JOINED
        if at is None:
            at = self._file_proposal(group[0].closure)
            self._fingerprints[fingerprint] = at
            group, outcome = group[1:], CARRIED
        for entry in group:
            self._join(at, entry.closure)
        return Carried(fingerprint, outcome, self._lists["proposals"][at]["id"], runs, None)

    def _changed(self, closure: Mapping[str, Any]) -> str | None:
        cited = {i["key"]: i["digest"] for i in closure["instructions"]}
        for op in closure["proposal"]["operations"]:
            key = op["key"]
            if op["action"] == "add":
                if key in self._keys:
                    return f"its add of {key!r}: the new bundle holds an instruction {key!r}"
            elif key not in self._memory:
                return f"instruction {key!r}, which it edits, is not in the new memory"
            elif self._memory[key] != cited.get(key, op["expected_digest"]):
                return f"instruction {key!r}, which it edits, changed in the new memory"
        return None

    # --- step 2 ------------------------------------------------------------------------------

    def _file_artifacts(self, closure: Mapping[str, Any], cited: set[str] | None) -> dict[str, str]:
        """File the closure's materializations, traces and evidence (only ``cited`` evidence and
        what it needs, when given); the id each is filed under, by its id in the closure."""
        materializations = {m["id"]: m for m in closure["materializations"]}
        traces = {t["id"]: t for t in closure["traces"]}
        evidence = [e for e in closure["evidence"] if cited is None or e["id"] in cited]
        needed = sorted({e["trace"] for e in evidence})
        filed_m = {
            m: self._file("materializations", materializations[m], {})
            for m in sorted({traces[t]["materialization"] for t in needed})
        }
        filed_t = {
            t: self._file("traces", traces[t], {"materialization": filed_m[traces[t]["materialization"]]})
            for t in needed
        }
        return {e["id"]: self._file("evidence", e, {"trace": filed_t[e["trace"]]}) for e in evidence}

    def _file(self, kind: str, artifact: Mapping[str, Any], refs: Mapping[str, Any]) -> str:
        """File ``artifact`` (its references ``refs`` renamed); the id it is filed under."""
        content = {name: value for name, value in artifact.items() if name != "digest"}
        content.update(refs)
        given: str = content["id"]
        wanted = given
        for digits in (12, 16, 24, 32, 64):
            at = self._by_id[kind].get(wanted)
            if at is None:
                self._by_id[kind][wanted] = len(self._lists[kind])
                self._lists[kind].append(seal({**content, "id": wanted}))
                return wanted
            if _content_digest(self._lists[kind][at]) == digest({**content, "id": wanted}):
                return wanted  # the same artifact: shared
            wanted = carried_id(given, content, digits)
        raise ValueError(f"{kind} {given!r}: every id carry would give it is taken")  # pragma: no cover

    # --- step 3 ------------------------------------------------------------------------------

    def _file_proposal(self, closure: Mapping[str, Any]) -> int:
        """File the closure's proposal, with its lesson and evidence; its index among the proposals."""
        evidence = self._file_artifacts(closure, None)
        lesson = closure["lesson"]
        own = {"evidence": [evidence.get(e, e) for e in lesson["evidence"]]}
        lesson_id = self._file("lessons", lesson, own)
        proposal = dict(closure["proposal"])
        proposal["lesson"] = lesson_id
        proposal["base_memory_version"] = self._version
        proposal["support"] = [evidence[e] for e in proposal["support"]]
        proposal["contradict"] = [evidence[e] for e in proposal["contradict"]]
        wanted = proposal["id"]
        for digits in (12, 16, 24, 32, 64):
            if wanted not in self._by_id["proposals"]:
                break
            wanted = carried_id(closure["proposal"]["id"], proposal, digits)
        proposal["id"] = wanted
        self._by_id["proposals"][wanted] = len(self._lists["proposals"])
        self._lists["proposals"].append(proposal)
        return self._by_id["proposals"][wanted]

    def _join(self, at: int, closure: Mapping[str, Any]) -> None:
        """The closure's cited evidence joins proposal ``at`` and its lesson."""
        pooled = closure["proposal"]
        evidence = self._file_artifacts(closure, {*pooled["support"], *pooled["contradict"]})
        proposal = dict(self._lists["proposals"][at])
        support = _joined(proposal.get("support"), [evidence[e] for e in pooled["support"]])
        contradict = _joined(proposal.get("contradict"), [evidence[e] for e in pooled["contradict"]])
        proposal["support"] = support
        proposal["contradict"] = [e for e in contradict if e not in support]  # SPEC §3.2: one stance per id
        self._lists["proposals"][at] = proposal
        where = self._by_id["lessons"].get(proposal.get("lesson"))
        if where is None:
            return  # its lesson is not in the bundle: validation rejects it (closure.unknown_lesson)
        lesson = self._lists["lessons"][where]
        joined = _joined(lesson.get("evidence"), [evidence[e] for e in pooled["support"]])
        self._lists["lessons"][where] = seal({**lesson, "evidence": joined})


def _joined(own: Any, more: Sequence[str]) -> list[Any]:
    """``own`` (a list of ids), then each of ``more`` it lacks."""
    found = list(own) if isinstance(own, list) else []
    return found + [e for e in dict.fromkeys(more) if e not in found]


def _content_digest(artifact: Mapping[str, Any]) -> str:
    """The digest an artifact is sealed with: of its members but ``digest`` (SPEC §0)."""
    return digest({name: value for name, value in artifact.items() if name != "digest"})
