"""The ledger's side of the curator loop: record a run and say what the ledger knew of its
edits, and read the curator's notes from a ledger. Every host goes through these two: the
command line (``score --ledger``, ``ledger notes``), GEPA, DSPy, ACE's gate and agentdescent.
The notes themselves are composed in one place, :mod:`ranking.ledger.feedback`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from curator_io.errors import TamperError
from ranking.ledger.feedback import curator_notes, standings
from ranking.ledger.note_model import DEFAULT_BUDGET, Budget, Facts, Note, Standing
from ranking.ledger.records import DecisionRow, Edit, decisions_of, recording_of_run
from ranking.ledger.store import Ledger

if TYPE_CHECKING:
    from ranking.pipeline import Result
    from ranking.signing.signers import Signer

__all__ = ["LedgerHistory", "Runs", "notes_of", "read_notes", "record_run"]

_SUPPORT_NUMBERS = ("lineages", "required", "strength", "contradiction")


class LedgerHistory:
    """A :class:`ranking.ledger.note_model.History` read from an open ledger: its decisions once,
    and a report's bytes only when a note needs its support or config."""

    def __init__(self, ledger: Ledger, decisions: Sequence[DecisionRow] | None = None) -> None:
        self.ledger = ledger
        self._decisions = ledger.decisions() if decisions is None else decisions
        self._uncommitted = ledger.uncommitted_selections()
        self._reports: dict[str, tuple[list[Any], Mapping[str, Any]]] = {}
        self._edits: dict[str, Mapping[str, Any] | None] = {}

    def decisions(self) -> Sequence[DecisionRow]:
        return self._decisions

    def refused_by_test(self, report: str, fingerprint: str) -> bool:
        return (report, fingerprint) in self._uncommitted

    def edit(self, fingerprint: str) -> Mapping[str, Any] | None:
        if fingerprint not in self._edits:
            self._edits[fingerprint] = self.ledger.edits_of([fingerprint]).get(fingerprint)
        return self._edits[fingerprint]

    def facts(self, decision: DecisionRow) -> Facts:
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


def read_notes(
    ledger: str | os.PathLike[str],
    *,
    lesson: str | None = None,
    memory_version: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
    memory: Mapping[str, Any] | None = None,
) -> tuple[Note, ...]:
    """The curator's notes from the ledger file at ``ledger`` (opened read-only), the most recent
    first (:func:`ranking.ledger.feedback.curator_notes`, ``memory`` the current memory object);
    none when there is no file yet."""
    if not os.path.lexists(ledger):
        return ()
    with Ledger.open(ledger, read_only=True) as opened:
        return notes_of(opened, lesson=lesson, memory_version=memory_version, budget=budget, memory=memory)


def notes_of(
    ledger: Ledger,
    *,
    lesson: str | None = None,
    memory_version: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
    memory: Mapping[str, Any] | None = None,
) -> tuple[Note, ...]:
    """The curator's notes from an open ledger (:func:`read_notes`)."""
    history = LedgerHistory(ledger)
    return curator_notes(history, lesson=lesson, memory_version=memory_version, budget=budget, memory=memory)


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


class Runs:
    """A :class:`History` of reports held in memory (an ACE gate without a ledger; one report
    given to agentdescent's ``report_notes``), each added with the edits of its bundle."""

    def __init__(self) -> None:
        self._decisions: list[DecisionRow] = []
        self._reports: dict[str, Mapping[str, Any]] = {}
        self._edits: dict[str, Mapping[str, Any]] = {}
        self._refused: set[tuple[str, str]] = set()
        self._committed: set[tuple[str, str]] = set()

    def add(self, report: Mapping[str, Any], edits: Iterable[Edit] = ()) -> None:
        """Add a report (accepted, or produced by this process's pipeline) and the edits behind
        its fingerprints (:func:`ranking.ledger.records.edits_of`); adding one twice adds nothing."""
        if report["digest"] in self._reports:
            return
        self._reports[report["digest"]] = report
        self._decisions.extend(decisions_of(report))
        self._edits.update((f, orjson.loads(e)) for f, e in edits)

    def add_outcome(self, report: str, fingerprint: str, committed: bool) -> None:
        """What an acceptance test did with a selected edit's diff."""
        (self._committed if committed else self._refused).add((report, fingerprint))

    def decisions(self) -> Sequence[DecisionRow]:
        return self._decisions

    def refused_by_test(self, report: str, fingerprint: str) -> bool:
        key = (report, fingerprint)
        return key in self._refused and key not in self._committed

    def edit(self, fingerprint: str) -> Mapping[str, Any] | None:
        return self._edits.get(fingerprint)

    def facts(self, decision: DecisionRow) -> Facts:
        report = self._reports[decision.report]
        return Facts(report["proposals"][decision.position]["support"], report["config"])
