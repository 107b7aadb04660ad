"""What ``EvidenceRankingCriterion`` adds to each GEPA proposal (issue 36: at most 5 ms for 20 examples;
"GEPA with the whole pipeline": with a ledger at most 1.5x without one).

    python bench/gepa_criterion.py       # 20-example minibatches, 300 proposals per row
    python bench/gepa_criterion.py --examples 50 --runs 100

Each proposal is a real ``gepa.proposer.base.CandidateProposal`` of a
one-component candidate (a 600-character instruction), its minibatch evaluated
before and after with a JSON trajectory per example (the instruction, the
input, the output and feedback, about 900 bytes). Half the examples improve,
one gets worse, so every proposal is selected and ranked in full. The state is
a stand-in holding what the criterion reads (``program_candidates``, ``i``).

Rows, each the median and 90th percentile of ``--runs`` wall times
(``time.perf_counter``) after ``--warmup`` runs, the collector left on (as in
a GEPA run). The rows take turns, one proposal each, so a change in the
machine's load falls on all of them alike:

* ``bundle_of``: writing and sealing the bundle document (``curator_io.BundleBuilder``,
  which loads what it writes, as every command reads a bundle);
* ``+ load``: then ``curator_io.bundle_from_document`` of the document, again;
* ``should_accept``: the whole criterion without a ledger (bundle, load, rank);
* ``should_accept, ledger=``: with a ledger file, kept open for the run: the
  fingerprint looked up, the report recorded (the ledger grows over the runs);
* ``select, 3 of one parent``: ``EvidenceRankingSelection`` on three proposals
  of one parent (``SameParentSampling(3)``), ranked as one bundle, with a
  ledger; per proposal, so that it compares with the rows above.

The last line is the ratio of the two ``should_accept`` medians.

Not ``bench/gepa.py``: run as a script, that file would be the ``gepa`` its imports find.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

INSTRUCTION = "Answer the question in one short sentence, citing the passage you used. " * 8


@dataclass
class State:
    """What the criterion reads of a ``GEPAState``."""

    program_candidates: list[dict[str, str]]
    i: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def proposal_of(n: int, k: int) -> Any:
    """The ``k``-th proposal: ``n`` examples, the first half improved, the last one worse."""
    from gepa.proposer.base import CandidateProposal, SubsampleEvaluation

    before = [0.0] * (n - 1) + [1.0]
    after = [1.0 if i < n // 2 else 0.0 for i in range(n - 1)] + [0.0]

    def trajectories(text: str, scores: list[float]) -> list[dict[str, Any]]:
        return [
            {
                "instruction": text,
                "input": f"question {i}: what does passage {i} say about the topic?",
                "output": f"Passage {i} says it in one sentence.",
                "feedback": "correct" if s else f"wrong: expected the answer of passage {i}",
            }
            for i, s in enumerate(scores)
        ]

    child = f"{INSTRUCTION}Version {k}."
    return CandidateProposal(
        candidate={"instruction": child},
        parent_program_ids=[0],
        subsample_indices=list(range(k, k + n)),
        subsample_scores_before=before,
        subsample_scores_after=after,
        eval_before=SubsampleEvaluation(before, [{}] * n, None, trajectories(INSTRUCTION, before)),
        eval_after=SubsampleEvaluation(after, [{}] * n, None, trajectories(child, after)),
        metadata={"proposal_id": f"{k}-0"},
    )


def timed(runs: int, warmup: int, works: list[Callable[[int], object]]) -> list[tuple[float, float]]:
    """Median and 90th percentile of ``runs`` calls of each work, in milliseconds, after
    ``warmup`` calls; the works take turns, call by call."""
    for k in range(warmup):
        for work in works:
            work(-1 - k)
    times: list[list[float]] = [[] for _ in works]
    for k in range(runs):
        for work, spent in zip(works, times, strict=True):
            start = time.perf_counter()
            work(k)
            spent.append(time.perf_counter() - start)
    return [(statistics.median(t) * 1000, sorted(t)[int(0.9 * (len(t) - 1))] * 1000) for t in times]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=20)
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--warmup", type=int, default=20)
    args = p.parse_args(argv)

    from curator_io import bundle_from_document
    from ranking.integrations.gepa import EvidenceRankingCriterion, EvidenceRankingSelection
    from ranking.integrations.gepa_bundle import Minibatch, bundle_of

    n = args.examples
    state = State([{"instruction": INSTRUCTION}])
    proposals = {k: proposal_of(n, k) for k in range(-args.warmup, args.runs)}

    def bundle(k: int) -> dict[str, Any]:
        p = proposals[k]
        minibatch = Minibatch(
            p.subsample_indices, p.eval_before.scores, p.eval_after.scores, p.eval_before.trajectories,
            p.eval_after.trajectories,
        )  # fmt: skip
        return bundle_of(state.program_candidates[0], p.candidate, minibatch, version=0, proposal=f"p-{k}")

    def accept(criterion: EvidenceRankingCriterion) -> Callable[[int], object]:
        def work(k: int) -> object:
            state.i = k  # a new iteration: nothing is remembered from the last
            assert criterion.should_accept(proposals[k], state)  # type: ignore[arg-type]
            return None

        return work

    siblings = {k: [proposal_of(n, 3 * k + j) for j in range(3)] for k in range(-args.warmup, args.runs)}

    def select(criterion: EvidenceRankingCriterion) -> Callable[[int], object]:
        strategy = EvidenceRankingSelection(criterion)

        def work(k: int) -> object:
            state.i = k
            chosen = strategy.select(siblings[k], state, criterion)  # type: ignore[arg-type]
            assert len(chosen) == 1  # three edits of one component: the best, the others conflict
            return None

        return work

    with (
        tempfile.TemporaryDirectory() as folder,
        EvidenceRankingCriterion(ledger=Path(folder) / "gepa.db") as recorded,
        EvidenceRankingCriterion(ledger=Path(folder) / "select.db") as selecting,
    ):
        rows = [
            ("bundle_of", bundle),
            ("+ load", lambda k: bundle_from_document(bundle(k))),
            ("should_accept", accept(EvidenceRankingCriterion())),
            ("should_accept, ledger=", accept(recorded)),
            ("select, 3 of one parent", select(selecting)),
        ]
        results = timed(args.runs, args.warmup, [work for _, work in rows])
    print(f"{n}-example minibatches, {args.runs} proposals per row (after {args.warmup}), wall ms:")
    for (name, _), (median, p90) in zip(rows, results, strict=True):
        if name.startswith("select"):
            median, p90 = median / 3, p90 / 3
        print(f"  {name:<24} median {median:6.2f}  p90 {p90:6.2f}")
    print(f"  ledger= / without: {results[3][0] / results[2][0]:.2f}x (medians)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
