"""Gate GEPA's candidates on evidence: an acceptance criterion and a decision ledger for ``gepa.optimize``.

GEPA (PyPI ``gepa``, 0.1.x) accepts a child candidate by default when its
minibatch score sum beats its parent's, so one lucky example carries it.
:class:`EvidenceRankingCriterion` is an acceptance criterion
(``gepa.optimize(..., acceptance_criterion=...)``) that instead writes each
proposal as a curator bundle (:mod:`ranking.integrations.gepa_bundle`) and
ranks it under a pinned config: it accepts exactly the proposals the ranking
*selects* (SPEC §5.4). A refusal's reason names the disposition and the
reason codes (SPEC §6). A proposal holding what no bundle can (a child's text
cut inside a character, a data id that is not JSON) is rejected as
:data:`UNWRITABLE`, its reason naming what and where: what the model or the
task gives never raises into GEPA's loop.

With ``ledger=``, every judged proposal's report goes into the admission
ledger (docs/ledger.md). Given as a callback too (``callbacks=[criterion]``),
it also records what GEPA did after accepting: added the child to its pool
(``committed``) or not (``dropped-by-selection``). :func:`with_rejected_notes`
hands the ledger's "do not re-propose" lines to the reflection LM.

Needs the optional extra: ``pip install 'evidence-rank[gepa]'``. docs/gepa.md
says which SPEC rule each GEPA fact feeds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    from gepa.core.callbacks import IterationEndEvent
    from gepa.core.state import GEPAState
    from gepa.proposer.base import CandidateProposal
    from gepa.proposer.reflective_mutation.base import LanguageModel
except ImportError as e:
    raise ImportError("ranking.integrations.gepa needs gepa 0.1.x: pip install 'evidence-rank[gepa]'") from e

from curator_io import InputError, bundle_from_document
from curator_io.catalogue import REJECTED, REPORT_SCHEMA, SELECTED
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.grammar import is_id, is_repo
from ranking.integrations.gepa_bundle import Minibatch, bundle_of, component_at, stances_of
from ranking.integrations.gepa_names import Unwritable
from ranking.ledger import rejected_notes
from ranking.ledger.notes import refusals
from ranking.ledger.records import Outcome, recording_of_run
from ranking.ledger.store import Ledger
from ranking.pipeline import Result, rank

__all__ = ["EvidenceRankingCriterion", "Judgement", "UNWRITABLE", "with_rejected_notes"]

COMMITTED, DROPPED = "committed", "dropped-by-selection"
"""The outcome categories: GEPA added the accepted child to its pool, or did not."""

UNWRITABLE = "gepa.unwritable"
"""The code of a proposal that cannot be written as a curator bundle (docs/gepa.md): it is
rejected without a report, and its judgement says what could not be written, and where."""

_NOTES_HEADER = "The evidence gate refused these edits before. Do not propose them again as they are:"


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the criterion decided about one GEPA proposal, and why."""

    iteration: int
    """GEPA's iteration (``state.i + 1``, as GEPA's log counts)."""
    proposal: str
    """The proposal's id in its bundle: ``p-`` and GEPA's ``metadata["proposal_id"]``."""
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
    """How often the ledger had refused this fingerprint before (0 without a ledger)."""
    bundle: Mapping[str, Any] | None
    """The sealed curator-bundle-v1 document; None when the proposal cannot be written as one."""
    report: Mapping[str, Any] | None
    """The sealed evidence-ranking-v1 report; None when there is no bundle to rank."""
    unwritable: str | None = None
    """What could not be written, and why (``the child's component 'instruction': a lone
    surrogate (U+D83D) at character 14``); None for a ranked proposal."""

    @property
    def selected(self) -> bool:
        return self.disposition == SELECTED

    @property
    def reason(self) -> str:
        """``evidence-ranking-v1: p-3-0 deferred: support.insufficient_lineages (better on 1, ...)``,
        or ``gepa.unwritable: p-3-0 rejected: <what could not be written>: <why>``."""
        if self.unwritable is not None:
            return f"{UNWRITABLE}: {self.proposal} {self.disposition}: {self.unwritable}"
        counts = f"better on {self.improved}, worse on {self.worse} of {self.examples} examples"
        before = f"; refused {self.refused_before}× before" if self.refused_before else ""
        return f"{REPORT_SCHEMA}: {self.proposal} {self.disposition}: {', '.join(self.codes)} ({counts}{before})"


class EvidenceRankingCriterion:
    """A GEPA ``AcceptanceCriterion`` that accepts exactly the proposals evidence ranking selects.

    ``config`` is the pinned ranking config: a ``curator_io.Config`` or a config
    object as in a config file; ``None`` means the SPEC §2 defaults. ``ledger``
    is a ledger file (docs/ledger.md) that records every judged proposal.
    ``repository`` is the scope every instruction has (SPEC §1 REPO); name
    your task, so that two tasks' edits never share a fingerprint.

    Pass it as ``callbacks=[criterion]`` as well to record, in :attr:`outcomes`
    and the ledger, whether GEPA added each accepted child to its pool.
    """

    def __init__(
        self,
        config: Config | Mapping[str, Any] | None = None,
        ledger: str | os.PathLike[str] | None = None,
        *,
        repository: str = "gepa",
    ) -> None:
        self.config: Config = (
            DEFAULT_CONFIG if config is None else config if isinstance(config, Config) else parse_config(dict(config))
        )
        if not is_repo(repository):
            # Refused here, not at each proposal inside the optimizer's loop.
            raise ValueError(f"repository must be 1-200 bytes without control characters: {repository!r}")
        self.ledger = ledger
        self.repository = repository
        self.judgements: list[Judgement] = []
        """Every judgement of the run, in the order GEPA asked."""
        self.outcomes: list[Outcome] = []
        """What GEPA did with each accepted child, when given as a callback."""
        # This iteration's proposals by identity, with the pool size they were judged at. The proposal
        # is held so that its id() is not reused; GEPA asks about each one once per iteration.
        self._current: dict[int, tuple[CandidateProposal[Any], Judgement, int]] = {}
        self._iteration: int | None = None

    def should_accept(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> bool:
        """True exactly when ranking the proposal's bundle selected it (SPEC §5.4)."""
        return self._judged(proposal, state).selected

    def reject_reason(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> str:
        """The disposition and the reason codes, for GEPA's log and ``on_candidate_rejected``."""
        return self._judged(proposal, state).reason

    def judge(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> Judgement:
        """Build the proposal's bundle, rank it, and record the report in the ledger (when given).

        What the model or the task gave that cannot be written as a bundle (a text with a lone
        surrogate, a data id that is not JSON, a parent component that cannot be an instruction)
        is a rejection (:data:`UNWRITABLE`), never an exception in GEPA's loop. A proposal
        without a parent or a minibatch raises ValueError: its proposer is wrong, not its data.
        """
        parent_id = _parent_of(proposal)
        parent, child, minibatch = state.program_candidates[parent_id], proposal.candidate, _minibatch_of(proposal)
        pid = _proposal_id(proposal, state)
        stances = stances_of(minibatch)
        try:
            document = bundle_of(parent, child, minibatch, version=parent_id, proposal=pid, repository=self.repository)
            bundle = bundle_from_document(document)
        except Unwritable as e:
            what = str(e)
        except InputError as e:
            # Only the memory can be refused: bundle_of writes every other member as SPEC §1 says.
            component = component_at(e.pointer or "", parent)
            place = "the parent" if component is None else f"the parent's component {component!r}"
            what = f"{place}: {e}"
        else:
            result = rank(bundle, self.config)
            (entry,) = result.report["proposals"]
            return Judgement(
                iteration=state.i + 1,
                proposal=entry["id"],
                parent=parent_id,
                disposition=entry["disposition"],
                codes=tuple(dict.fromkeys(r["code"] for r in entry["reasons"])),
                fingerprint=entry["fingerprint"],
                improved=stances.count(1),
                worse=stances.count(-1),
                examples=len(stances),
                refused_before=self._record(result, entry["fingerprint"]),
                bundle=document,
                report=result.report,
            )
        return Judgement(
            iteration=state.i + 1,
            proposal=pid,
            parent=parent_id,
            disposition=REJECTED,
            codes=(UNWRITABLE,),
            fingerprint=None,
            improved=stances.count(1),
            worse=stances.count(-1),
            examples=len(stances),
            refused_before=0,
            bundle=None,
            report=None,
            unwritable=what,
        )

    def on_iteration_end(self, event: IterationEndEvent) -> None:
        """GEPA's callback: which accepted children entered the pool this iteration.

        An accepted child not in the pool afterwards was dropped by the
        selection strategy (``BestImprovement``, ``TopKImprovements``), or was
        a duplicate of another child added in the same iteration.
        """
        state = event["state"]
        if self._iteration != state.i:
            return
        added = [dict(c) for c in state.program_candidates[self._pool_size() :]]
        for proposal, judgement, _ in self._current.values():
            if not judgement.selected:
                continue
            child = dict(proposal.candidate)
            entered = child in added
            if entered:
                added.remove(child)
            self._settle(judgement, COMMITTED if entered else DROPPED)
        self._current.clear()

    def _judged(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> Judgement:
        if self._iteration != state.i:
            self._current.clear()  # the last iteration's, never settled: not given as a callback
            self._iteration = state.i
        held = self._current.get(id(proposal))
        if held is not None and held[0] is proposal:
            return held[1]
        judgement = self.judge(proposal, state)
        self.judgements.append(judgement)
        self._current[id(proposal)] = (proposal, judgement, len(state.program_candidates))
        return judgement

    def _pool_size(self) -> int:
        return min((size for _, _, size in self._current.values()), default=0)

    def _record(self, result: Result, fingerprint: str | None) -> int:
        """Record the report; how often the ledger had refused this fingerprint in other reports."""
        if self.ledger is None:
            return 0
        with Ledger.open(self.ledger) as ledger:
            earlier = ledger.on_fingerprints([fingerprint]) if fingerprint is not None else []
            found = refusals(earlier, excluding=result.report["digest"])
            ledger.add_produced([recording_of_run(result)])  # with the edit, for the next prompt's notes
        return found[0].times if found else 0

    def _settle(self, judgement: Judgement, category: str) -> None:
        # No p_improve, and no observed delta: the ledger's is a change of a rate in [-1, 1]
        # (docs/ledger.md), and GEPA's scores have no fixed range.
        assert judgement.report is not None  # Cannot fail: only a ranked proposal is selected.
        outcome = Outcome(
            report=judgement.report["digest"],
            proposal=judgement.proposal,
            fingerprint=judgement.fingerprint,
            diff=judgement.proposal,
            version=judgement.parent,
            category=category,
            p_improve=None,
            observed_delta=None,
        )
        self.outcomes.append(outcome)
        if self.ledger is not None:
            with Ledger.open(self.ledger) as ledger:
                ledger.add_outcome(outcome)


def with_rejected_notes(
    reflection_lm: LanguageModel, ledger: str | os.PathLike[str], *, limit: int | None = 20
) -> LanguageModel:
    """``reflection_lm`` with the ledger's "do not re-propose" lines added to every prompt.

    The lines are :func:`ranking.ledger.rejected_notes` (one per refused
    fingerprint, the most recently refused first, at most ``limit``), read at
    each call, so a refusal recorded by the criterion reaches the next
    reflection. A prompt of chat messages gets them at the end of its last
    user message. No ledger file yet, or no refusal in it: the prompt is unchanged.
    """
    return _NotedLM(reflection_lm, ledger, limit)


class _NotedLM:
    def __init__(self, lm: LanguageModel, ledger: str | os.PathLike[str], limit: int | None) -> None:
        self.lm = lm
        self.ledger = ledger
        self.limit = limit

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        notes = rejected_notes(self.ledger, limit=self.limit) if Path(self.ledger).is_file() else ()
        return self.lm(_noted(prompt, notes))


def _noted(prompt: str | list[dict[str, Any]], notes: Sequence[str]) -> str | list[dict[str, Any]]:
    if not notes:
        return prompt
    block = "\n\n" + "\n".join([_NOTES_HEADER, *notes])
    if isinstance(prompt, str):
        return prompt + block
    messages = [dict(m) for m in prompt]
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            message["content"] += block
            return messages
    return [*messages, {"role": "user", "content": block.lstrip()}]


def _parent_of(proposal: CandidateProposal[Any]) -> int:
    """The parent whose candidate is the memory: the first (a reflective mutation has one)."""
    if not proposal.parent_program_ids:
        raise ValueError("a GEPA proposal without a parent: there is no memory to edit")
    return proposal.parent_program_ids[0]


def _minibatch_of(proposal: CandidateProposal[Any]) -> Minibatch:
    ids, before, after = proposal.subsample_indices, proposal.eval_before, proposal.eval_after
    if ids is None:
        raise ValueError("a GEPA proposal without its minibatch (subsample_indices)")
    if before is not None and after is not None:
        return Minibatch(ids, before.scores, after.scores, before.trajectories, after.trajectories)
    if proposal.subsample_scores_before is None or proposal.subsample_scores_after is None:
        raise ValueError("a GEPA proposal without its minibatch scores")
    return Minibatch(ids, proposal.subsample_scores_before, proposal.subsample_scores_after)


def _proposal_id(proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> str:
    """``p-`` and GEPA's ``<iteration>-<task>`` proposal id; ``p-<iteration>`` without one."""
    given = proposal.metadata.get("proposal_id")
    named = f"p-{given}" if isinstance(given, str) else ""
    return named if is_id(named) else f"p-{state.i + 1}"
