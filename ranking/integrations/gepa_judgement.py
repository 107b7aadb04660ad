"""What the GEPA criterion decides about each child of a parent, read off one ranking: pure, no gepa import.

:func:`judge_children` is the judging stage of :mod:`ranking.integrations.gepa`,
between the bundle (:mod:`ranking.integrations.gepa_bundle`) and GEPA's loop:

1. a child no bundle can hold (a text cut inside a character, a data id that
   is not JSON) is rejected as :data:`UNWRITABLE`, with what and where;
2. the other children are written as one bundle, the parent's memory and
   each child's edit citing its own minibatch, and ranked under the config;
3. the report is recorded (the criterion's ledger), which tells what became of each
   fingerprint before;
4. each child's :class:`Judgement` is read off its entry of the report.

A child alone is a bundle of one (what ``should_accept`` judges); several are
ranked against each other (SPEC §5: ``rank.duplicate``, ``rank.conflict``,
``rank.limit``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from curator_io import InputError
from curator_io.catalogue import REJECTED, REPORT_SCHEMA, SELECTED
from curator_io.config import Config
from ranking.integrations.gepa_bundle import Child, bundle_of_children, component_at, stances_of
from ranking.integrations.gepa_names import Unwritable, check_writable
from ranking.ledger.fate import DO_NOT_REPEAT
from ranking.ledger.notes.composing import standing_mark
from ranking.ledger.notes.model import Standing
from ranking.pipeline import Result, rank

__all__ = ["UNWRITABLE", "Judgement", "judge_children"]

UNWRITABLE = "gepa.unwritable"
"""The code of a proposal that cannot be written as a curator bundle (docs/gepa.md): it is
rejected without a report, and its judgement says what could not be written, and where."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the criterion decided about one GEPA proposal, and why."""

    iteration: int
    """GEPA's iteration (``state.i + 1``, as GEPA's log counts)."""
    proposal: str
    """The proposal's id in its bundle: ``p-`` and GEPA's ``metadata["proposal_id"]``
    (``p-3-0``); ``p-<iteration>-merge`` for a merged candidate."""
    parent: int
    """The parent's index in GEPA's pool: the bundle's ``memory.version``."""
    disposition: str
    """The final disposition (SPEC §6): ``selected`` exactly when the criterion accepts;
    ``rejected`` too for a proposal that cannot be written as a bundle (:data:`UNWRITABLE`)."""
    codes: tuple[str, ...]
    """The reason codes, each once, in report order; ``(UNWRITABLE,)`` without a report."""
    fingerprint: str | None
    """SPEC §3.6: the same edit of the same parent has the same fingerprint, however it is worded."""
    improved: int
    worse: int
    examples: int
    refused_before: int
    """In how many reports since it was last admitted the ledger had refused this fingerprint
    (:data:`~ranking.ledger.fate.REFUSED`; 0 without a ledger, and for an edit that waits)."""
    bundle: Mapping[str, Any] | None
    """The sealed curator-bundle-v1 document, one for the proposals of one parent ranked
    together; None when the proposal cannot be written as one."""
    report: Mapping[str, Any] | None
    """The sealed evidence-ranking-v1 report of that bundle; None when there is no bundle to rank."""
    unwritable: str | None = None
    """What could not be written, and why (``the child's component 'instruction': a lone
    surrogate (U+D83D) at character 14``); None for a ranked proposal."""
    superseded_by: str | None = None
    """The proposal of the same bundle this one was ``superseded`` by (SPEC §5.3), else None."""
    seen_before: str | None = None
    """What the ledger said of its edit before, as ``score`` marks it (``deferred 1× before:
    support.insufficient_lineages``; :func:`ranking.ledger.notes.composing.standing_mark`), else None."""

    @property
    def selected(self) -> bool:
        return self.disposition == SELECTED

    @property
    def reason(self) -> str:
        """``evidence-ranking-v1: p-3-0 deferred: support.insufficient_lineages (better on 1, ...)``,
        ``evidence-ranking-v1: p-3-1 superseded by p-3-0: rank.duplicate (...)``, or
        ``gepa.unwritable: p-3-0 rejected: <what could not be written>: <why>``."""
        if self.unwritable is not None:
            return f"{UNWRITABLE}: {self.proposal} {self.disposition}: {self.unwritable}"
        counts = f"better on {self.improved}, worse on {self.worse} of {self.examples} examples"
        before = f"; {self.seen_before}" if self.seen_before else ""
        by = f" by {self.superseded_by}" if self.superseded_by is not None else ""
        return f"{REPORT_SCHEMA}: {self.proposal} {self.disposition}{by}: {', '.join(self.codes)} ({counts}{before})"


def judge_children(
    parent: Mapping[str, str],
    children: Sequence[Child],
    *,
    version: int,
    iteration: int,
    config: Config,
    repository: str,
    record: Callable[[Result, Mapping[str, Any]], Mapping[str, Standing]],
) -> list[Judgement]:
    """Each child's judgement, in the order given (the module docstring has the steps).

    ``version`` is the parent's index in GEPA's pool, ``iteration`` GEPA's iteration;
    ``record`` records a ranking's report (with the bundle it ranked) and says what the ledger
    knew of each of its fingerprints from other reports (:func:`ranking.ledger.curator.record_run`).
    """
    # 1. What no bundle can hold.
    refused = {c.proposal: why for c in children if (why := _unwritable(parent, c)) is not None}
    written = [c for c in children if c.proposal not in refused]
    ranked: dict[str, Judgement] = {}
    if written:
        # 2. One bundle for the others, ranked.
        try:
            sealed = bundle_of_children(parent, written, version=version, repository=repository)
            result = rank(sealed.bundle, config)
        except (Unwritable, InputError) as e:
            refused.update(dict.fromkeys((c.proposal for c in written), _why(e, parent)))
        else:
            before = record(result, sealed.document)  # 3.
            entries = {entry["id"]: entry for entry in result.report["proposals"]}
            for child in written:  # 4.
                ranked[child.proposal] = _ranked(
                    iteration, version, child, entries[child.proposal], result, sealed.document, before
                )
    return [ranked.get(c.proposal) or _refused(iteration, version, c, refused[c.proposal]) for c in children]


def _unwritable(parent: Mapping[str, str], child: Child) -> str | None:
    """What of ``child`` no bundle can hold, or None."""
    try:
        check_writable(parent, child.candidate, child.minibatch.ids)
    except Unwritable as e:
        return str(e)
    return None


def _why(error: Unwritable | InputError, parent: Mapping[str, str]) -> str:
    """What could not be written of children each writable alone: two children's names that
    meet in one key, or the memory (bundle_of_children writes every other member as SPEC §1 says)."""
    if isinstance(error, Unwritable):
        return str(error)
    component = component_at(error.pointer or "", parent)
    place = "the parent" if component is None else f"the parent's component {component!r}"
    return f"{place}: {error}"


def _ranked(
    iteration: int,
    parent: int,
    child: Child,
    entry: Mapping[str, Any],
    result: Result,
    bundle: Mapping[str, Any],
    before: Mapping[str, Standing],
) -> Judgement:
    stances = stances_of(child.minibatch)
    standing = before.get(entry["fingerprint"])
    return Judgement(
        iteration=iteration,
        proposal=entry["id"],
        parent=parent,
        disposition=entry["disposition"],
        codes=tuple(dict.fromkeys(r["code"] for r in entry["reasons"])),
        fingerprint=entry["fingerprint"],
        improved=stances.count(1),
        worse=stances.count(-1),
        examples=len(stances),
        refused_before=standing.times if standing is not None and standing.kind == DO_NOT_REPEAT else 0,
        bundle=bundle,
        report=result.report,
        superseded_by=entry["superseded_by"],
        seen_before=standing_mark(standing) if standing is not None else None,
    )


def _refused(iteration: int, parent: int, child: Child, unwritable: str) -> Judgement:
    stances = stances_of(child.minibatch)
    return Judgement(
        iteration=iteration,
        proposal=child.proposal,
        parent=parent,
        disposition=REJECTED,
        codes=(UNWRITABLE,),
        fingerprint=None,
        improved=stances.count(1),
        worse=stances.count(-1),
        examples=len(stances),
        refused_before=0,
        bundle=None,
        report=None,
        unwritable=unwritable,
    )
