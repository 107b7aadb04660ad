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

:class:`EvidenceRankingSelection` is a selection strategy
(``selection_strategy=...``) with which the criterion ranks an iteration's
proposals of one parent as one bundle, so SPEC §5's dedup, conflict removal
and top-k act across them.

With ``ledger=``, every judged proposal's report goes into the admission
ledger (docs/ledger.md), which stays open for the run. Given as a callback too
(``callbacks=[criterion]``), it also records what GEPA did after accepting:
added the child to its pool (``committed``) or not (``dropped-by-selection``),
and judges each merged candidate GEPA added without asking any criterion.
:func:`with_notes` hands the ledger's notes for the curator
(:mod:`ranking.ledger.notes.composing`, the policy every host shares) to the reflection LM.

Needs the optional extra: ``pip install 'evidence-rank[gepa]'``. docs/gepa.md
says which SPEC rule each GEPA fact feeds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

try:
    from gepa.core.callbacks import IterationEndEvent, MergeAcceptedEvent, OptimizationEndEvent
    from gepa.core.state import GEPAState
    from gepa.proposer.base import CandidateProposal
    from gepa.proposer.reflective_mutation.base import LanguageModel
    from gepa.strategies.acceptance import AcceptanceCriterion
except ImportError as e:
    raise ImportError("ranking.integrations.gepa needs gepa 0.1.x: pip install 'evidence-rank[gepa]'") from e

from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.grammar import is_id, is_repo
from ranking.integrations.gepa_bundle import Child, Minibatch
from ranking.integrations.gepa_judgement import UNWRITABLE, Judgement, judge_children
from ranking.ledger.curator import read_notes, record_run
from ranking.ledger.fate import COMMITTED
from ranking.ledger.notes.composing import prompt_block
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget, Standing
from ranking.ledger.records import Outcome
from ranking.ledger.store import Ledger
from ranking.pipeline import Result

__all__ = [
    "EvidenceRankingCriterion",
    "EvidenceRankingSelection",
    "Judgement",
    "UNWRITABLE",
    "with_notes",
    "notes_block",
]

DROPPED = "dropped-by-selection"
"""The outcome category of an accepted child GEPA did not add to its pool (one it added is
:data:`~ranking.ledger.fate.COMMITTED`)."""


class EvidenceRankingCriterion:
    """A GEPA ``AcceptanceCriterion`` that accepts exactly the proposals evidence ranking selects.

    ``config`` is the pinned ranking config: a ``curator_io.Config`` or a config
    object as in a config file; ``None`` means the SPEC §2 defaults. ``ledger``
    is a ledger file (docs/ledger.md) that records every judged proposal: opened
    at the first record and kept open until the run ends (given as a callback)
    or :meth:`close` closes it (so does the end of a ``with`` block).
    ``repository`` is the scope every instruction has (SPEC §1 REPO); name
    your task, so that two tasks' edits never share a fingerprint.

    Pass it as ``callbacks=[criterion]`` as well to record, in :attr:`outcomes`
    and the ledger, whether GEPA added each accepted child to its pool, and to
    judge each merged candidate GEPA added without asking (:attr:`merges`).
    :class:`EvidenceRankingSelection` makes it judge an iteration's proposals of
    one parent together.
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
        """What GEPA did with each accepted child (and merged candidate), when given as a callback."""
        self.merges: list[Judgement] = []
        """The judgement of each merged candidate GEPA added to its pool, when given as a callback:
        what the gate would have decided, for GEPA asks no criterion about a merge."""
        # This iteration's proposals by identity, with the pool size they were judged at. The proposal
        # is held so that its id() is not reused; GEPA asks about each one once per iteration.
        self._current: dict[int, tuple[CandidateProposal[Any], Judgement, int]] = {}
        self._iteration: int | None = None
        self._merged: list[tuple[int, int]] = []  # (merged candidate, its first parent), this iteration
        self._opened: Ledger | None = None

    def should_accept(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> bool:
        """True exactly when ranking the proposal's bundle selected it (SPEC §5.4)."""
        return self._judged([proposal], state)[0].selected

    def reject_reason(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> str:
        """The disposition and the reason codes, for GEPA's log and ``on_candidate_rejected``."""
        return self._judged([proposal], state)[0].reason

    def judge(self, proposal: CandidateProposal[Any], state: GEPAState[Any, Any]) -> Judgement:
        """Build the proposal's bundle, rank it, and record the report in the ledger (when given).

        What the model or the task gave that cannot be written as a bundle (a text with a lone
        surrogate, a data id that is not JSON, a parent component that cannot be an instruction)
        is a rejection (:data:`UNWRITABLE`), never an exception in GEPA's loop. A proposal
        without a parent or a minibatch raises ValueError: its proposer is wrong, not its data.
        """
        parent = _parent_of(proposal)
        child = Child(_proposal_id(proposal, state), proposal.candidate, _minibatch_of(proposal))
        return self._judge_children(parent, [child], state)[0]

    def judge_iteration(
        self, proposals: Sequence[CandidateProposal[Any]], state: GEPAState[Any, Any]
    ) -> list[Judgement]:
        """Judge an iteration's proposals, those of one parent in one bundle, so that SPEC §5 acts
        across them: the same edit again is ``superseded`` (``rank.duplicate``), a conflicting
        edit of the same component ``superseded`` (``rank.conflict``) by the higher-ranked one,
        and at most ``max_selected`` are selected. One report per parent, recorded in the ledger.
        Each proposal's judgement, in the order given; :meth:`should_accept` and
        :meth:`reject_reason` answer from them for the rest of the iteration.
        """
        return self._judged(proposals, state)

    def close(self) -> None:
        """Close the ledger; the next record opens it again."""
        if self._opened is not None:
            opened, self._opened = self._opened, None
            opened.close()

    def __enter__(self) -> EvidenceRankingCriterion:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def on_optimization_end(self, event: OptimizationEndEvent) -> None:
        """GEPA's callback: the run is over, so the ledger is closed."""
        self.close()

    def on_merge_accepted(self, event: MergeAcceptedEvent) -> None:
        """GEPA's callback: a merged candidate entered the pool, no criterion asked; it is
        judged when the iteration ends, once the state holds its valset scores."""
        self._merged.append((event["new_candidate_idx"], event["parent_ids"][0]))

    def on_iteration_end(self, event: IterationEndEvent) -> None:
        """GEPA's callback: which accepted children entered the pool this iteration; and the
        judgement of a merged candidate GEPA added.

        An accepted child not in the pool afterwards was dropped by the
        selection strategy (``BestImprovement``, ``TopKImprovements``), or was
        a duplicate of another child added in the same iteration.
        """
        state = event["state"]
        merged, self._merged = self._merged, []
        for candidate, parent in merged:
            self._judge_merge(candidate, parent, state)
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

    def _judged(self, proposals: Sequence[CandidateProposal[Any]], state: GEPAState[Any, Any]) -> list[Judgement]:
        """Each proposal's judgement this iteration: the one held, or one made now, with the other
        new proposals of its parent."""
        if self._iteration != state.i:
            self._current.clear()  # the last iteration's, never settled: not given as a callback
            self._iteration = state.i
        fresh = [p for p in {id(p): p for p in proposals}.values() if self._held(p) is None]
        ids = _proposal_ids(fresh, state)
        by_parent: dict[int, list[int]] = {}
        for k, proposal in enumerate(fresh):
            by_parent.setdefault(_parent_of(proposal), []).append(k)
        judged: dict[int, Judgement] = {}
        for parent, members in by_parent.items():
            children = [Child(ids[k], fresh[k].candidate, _minibatch_of(fresh[k])) for k in members]
            judged.update(zip(members, self._judge_children(parent, children, state), strict=True))
        for k, proposal in enumerate(fresh):  # in the order asked
            self.judgements.append(judged[k])
            self._current[id(proposal)] = (proposal, judged[k], len(state.program_candidates))
        return [self._current[id(p)][1] for p in proposals]

    def _held(self, proposal: CandidateProposal[Any]) -> Judgement | None:
        held = self._current.get(id(proposal))
        return held[1] if held is not None and held[0] is proposal else None

    def _judge_children(self, parent: int, children: Sequence[Child], state: GEPAState[Any, Any]) -> list[Judgement]:
        return judge_children(
            state.program_candidates[parent],
            children,
            version=parent,
            iteration=state.i + 1,
            config=self.config,
            repository=self.repository,
            record=self._record,
        )

    def _judge_merge(self, child: int, parent: int, state: GEPAState[Any, Any]) -> None:
        """Judge a merged candidate GEPA added as an edit of its first parent, on the valset
        examples both were scored on; record it, and ``committed`` when the ranking selects it."""
        before, after = state.prog_candidate_val_subscores[parent], state.prog_candidate_val_subscores[child]
        ids = [example for example in after if example in before]
        if not ids:
            return
        minibatch = Minibatch(ids, [before[i] for i in ids], [after[i] for i in ids])
        merged = Child(f"p-{state.i + 1}-merge", state.program_candidates[child], minibatch)
        (judgement,) = self._judge_children(parent, [merged], state)
        self.merges.append(judgement)
        if judgement.selected:
            self._settle(judgement, COMMITTED)

    def _pool_size(self) -> int:
        return min((size for _, _, size in self._current.values()), default=0)

    def _record(self, result: Result, bundle: Mapping[str, Any]) -> dict[str, Standing]:
        """Record the report with the bundle it ranked (:func:`ranking.ledger.curator.record_run`);
        what the ledger knew of each of its edits from other reports (docs/ledger.md)."""
        if self.ledger is None:
            return {}
        return record_run(self._ledger(), result, bundle=bundle)

    def _ledger(self) -> Ledger:
        """The ledger, opened once for the run: opening it costs more than recording a report."""
        assert self.ledger is not None  # Cannot fail: called only when a ledger was given.
        if self._opened is None:
            self._opened = Ledger.open(self.ledger)
        return self._opened

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
            self._ledger().add_outcome(outcome)


class EvidenceRankingSelection:
    """A GEPA ``SelectionStrategy`` (``gepa.optimize(..., selection_strategy=)``) that ranks an
    iteration's proposals of one parent as one bundle (:meth:`EvidenceRankingCriterion.judge_iteration`).

    With a sampling strategy that proposes several children of one parent
    (``SameParentSampling(n)``, ``PxNSampling(p, n)``), SPEC §5 acts across
    them: an identical edit collapses to one, a conflicting edit of the same
    component loses to the higher-ranked one, and at most ``max_selected``
    enter the pool. Pass the same criterion as ``acceptance_criterion``: a
    proposal is selected when the ranking selected it and that criterion
    accepts it, so GEPA's reason for each other one is the ranking's.
    """

    def __init__(self, criterion: EvidenceRankingCriterion) -> None:
        self.criterion = criterion

    def select(
        self,
        proposals: list[CandidateProposal[Any]],
        state: GEPAState[Any, Any],
        acceptance_criterion: AcceptanceCriterion,
    ) -> list[CandidateProposal[Any]]:
        judgements = self.criterion.judge_iteration(proposals, state)
        return [
            proposal
            for proposal, judgement in zip(proposals, judgements, strict=True)
            if judgement.selected and acceptance_criterion.should_accept(proposal, state)
        ]


def with_notes(
    reflection_lm: LanguageModel, ledger: str | os.PathLike[str], *, budget: Budget = DEFAULT_BUDGET
) -> LanguageModel:
    """``reflection_lm`` with the curator's notes from ``ledger`` added to every prompt.

    The notes are :func:`notes_block`'s, read at each call, so a decision recorded
    by the criterion reaches the next reflection. A prompt of chat messages gets
    them at the end of its last user message. No ledger file yet, or no note: the
    prompt is unchanged.
    """
    return _NotedLM(reflection_lm, ledger, budget)


class _NotedLM:
    def __init__(self, lm: LanguageModel, ledger: str | os.PathLike[str], budget: Budget) -> None:
        self.lm = lm
        self.ledger = ledger
        self.budget = budget

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        return self.lm(_noted(prompt, notes_block(self.ledger, budget=self.budget)))


def notes_block(ledger: str | os.PathLike[str], *, budget: Budget = DEFAULT_BUDGET) -> str:
    """The curator's notes from ``ledger`` (:func:`ranking.ledger.read_notes`) as a prompt gets
    them (:func:`ranking.ledger.prompt_block`); empty without a ledger file or a note."""
    return prompt_block(read_notes(ledger, budget=budget))


def _noted(prompt: str | list[dict[str, Any]], notes: str) -> str | list[dict[str, Any]]:
    if not notes:
        return prompt
    block = "\n\n" + notes
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


def _proposal_ids(proposals: Sequence[CandidateProposal[Any]], state: GEPAState[Any, Any]) -> list[str]:
    """Each proposal's id (:func:`_proposal_id`); one that would repeat in the iteration, as
    ``p-<iteration>`` does, gets ``.`` and its position."""
    ids = [_proposal_id(p, state) for p in proposals]
    return [f"{pid}.{k}" if ids.count(pid) > 1 else pid for k, pid in enumerate(ids)]
