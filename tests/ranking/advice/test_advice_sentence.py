"""The advice for a look-alike is one sentence, whoever shows it (issue 56): for the same pair, the
curator's note says what ``explain`` says before the write, and what the gate says after it; and
it is the sentence a curator can follow, an edit SPEC accepts (tests/ranking/ledger/test_advice_is_accepted.py)."""

from __future__ import annotations

from typing import Any

import pytest

from curator_io import DEFAULT_CONFIG, MemoryFile, canon
from ranking.advice.comparisons import Explain
from ranking.advice.lookalikes import lookalikes_for
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection
from ranking.checking.gate import gate
from ranking.ledger.notes.current_memory import MemoryFacts, memory_facts
from ranking.pipeline import rank
from tests.curator_scenario import scenario
from validator import proposals_of
from validator.proposal import edit_of

#: The scenario's two new keys: a reworded copy of deps.setup, and a rule against test.command.
PAIRS = [("p-deps", "deps.install", "deps.setup"), ("p-test-runner", "test.runner", "test.command")]


def _edit(pid: str) -> dict[str, Any]:
    p = proposals_of(scenario().bundle)[pid]
    return edit_of(p.scope, p.operations)


def _facts(memory: Any) -> MemoryFacts:
    facts = memory_facts(memory)
    assert facts is not None
    return facts


@pytest.mark.parametrize(("pid", "key", "other"), PAIRS)
def test_before_the_write_the_note_and_explain_give_one_sentence(pid: str, key: str, other: str) -> None:
    sealed = scenario()
    (note,) = _facts(sealed.document["memory"]).resemblances(_edit(pid), admitted=False)
    (shown,) = lookalikes_for(Explain(sealed.bundle, pid))
    assert (note.key, note.other) == (shown.subject.key, shown.other.key) == (key, other)
    assert note.advice == shown.advice()
    assert f"instead of adding {key!r}" in note.advice  # an edit not written: the other key is replaced


@pytest.mark.parametrize(("pid", "key", "other"), PAIRS)
def test_after_the_write_the_note_and_the_gate_give_one_sentence(pid: str, key: str, other: str) -> None:
    sealed = scenario()
    report = rank(sealed.bundle).canonical
    written = apply_selection(accept(report, bundle=sealed.canonical))
    after, base = (
        MemoryFile(canon(written), markdown=False),
        MemoryFile(canon(sealed.document["memory"]), markdown=False),
    )
    result = gate(report, sealed.canonical, after, config=DEFAULT_CONFIG, base=base)

    (note,) = _facts(written).resemblances(_edit(pid), admitted=True)
    (warning,) = [w for w in result.warnings if w.key == key]
    assert (note.key, note.other) == (key, other)
    assert warning.message.endswith(f": {note.advice}")
    assert "in a proposal of its own" in note.advice  # both are written: one of them is removed
