"""Gate ACE's skill manager on evidence: ranking stands between its edits and the live skillbook.

ACE (PyPI ``ace-framework``, 0.13) learns a playbook, a ``Skillbook`` of ``Skill``s: its
skill manager adds, updates, removes and tags skills through tools that write the
skillbook the moment the model calls them. :class:`EvidenceGate` takes the place of
ACE's ``UpdateStep`` in the steps ``ACE.build_steps`` returns (:meth:`EvidenceGate.steps`):

1. each sample's skill manager edits a staged copy of the live skillbook, never the
   live one; what its edits add up to (:func:`ranking.integrations.ace_skillbook.net_edits`) waits for the window;
2. every ``window`` samples, the window's edits, with those carried over, are written
   as one bundle (:mod:`ranking.integrations.ace_bundle`) and ranked (SPEC §3-§5);
3. the selected edits are written to a copy of the live skillbook, held to the CI
   gate's comparison with what the selection permits (SPEC §8,
   :func:`ranking.checking.gate.gate`), then to the live skillbook;
4. a deferred edit (or one left out by ``max_selected``) is ranked again in the next
   ``carry`` windows, where the same edit from another lineage adds to its support;
5. every report goes to the ledger (``ledger=``) before anything is written; the curator's
   notes (:mod:`ranking.ledger.notes.composing`, the same for every host) reach the skill manager's
   next prompt.

Needs the optional extra, and Python 3.12 or newer: ``pip install 'evidence-rank[ace]'``.
docs/ace.md says which SPEC rule each ACE fact feeds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

try:
    from ace import ACEStepContext, DeduplicateStep, Pipeline, Skillbook, UpdateStep
except ImportError as e:  # ace-framework 0.8 and later needs Python 3.12
    raise ImportError(
        "ranking.integrations.ace needs ace-framework 0.13, on Python 3.12 or newer: pip install 'evidence-rank[ace]'"
    ) from e

from curator_io import MemoryFile, SealedBundle, canon
from curator_io.catalogue import DEFERRED, SELECTED, UNSELECTED
from curator_io.config import DEFAULT_CONFIG, Config, parse_config
from curator_io.grammar import is_id, is_repo
from ranking.checking.gate import gate
from ranking.integrations.ace_bundle import Observation, Pending, Sample, gathered, text_of, window_bundle
from ranking.integrations.ace_skillbook import memory_of, net_edits, write_selection
from ranking.ledger.curator import Runs, read_notes, record_run
from ranking.ledger.notes.composing import curator_notes, prompt_block
from ranking.ledger.notes.model import DEFAULT_BUDGET, Budget, Note
from ranking.ledger.records import edits_of
from ranking.ledger.store import Ledger
from ranking.pipeline import Result, rank

__all__ = ["EvidenceGate", "Observation", "Window"]


@dataclass(frozen=True, slots=True)
class Window:
    """One ranked window: its bundle, its report, and what became of each proposal."""

    number: int
    """The window's number, from 1 (every ``window`` samples, and each :meth:`EvidenceGate.flush`)."""
    samples: tuple[int, ...]
    """The samples that closed in it (the gate's numbers: trace ``tr-<n>``)."""
    bundle: SealedBundle
    report: Mapping[str, Any]
    """The sealed evidence-ranking-v1 report."""
    written: tuple[str, ...]
    """The keys of the skills the selected edits wrote, in rank order."""
    carried: tuple[str, ...]
    """The proposals ranked again in the next window."""
    refused: tuple[str, ...]
    """The proposals dropped: refused, or deferred with no window left."""


class EvidenceGate:
    """Ranking between ACE's skill manager and the live skillbook (the module docstring).

    ``skillbook`` is the live skillbook, the one given to ``ACE.build_steps``. ``observe``
    is the caller's function from each sample's ``ACEStepContext`` to an
    :class:`Observation`: the sample's lineage (its root task) and the signal its outcome
    carries. ``window`` is how many samples are ranked together; ``carry`` how many later
    windows rank a deferred edit again. ``repository`` is the scope of every skill (SPEC
    §1 REPO: name your task); ``config`` the pinned ranking config (a ``Config`` or a
    config object); ``ledger`` a ledger file (docs/ledger.md) that records every report.
    """

    def __init__(
        self,
        skillbook: Skillbook,
        observe: Callable[[ACEStepContext], Observation],
        *,
        window: int = 4,
        carry: int = 1,
        repository: str = "ace",
        config: Config | Mapping[str, Any] | None = None,
        ledger: str | os.PathLike[str] | None = None,
    ) -> None:
        if window < 1 or carry < 0:
            raise ValueError(f"window must be 1 or more and carry 0 or more: {window}, {carry}")
        if not is_repo(repository):
            raise ValueError(f"repository must be 1-200 bytes without control characters: {repository!r}")
        self.skillbook = skillbook
        self.observe = observe
        self.window = window
        self.carry = carry
        self.repository = repository
        self.config = (
            DEFAULT_CONFIG if config is None else config if isinstance(config, Config) else parse_config(config)
        )
        self.ledger = ledger
        self.version = 0
        """The live skillbook's memory version (SPEC §1): one more after each window that selected."""
        self.windows: list[Window] = []
        """Every ranked window, oldest first."""
        self._samples: list[Sample] = []
        self._tags: list[tuple[str, int, Any]] = []
        self._pending: list[Pending] = []
        self._numbers = {"samples": 0, "windows": 0, "proposals": 0}
        self._runs = Runs()
        """Every report ranked, for the notes when there is no ledger."""

    def steps(self, steps: Sequence[Any]) -> list[Any]:
        """ACE's steps (``ACE.build_steps(...)``) with the gate in place of their ``UpdateStep``.

        The learning tail (the reflection and the gate) runs in the foreground, a
        ``Pipeline`` nested in the outer one (ACE ignores a nested step's ``async_boundary``),
        so each sample is staged in sample order and each window's write lands before the
        next sample's agent runs: the same samples give the same skillbook.
        """
        updates = [at for at, step in enumerate(steps) if isinstance(step, UpdateStep)]
        if len(updates) != 1:
            raise ValueError(f"expected the steps of ACE.build_steps, with one UpdateStep; found {len(updates)}")
        if any(isinstance(step, DeduplicateStep) for step in steps):
            raise ValueError("DeduplicateStep writes the live skillbook ungated: build the steps without dedup_manager")
        (at,) = updates
        update = steps[at]
        if update.skillbook is not self.skillbook:
            raise ValueError("the UpdateStep writes another skillbook than the gate's: give both the same one")
        for skill in self.skillbook.skills():
            if not is_id(skill.id):
                raise ValueError(f"skill id {skill.id!r} is not an instruction key (SPEC §0 ID)")
        gated = [*steps[:at], _GatedUpdate(self, update.skill_manager), *steps[at + 1 :]]
        boundary = next((k for k, step in enumerate(gated) if getattr(step, "async_boundary", False)), len(gated))
        return gated if boundary == len(gated) else [*gated[:boundary], Pipeline(gated[boundary:])]

    def flush(self) -> Window | None:
        """Close the open window now, however few samples it holds (at the end of a run): its
        edits and those carried over are ranked. None when it holds no sample, or no edit is pending."""
        return self._close()

    def memory(self) -> dict[str, Any]:
        """The live skillbook as the memory of a bundle (SPEC §1): one sealed ``curated``
        instruction per active skill, in key order, and :attr:`version`. What the gate
        compares with what a selection permits (SPEC §8)."""
        return memory_of(self.skillbook, self.version, self.repository)

    def notes(self, budget: Budget = DEFAULT_BUDGET) -> tuple[Note, ...]:
        """The curator's notes the skill manager's next prompt gets (:mod:`ranking.ledger.notes.composing`,
        the policy every host shares): from the ledger, or without one from this gate's windows."""
        memory = self.memory()  # its look-alikes named: a skill that rewords another under a new key
        if self.ledger is not None:
            return read_notes(self.ledger, budget=budget, memory=memory)
        return curator_notes(self._runs, budget=budget, memory=memory)

    # --- staging ---------------------------------------------------------------------

    def _record(self, ctx: ACEStepContext, operations: Sequence[Any], reasoning: str, staged: Skillbook) -> None:
        """One sample's edits, staged; the window closes at its ``window``-th sample."""
        observation = self.observe(ctx)
        if not isinstance(observation, Observation):
            raise TypeError(f"observe must return an Observation, not {type(observation).__name__}")
        edits, tags = net_edits(self.skillbook, staged, operations, self.repository)
        self._numbers["samples"] += 1
        reflections = [r.model_dump(mode="json", exclude={"raw"}) for r in ctx.reflections]
        outcome = {"lineage": observation.lineage, "signal": observation.signal, "summary": observation.summary}
        self._samples.append(
            Sample(
                number=self._numbers["samples"],
                observation=observation,
                steps=(outcome, ctx.trace, reflections),
                lesson=ctx.reflections[0].key_insight if ctx.reflections else "",
                reasoning=reasoning,
                edits=edits,
            )
        )
        self._tags.extend(tags)
        if len(self._samples) >= self.window:
            self._close()

    def _close(self) -> Window | None:
        samples, tags = self._samples, self._tags
        self._samples, self._tags = [], []
        if not samples:  # nothing new: the edits carried over would only be ranked on the same evidence
            return None
        self._numbers["windows"] += 1
        pending, self._numbers["proposals"] = gathered(
            self._pending, samples, windows=self.carry, numbered=self._numbers["proposals"]
        )
        window = self._ranked(pending, tuple(s.number for s in samples)) if pending else None
        for skill_id, delta, source in tags:  # TAG is not a proposal: a counter, not an instruction
            if self.skillbook.get_skill(skill_id) is not None:
                self.skillbook.tag_skill(skill_id, delta, insight_source=source)
        return window

    # --- ranking and writing -----------------------------------------------------------

    def _ranked(self, pending: list[Pending], samples: tuple[int, ...]) -> Window:
        memory = [(skill.id, text_of(skill)) for skill in self.skillbook.skills()]
        sealed = window_bundle(memory, self.version, pending, repository=self.repository, curator="ace")
        result = rank(sealed.bundle, self.config)
        by_id = {p.id: p for p in pending}
        selected = [by_id[pid] for pid in result.selected]
        stamp = sealed.document["run"]["frozen_at"]
        version = self.version + 1 if result.outcome == SELECTED else self.version
        trial = self.skillbook.clone()
        write_selection(trial, selected, stamp)
        trial_memory = MemoryFile(canon(memory_of(trial, version, self.repository)), markdown=False)
        verdict = gate(result.canonical, sealed.bundle, trial_memory, config=self.config)
        if not verdict.passed:  # Cannot happen: a write that is not the selection's is a bug here, and stops.
            raise RuntimeError(f"the gated write differs from the selection: {verdict.findings[0].message}")
        # Before the live write: an edit that cannot be accounted for is not written.
        self._remember(result, sealed.document)
        written = write_selection(self.skillbook, selected, stamp)
        self.version = version
        dispositions = {e["id"]: e["disposition"] for e in result.report["proposals"]}
        again = {DEFERRED, UNSELECTED}
        self._pending = [
            replace(p, windows=p.windows - 1) for p in pending if dispositions[p.id] in again and p.windows
        ]
        carried = {p.id for p in self._pending}
        window = Window(
            number=self._numbers["windows"],
            samples=samples,
            bundle=sealed,
            report=result.report,
            written=written,
            carried=tuple(p.id for p in pending if p.id in carried),
            refused=tuple(p.id for p in pending if p.id not in carried and dispositions[p.id] != SELECTED),
        )
        self.windows.append(window)
        return window

    def _remember(self, result: Result, bundle: Mapping[str, Any]) -> None:
        """Record the report: in the ledger when there is one, else in this gate's runs, for the notes."""
        if self.ledger is not None:
            with Ledger.open(self.ledger) as ledger:
                record_run(ledger, result, bundle=bundle)
        else:
            self._runs.add(result.report, edits_of(e.proposal for e in result.validation.entries))


class _GatedUpdate:
    """ACE's ``UpdateStep``, run against a staged copy of the live skillbook."""

    requires = frozenset({"reflections", "skillbook"})
    provides = frozenset({"skill_manager_output"})
    max_workers = 1

    def __init__(self, gate: EvidenceGate, skill_manager: Any) -> None:
        self.gate = gate
        self.skill_manager = skill_manager

    def __call__(self, ctx: ACEStepContext) -> ACEStepContext:
        staged = self.gate.skillbook.clone()
        done = UpdateStep(_Noted(self.skill_manager, prompt_block(self.gate.notes())), staged)(ctx)
        batch = done.skill_manager_output
        self.gate._record(ctx, batch.operations, batch.reasoning, staged)
        return done


class _Noted:
    """A skill manager whose prompt's task context ends with the curator's notes."""

    def __init__(self, skill_manager: Any, notes: str) -> None:
        self.skill_manager = skill_manager
        self.notes = notes

    def update_skills(
        self, *, reflections: tuple[Any, ...], skillbook: Any, question_context: str, progress: str, **kwargs: Any
    ) -> Any:
        if self.notes:
            question_context = "\n\n".join([question_context, self.notes]).lstrip()
        return self.skill_manager.update_skills(
            reflections=reflections, skillbook=skillbook, question_context=question_context, progress=progress, **kwargs
        )
