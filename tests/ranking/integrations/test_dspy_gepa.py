"""``dspy.GEPA`` gated by evidence ranking: DSPy's real ``compile``, offline, on DSPy's own dummy
LM.

The task: a DSPy program with one predictor, ``answer``, whose score on an
example is 1.0 when its instruction names the example's keyword, else 0.0 (the
program returns its instruction with its answer, so the metric can read it).
The task LM is a ``DummyLM`` that answers "ok" to everything; the reflection LM
a ``DummyLM`` that answers the next instruction of a script. Nothing calls a
model, and a test fails if anything opens a connection.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.adapters import JSONAdapter
from dspy.utils import DummyLM
from gepa.proposer.reflective_mutation.reflection_lm import StatelessReflectionLM

from ranking.integrations.dspy_gepa import NotedInstructionProposer
from ranking.integrations.gepa import UNWRITABLE, EvidenceRankingCriterion, EvidenceRankingSelection
from ranking.ledger import Ledger
from ranking.ledger.notes.composing import PROMPT_HEADING

KEYWORDS = ("alpha", "beta", "gamma")
TRAINSET = [dspy.Example(question=f"Which word? {k}", keyword=k).with_inputs("question") for k in KEYWORDS]


class Keyword(dspy.Module):
    def __init__(self, instruction: str | None = None) -> None:
        super().__init__()
        self.answer = dspy.Predict("question -> answer")
        if instruction is not None:
            self.answer.signature = self.answer.signature.with_instructions(instruction)

    def forward(self, question: str) -> dspy.Prediction:
        said = self.answer(question=question)
        return dspy.Prediction(answer=said.answer, instruction=self.answer.signature.instructions)


def metric(gold: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> dspy.Prediction:
    hit = gold.keyword in pred.instruction.split()
    return dspy.Prediction(score=1.0 if hit else 0.0, feedback="found" if hit else f"say {gold.keyword}")


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No connection can be opened, and DSPy's cache, were it used, is the test's."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a network call in an offline test: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy-cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _compile(
    script: list[str], gate: EvidenceRankingCriterion | None, *, student: Keyword | None = None, **gepa_kwargs: Any
) -> tuple[Keyword, DummyLM]:
    """``dspy.GEPA.compile`` on the keyword task, the current best as each parent, until the
    reflection LM has answered the whole script. With ``gate``: the recipe of docs/dspy.md."""
    reflection = DummyLM([{"new_instruction": text} for text in script], adapter=JSONAdapter())
    gated: dict[str, Any] = {}
    if gate is not None:
        gated = {
            "acceptance_criterion": gate,
            "selection_strategy": EvidenceRankingSelection(gate),
            "callbacks": [gate],
        }
    optimizer = dspy.GEPA(
        metric=metric,
        reflection_lm=reflection,
        max_metric_calls=200,
        candidate_selection_strategy="current_best",
        use_merge=False,
        instruction_proposer=NotedInstructionProposer(gate.ledger) if gate is not None and gate.ledger else None,
        gepa_kwargs={"stop_callbacks": lambda state: len(reflection.history) >= len(script), **gated, **gepa_kwargs},
    )
    with dspy.context(lm=DummyLM({"": {"answer": "ok"}})):
        program = optimizer.compile(student or Keyword(), trainset=TRAINSET)
    return program, reflection


def test_a_lucky_one_example_edit_is_deferred_and_a_two_example_one_is_accepted(tmp_path: Path) -> None:
    ledger = tmp_path / "admissions.db"
    gate = EvidenceRankingCriterion(ledger=ledger, repository="dspy/keywords")
    gated, _ = _compile(["Answer. alpha", "Answer. alpha beta"], gate)
    default, _ = _compile(["Answer. alpha"], None)

    assert default.answer.signature.instructions == "Answer. alpha"  # DSPy's default takes the lucky one
    assert gated.answer.signature.instructions == "Answer. alpha beta"
    assert [j.reason for j in gate.judgements] == [
        "evidence-ranking-v1: p-1-0 deferred: support.insufficient_lineages (better on 1, worse on 0 of 3 examples)",
        "evidence-ranking-v1: p-2-0 selected: rank.selected (better on 2, worse on 0 of 3 examples)",
    ]
    with Ledger.open(ledger, read_only=True) as opened:
        recorded = sorted((d.proposal, d.disposition, tuple(o.category for o in os)) for d, os in opened.export())
    assert recorded == [("p-1-0", "deferred", ()), ("p-2-0", "selected", ("committed",))]


def test_the_notes_reach_the_reflection_lm_through_dspys_proposer_and_a_deferral_says_retry(tmp_path: Path) -> None:
    ledger = tmp_path / "admissions.db"
    gate = EvidenceRankingCriterion(ledger=ledger, repository="dspy/keywords")
    _, reflection = _compile(["Answer. alpha", "Answer. alpha beta"], gate)

    first, second = ("\n".join(m["content"] for m in call["messages"]) for call in reflection.history)
    note = 'retry: replace "answer" with "Answer. alpha" in dspy/keywords — deferred in'
    assert PROMPT_HEADING not in first
    assert PROMPT_HEADING in second and note in second
    (line,) = [line for line in second.splitlines() if line.startswith("retry: ")]
    assert "do not" not in line  # "not yet", never "never"
    assert "additional_instructions" in second  # an input of the proposer's signature, not dropped


def test_the_proposer_keeps_the_users_own_additional_instructions(tmp_path: Path) -> None:
    ledger = tmp_path / "admissions.db"
    gate = EvidenceRankingCriterion(ledger=ledger)
    reflection = DummyLM(
        [{"new_instruction": t} for t in ("Answer. alpha", "Answer. alpha beta")], adapter=JSONAdapter()
    )
    proposer = NotedInstructionProposer(ledger, additional_instructions="Write in the imperative.")
    optimizer = dspy.GEPA(
        metric=metric,
        reflection_lm=reflection,
        max_metric_calls=200,
        use_merge=False,
        instruction_proposer=proposer,
        gepa_kwargs={"acceptance_criterion": gate, "stop_callbacks": lambda state: len(reflection.history) >= 2},
    )
    with gate, dspy.context(lm=DummyLM({"": {"answer": "ok"}})):
        optimizer.compile(Keyword(), trainset=TRAINSET)

    first, second = ("\n".join(m["content"] for m in call["messages"]) for call in reflection.history)
    assert "Write in the imperative." in first and PROMPT_HEADING not in first
    assert "Write in the imperative." in second and PROMPT_HEADING in second


def test_a_candidate_no_bundle_can_hold_does_not_stop_compile_under_raise_on_exception() -> None:
    # DSPy runs GEPA with raise_on_exception=True: an exception from the criterion would end compile.
    # A parent longer than a memory instruction may be (SPEC §1: 4000 bytes) makes every child unwritable.
    gate = EvidenceRankingCriterion()
    long = "Answer." + " word" * 1000
    program, _ = _compile(["Answer. alpha beta"], gate, student=Keyword(long))

    assert program.answer.signature.instructions == long  # the child was refused, the run went on
    (judgement,) = gate.judgements
    assert (judgement.codes, judgement.disposition) == ((UNWRITABLE,), "rejected")
    assert judgement.unwritable is not None and judgement.unwritable.startswith(
        "the parent's component 'answer': input.schema"
    )


@pytest.mark.parametrize(
    ("key", "value", "error", "message"),
    [
        ("use_merge", False, TypeError, "got multiple values for keyword argument 'use_merge'"),
        ("seed", 1, TypeError, "got multiple values for keyword argument 'seed'"),
        ("reflection_strategy", None, ValueError, "reflection_strategy was provided, but adapter.propose_new_texts"),
    ],
)
def test_a_key_dspy_sets_or_owns_cannot_go_in_gepa_kwargs(key: str, value: Any, error: type, message: str) -> None:
    if key == "reflection_strategy":
        value = StatelessReflectionLM(lambda prompt: "")
    with pytest.raises(error, match=message):
        _compile(["Answer. alpha beta"], EvidenceRankingCriterion(), **{key: value})
