"""The ledger's side of the curator loop: record a run and say what the ledger knew of its
edits, and read the curator's notes from a ledger. Every host goes through these two: the
command line (``score --ledger``, ``ledger notes``), GEPA, DSPy, ACE's gate and agentdescent.
The notes themselves are composed in one place, :mod:`ranking.ledger.notes.composing`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from curator_io.catalogue import SELECTED
from curator_io.errors import TamperError
from ranking.checking.permitted import permitted_memory
from ranking.ledger.fate import Decisions, Facts, Kept
from ranking.ledger.notes.composing import curator_notes, standings
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget, Notes, Standing
from ranking.ledger.pool import WAIT_RUNS
from ranking.ledger.records import DecisionRow, Edit, decisions_of, recording_of_run
from ranking.ledger.store import Ledger

if TYPE_CHECKING:
    from ranking.pipeline import Result
    from ranking.signing.signers import Signer

__all__ = ["LedgerHistory", "Runs", "current_memory", "notes_of", "read_notes", "record_run"]

_SUPPORT_NUMBERS = ("lineages", "required", "strength", "contradiction")


class LedgerHistory(Decisions):
    """The :class:`~ranking.ledger.fate.Decisions` of an open ledger: its decisions and outcomes
    read once, an edit and a report's bytes only when a note needs them."""

    def __init__(self, ledger: Ledger, decisions: Sequence[DecisionRow] | None = None) -> None:
        super().__init__(
            ledger.decisions() if decisions is None else decisions,
            ledger.outcome_categories(),
            edit=self._edit_of,
            facts=self._facts_of,
            kept=self._kept_of,
        )
        self.ledger = ledger
        self._reports: dict[str, tuple[list[Any], Mapping[str, Any]]] = {}
        self._edits: dict[str, Mapping[str, Any] | None] = {}
        self._pool: tuple[dict[str, Kept], dict[str, str]] | None = None

    def _edit_of(self, fingerprint: str) -> Mapping[str, Any] | None:
        if fingerprint not in self._edits:
            self._edits[fingerprint] = self.ledger.edits_of([fingerprint]).get(fingerprint)
        return self._edits[fingerprint]

    def _kept_of(self, fingerprint: str) -> Kept | str | None:
        """The pool, read once and only when a retry note asks (``score --ledger`` never does)."""
        if self.ledger.version < 4:
            return None
        if self._pool is None:
            self._pool = (_kept(self.ledger), {d.fingerprint: d.why for d in self.ledger.pool_dropped()})
        carried, dropped = self._pool
        return carried.get(fingerprint) or dropped.get(fingerprint)

    def _facts_of(self, decision: DecisionRow) -> Facts:
        entries, config = self._report(decision.report)
        # Rows are checked against their reports by ``ledger verify``, not here: this reads by position.
        entry = entries[decision.position] if decision.position < len(entries) else None
        if type(entry) is not dict:
            raise self._damaged(decision.report, f"it has no entry {decision.position}")
        support = entry.get("support")
        if support is not None and not (
            type(support) is dict and all(type(support.get(n)) is int for n in _SUPPORT_NUMBERS)
        ):
            raise self._damaged(decision.report, f"{decision.proposal}'s support is not SPEC §3.7's")
        return Facts(support, config)

    def _report(self, digest: str) -> tuple[list[Any], Mapping[str, Any]]:
        """A stored report's entries and config, read once; checked for the shape a note reads."""
        if digest not in self._reports:
            try:
                report = orjson.loads(self.ledger.report_body(digest))
            except orjson.JSONDecodeError as e:
                raise self._damaged(digest, "its body is not JSON") from e
            entries = report.get("proposals") if type(report) is dict else None
            config = report.get("config") if type(report) is dict else None
            if type(entries) is not list or type(config) is not dict:
                raise self._damaged(digest, "its body is not an evidence-ranking-v1 report")
            self._reports[digest] = (entries, config)
        return self._reports[digest]

    def _damaged(self, digest: str, detail: str) -> TamperError:
        return TamperError("ledger.damaged", f"reports row {digest}: {detail}", source=self.ledger.path)


def _kept(ledger: Ledger) -> dict[str, Kept]:
    """The pool by fingerprint: the lineages its entries keep, and how long the oldest may still wait."""
    lineages: dict[str, set[str]] = {}
    waited: dict[str, int] = {}
    for entry in ledger.pool():
        lineages.setdefault(entry.fingerprint, set()).update(entry.lineages)
        waited[entry.fingerprint] = min(waited.get(entry.fingerprint, WAIT_RUNS), entry.runs_waited)
    return {f: Kept(len(found), max(0, WAIT_RUNS - waited[f])) for f, found in lineages.items()}


def read_notes(
    ledger: str | os.PathLike[str],
    *,
    lesson: str | None = None,
    memory_version: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
    memory: Mapping[str, Any] | None = None,
) -> Notes:
    """The curator's notes from the ledger file at ``ledger`` (opened read-only), the most recent
    first (:func:`ranking.ledger.notes.composing.curator_notes`, ``memory`` the current memory object);
    none when there is no file yet."""
    if not os.path.lexists(ledger):
        return Notes()
    with Ledger.open(ledger, read_only=True) as opened:
        return notes_of(opened, lesson=lesson, memory_version=memory_version, budget=budget, memory=memory)


def notes_of(
    ledger: Ledger,
    *,
    lesson: str | None = None,
    memory_version: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
    memory: Mapping[str, Any] | None = None,
    printed: Callable[[str], str] | None = None,
    prose: Iterable[tuple[int, str]] = (),
) -> Notes:
    """The curator's notes from an open ledger (:func:`read_notes`; ``printed`` and ``prose`` as
    :func:`~ranking.ledger.notes.composing.curator_notes` takes them). Without ``memory``, the notes are
    made against the memory the ledger knows to be current (:func:`current_memory`), if any."""
    if memory is None:
        memory = current_memory(ledger)
    history = LedgerHistory(ledger)
    return curator_notes(
        history,
        lesson=lesson,
        memory_version=memory_version,
        budget=budget,
        memory=memory,
        printed=printed,
        prose=prose,
    )


def current_memory(ledger: Ledger) -> Mapping[str, Any] | None:
    """The memory the ledger knows to be current: the one its latest recorded run was ranked
    against, with that run's selection applied (SPEC §8: what the Writer may have written since);
    None when no run kept its memory (schema 3, a memory over the bound, ``ledger add``), or when
    an edit it selected is not known to the ledger. ``ledger notes`` reads it when no ``--memory``
    is given (docs/ledger.md, "Notes against the current memory")."""
    found = ledger.latest_ranked_memory()
    if found is None:
        return None
    digest, memory = found
    report = orjson.loads(ledger.report_body(digest))
    by_id = {e["id"]: e["fingerprint"] for e in report["proposals"]}
    selected = [by_id[pid] for pid in report["selected"]]
    edits = ledger.edits_of(selected)
    if any(f not in edits for f in selected):
        return None
    held = {i["key"] for i in memory["instructions"]}
    if any(op["action"] == "replace" and op["key"] not in held for f in selected for op in edits[f]["operations"]):
        return None  # a memory row no run of these edits was ranked against (a ledger edited by hand)
    return permitted_memory(memory, [edits[f] for f in selected], selected=report["outcome"] == SELECTED)


def record_run(
    ledger: Ledger, result: Result, signer: Signer | None = None, *, bundle: bytes | Mapping[str, Any] | None = None
) -> dict[str, Standing]:
    """Record the report of a run of this process's pipeline, with the edits of its bundle (and who
    signed it, when checked); return what the ledger knew before of each of its edits, by
    fingerprint: the standing of every edit it had decided in another report and not admitted last.
    With ``bundle`` (the bytes or document it ranked), its memory and its pool too (docs/ledger.md)."""
    fingerprints = {e["fingerprint"] for e in result.report["proposals"] if e["fingerprint"] is not None}
    history = LedgerHistory(ledger, ledger.on_fingerprints(fingerprints))
    before = {s.fingerprint: s for s in standings(history, excluding=result.report["digest"]) if s.kind is not None}
    ledger.add_produced([recording_of_run(result, signer, bundle)])
    return before


class Runs(Decisions):
    """The :class:`~ranking.ledger.fate.Decisions` of reports held in memory (an ACE gate without a
    ledger; one report given to agentdescent's ``report_notes``), each added with the edits of its
    bundle."""

    def __init__(self) -> None:
        self._held: list[DecisionRow] = []
        self._reports_held: dict[str, Mapping[str, Any]] = {}
        self._edits_held: dict[str, Mapping[str, Any]] = {}
        super().__init__(self._held, edit=self._edits_held.get, facts=self._facts_of)

    def add(self, report: Mapping[str, Any], edits: Iterable[Edit] = ()) -> None:
        """Add a report (accepted, or produced by this process's pipeline) and the edits behind
        its fingerprints (:func:`ranking.ledger.records.edits_of`); adding one twice adds nothing."""
        if report["digest"] in self._reports_held:
            return
        self._reports_held[report["digest"]] = report
        self._held.extend(decisions_of(report))
        self._edits_held.update((f, orjson.loads(e)) for f, e in edits)

    def _facts_of(self, decision: DecisionRow) -> Facts:
        report = self._reports_held[decision.report]
        return Facts(report["proposals"][decision.position]["support"], report["config"])
