"""What the GEPA tests share: a deterministic task, its adapter, a scripted reflection LM,
and one ``gepa.optimize`` run over them. No network: nothing here calls a model.

The task: each example names a keyword, and a candidate's one component,
``instruction``, scores 1.0 on an example when it contains the keyword as a word,
else 0.0. The reflection LM answers from a script, one instruction per call, and
the run stops when the script is spent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gepa
from gepa.core.adapter import EvaluationBatch
from gepa.core.callbacks import CandidateRejectedEvent
from gepa.core.result import GEPAResult
from gepa.core.state import GEPAState
from gepa.strategies.acceptance import AcceptanceCriterion

KEYWORDS = ("alpha", "beta", "gamma")
TRAINSET = [{"keyword": k} for k in KEYWORDS]
SEED = {"instruction": "Answer."}
#: Six keywords: room for two iterations that each improve two examples.
SIX = [{"keyword": k} for k in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")]

#: The main scenario, from the seed "Answer." (scores 0, 0, 0 on alpha, beta, gamma):
SCRIPT = (
    "Answer. alpha",  # 1. better on one example: GEPA's default accepts it, the gate defers it
    "Answer. alpha",  # 2. the same mutation of the same parent, proposed again
    "Answer. alpha beta",  # 3. better on two, worse on none: selected, enters the pool
    "Answer. gamma",  # 4. from 3: better on one, worse on two: rejected on counterevidence
)


class KeywordAdapter:
    """A GEPAAdapter: deterministic scores, JSON trajectories, a reflective dataset per component.
    ``opaque``: each trajectory is a Python object RFC 8785 cannot write, as a DSPy trace is."""

    propose_new_texts = None

    def __init__(self, *, opaque: bool = False) -> None:
        self.opaque = opaque

    def evaluate(
        self, batch: list[dict[str, str]], candidate: dict[str, str], capture_traces: bool = False
    ) -> EvaluationBatch[Any, Any]:
        words = " ".join(candidate.values()).split()  # every component counts
        scores = [1.0 if example["keyword"] in words else 0.0 for example in batch]
        outputs = [{"keyword": e["keyword"], "hit": s == 1.0} for e, s in zip(batch, scores, strict=True)]
        trajectories: list[Any] | None = None
        if capture_traces:
            trajectories = [
                _Opaque(e["keyword"]) if self.opaque else {"instruction": candidate["instruction"], **e} for e in batch
            ]
        return EvaluationBatch(outputs=outputs, scores=scores, trajectories=trajectories)

    def make_reflective_dataset(
        self, candidate: dict[str, str], eval_batch: EvaluationBatch[Any, Any], components_to_update: list[str]
    ) -> dict[str, list[dict[str, Any]]]:
        records = [
            {"Inputs": {"keyword": o["keyword"]}, "Feedback": "found" if o["hit"] else f"say {o['keyword']}"}
            for o in eval_batch.outputs
        ]
        return dict.fromkeys(components_to_update, records)


@dataclass
class ScriptedReflection:
    """A reflection LM that answers the next instruction of its script, and keeps every prompt."""

    script: list[str]
    prompts: list[str] = field(default_factory=list)

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        self.prompts.append(prompt if isinstance(prompt, str) else str(prompt))
        return "```\n" + self.script.pop(0) + "\n```"

    def spent(self, state: GEPAState[Any, Any]) -> bool:
        """A GEPA stopper: stop once every scripted instruction has been proposed."""
        return not self.script


@dataclass
class Rejections:
    """A GEPA callback keeping the reason of every ``on_candidate_rejected``."""

    reasons: list[str] = field(default_factory=list)

    def on_candidate_rejected(self, event: CandidateRejectedEvent) -> None:
        self.reasons.append(event["reason"])


def run(
    criterion: AcceptanceCriterion | None,
    script: Sequence[str] = SCRIPT,
    *,
    reflection: Any = None,
    callbacks: Sequence[Any] = (),
    adapter: KeywordAdapter | None = None,
    trainset: Sequence[dict[str, str]] = TRAINSET,
    seed_candidate: dict[str, str] = SEED,
    candidate_selection_strategy: Any = "current_best",
    stop_callbacks: Any = None,
    **options: Any,
) -> tuple[GEPAResult[Any, Any], ScriptedReflection]:
    """``gepa.optimize`` on the keyword task: the whole trainset is each minibatch, the current
    best candidate is each parent, seed 0. ``reflection`` wraps the scripted LM (e.g. with notes).
    The run stops when the script is spent, or when ``stop_callbacks`` says."""
    scripted = ScriptedReflection(list(script))
    result = gepa.optimize(
        seed_candidate=dict(seed_candidate),
        trainset=list(trainset),
        adapter=adapter or KeywordAdapter(),
        reflection_lm=reflection(scripted) if reflection is not None else scripted,
        reflection_minibatch_size=len(trainset),
        candidate_selection_strategy=candidate_selection_strategy,
        acceptance_criterion=criterion if criterion is not None else "strict_improvement",
        callbacks=list(callbacks),
        stop_callbacks=stop_callbacks or scripted.spent,
        max_metric_calls=1000,
        seed=0,
        logger=_Silent(),
        **options,
    )
    return result, scripted


@dataclass(frozen=True)
class _Opaque:
    keyword: str


class _Silent:
    def log(self, message: str) -> None:
        pass


class CyclicAdapter(KeywordAdapter):
    """A KeywordAdapter whose every trajectory holds itself (a trace with a back-reference)."""

    def evaluate(
        self, batch: list[dict[str, str]], candidate: dict[str, str], capture_traces: bool = False
    ) -> EvaluationBatch[Any, Any]:
        evaluated = super().evaluate(batch, candidate, capture_traces)
        for trajectory in evaluated.trajectories or ():
            trajectory["self"] = trajectory
        return evaluated


class SeedParent:
    """A GEPA candidate selector that makes every child a child of the seed: two children of one
    ancestor, each better on other examples, are what GEPA merges."""

    def select_candidate_idx(self, state: GEPAState[Any, Any]) -> int:
        return 0
