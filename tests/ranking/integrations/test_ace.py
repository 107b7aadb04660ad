"""ACE's skill manager, gated: ace-framework's real pipeline with a scripted model, no network
(tests/ranking/integrations/ace_support.py has the script).

The main run is six samples in windows of four, then a flush:

1. task-a adds "Check the sum." and "Be careful."; 2. task-b adds "Check the sum." and tags
the live rule helpful; 3. task-a again adds "Be careful."; 4. task-c adds a skill, updates it
into the live rule's twin and tags it; window 1 closes. 5. task-d proposes nothing;
6. task-a once more adds "Be careful."; the flush closes window 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ace", reason="ace-framework needs Python 3.12 or newer: make test runs this in .venv-ace")

from curator_io import canon, parse_json
from ranking import accept, apply_selection
from ranking.ledger import Budget, Ledger, read_notes
from ranking.ledger.notes.composing import PROMPT_HEADING
from ranking.testing import reason_codes
from tests.ranking.integrations.ace_support import CAREFUL, CHECK, QUESTIONS, RULE, run

pytestmark = [pytest.mark.ace, pytest.mark.filterwarnings("ignore:`usage` is a property:DeprecationWarning")]


@pytest.fixture(scope="module")
def main_run() -> Any:
    return run(QUESTIONS[:6])


def _entries(window: Any) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in window.report["proposals"]}


def _texts(live: Any) -> dict[str, tuple[str, str | None]]:
    return {s.id: (s.issue, s.insight) for s in live.skills(include_invalid=True)}


def _proposal_of(window: Any, issue: str) -> dict[str, Any]:
    """The report entry whose operation writes a skill with this issue."""
    (found,) = [
        _entries(window)[p["id"]]
        for p in window.bundle.document["proposals"]
        if f"Issue: {issue}\n" in p["operations"][0].get("text", "") + "\n"
    ]
    return found


def _permitted(window: Any) -> bytes:
    """SPEC §8: the memory a Writer may produce from this window's bundle and report."""
    return canon(apply_selection(accept(window.report, bundle=window.bundle.canonical)))


def test_a_skill_two_task_lineages_support_is_selected_and_written(main_run: Any) -> None:
    gate, live, *_ = main_run
    window = gate.windows[0]
    entry = _proposal_of(window, CHECK["issue"])
    assert (entry["disposition"], reason_codes(entry), entry["support"]["lineages"]) == (
        "selected",
        ["rank.selected"],
        2,
    )
    (key,) = window.written
    assert _texts(live)[key] == (CHECK["issue"], CHECK["insight"])
    assert not key.startswith("context-")  # named by its content, never an id ACE hands out


def test_be_careful_proposed_twice_within_one_lineage_is_deferred_and_never_written(main_run: Any) -> None:
    gate, live, *_ = main_run
    first, second = gate.windows
    entry = _proposal_of(first, CAREFUL["issue"])
    assert (entry["disposition"], reason_codes(entry)) == ("deferred", ["support.insufficient_lineages"])
    assert (entry["support"]["verified"], entry["support"]["lineages"]) == (2, 1)
    assert entry["id"] in first.carried
    again = _proposal_of(second, CAREFUL["issue"])  # carried over, and task-a once more: still one lineage
    assert (again["id"], again["disposition"], again["support"]["verified"]) == (entry["id"], "deferred", 3)
    assert entry["id"] in second.refused  # no window left
    assert CAREFUL["issue"] not in live.dumps()


def test_a_refused_add_takes_its_update_and_its_tag_with_it(main_run: Any) -> None:
    gate, live, *_ = main_run
    entry = _proposal_of(gate.windows[0], RULE["issue"])
    assert entry["disposition"] == "rejected"
    assert [c for c in reason_codes(entry) if c.startswith("instruction.duplicate")]
    # Replayed with the ids the staged copies gave, task-c's UPDATE and TAG of its "context-00002"
    # would land on "Check the sum.", which task-a's staged copy also called "context-00002".
    texts = _texts(live)
    assert sorted(texts.values()) == sorted([(RULE["issue"], RULE["insight"]), (CHECK["issue"], CHECK["insight"])])
    assert "Read the task carefully." not in live.dumps()
    counts = {s.id: s.helpful_count for s in live.skills()}
    assert counts == {"context-00001": 1, gate.windows[0].written[0]: 0}  # task-b's TAG of the live rule only


def test_the_live_skillbook_never_holds_an_edit_ranking_did_not_select(main_run: Any) -> None:
    gate, _, _, snapshots, _ = main_run
    first, second = gate.windows
    before = canon(first.bundle.document["memory"])
    assert snapshots.taken == [before] * 3 + [_permitted(first)] * 3  # after each sample; window 1 closed at the 4th
    assert canon(gate.memory()) == _permitted(second)


def test_a_second_run_gives_the_same_skillbook_byte_for_byte(main_run: Any) -> None:
    gate, live, *_ = main_run
    again, live_again, *_ = run(QUESTIONS[:6])
    assert _without_clock(live_again.dumps()) == _without_clock(live.dumps())
    assert canon(again.memory()) == canon(gate.memory())
    assert [w.bundle.canonical for w in again.windows] == [w.bundle.canonical for w in gate.windows]
    assert [canon(w.report) for w in again.windows] == [canon(w.report) for w in gate.windows]


def _without_clock(dumped: str) -> bytes:
    """The skillbook without ``updated_at``, which ACE itself stamps from the clock whenever the
    agent uses a skill (``Skillbook.mark_used``, in its AgentStep) or a TAG lands."""
    book = json.loads(dumped)
    for skill in book["skills"].values():
        del skill["updated_at"]
    return canon(book)


def test_the_notes_reach_the_skill_managers_next_prompt_and_a_deferral_is_told_to_retry(main_run: Any) -> None:
    gate, _, model, *_ = main_run
    assert PROMPT_HEADING not in "".join(model.prompts[:4])  # nothing decided before window 1 closed
    # The twin of a live skill is already in memory (the skillbook holds its text), kept before the retry.
    duplicate, deferred = gate.notes()
    assert deferred.line.startswith('retry: add "context.') and "once the lesson recurs in 1 more" in deferred.line
    assert duplicate.line.startswith('already in memory: add "context.')
    assert "memory holds it already" in duplicate.line
    assert all(duplicate.line in prompt for prompt in model.prompts[4:])
    assert not any("do not re-propose" in prompt for prompt in model.prompts)


def test_a_deferred_edit_carried_over_is_selected_when_the_next_window_brings_a_second_lineage() -> None:
    gate, live, *_ = run(["task-a: 2 + 3, again", "task-e: 1 + 1"], window=1)
    first, second = gate.windows
    (pending,) = first.report["proposals"]
    assert (pending["disposition"], first.carried) == ("deferred", (pending["id"],))
    (entry,) = second.report["proposals"]
    assert (entry["id"], entry["disposition"], entry["support"]["lineages"]) == (pending["id"], "selected", 2)
    assert _texts(live)[second.written[0]] == (CAREFUL["issue"], CAREFUL["insight"])


def test_every_window_report_goes_to_the_ledger(tmp_path: Path) -> None:
    ledger = tmp_path / "admissions.db"
    gate, *_ = run(QUESTIONS[:6], ledger=ledger)
    with Ledger.open(ledger, read_only=True) as opened:
        decided = [(d.run, d.proposal, d.disposition) for d in opened.decisions()]
    assert decided == [
        (w.report["run"], e["id"], e["disposition"]) for w in gate.windows for e in w.report["proposals"]
    ]
    # One voice: the gate's notes are the ledger's, and the same as a gate without a ledger gives.
    assert gate.notes() == read_notes(ledger, memory=gate.memory())
    alone, *_ = run(QUESTIONS[:6])
    # The same notes; the ledger's retry notes add what its pool keeps, after the same words.
    assert len(alone.notes()) == len(gate.notes())
    assert all(n.line.startswith(a.line) for a, n in zip(alone.notes(), gate.notes(), strict=True))
    assert len(gate.notes(Budget(notes=1))) == 1


def test_a_window_the_ledger_cannot_record_writes_nothing_to_the_live_skillbook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ace import ACE, Pipeline, SkillManager
    from pydantic_ai.models.function import FunctionModel

    from curator_io.errors import ConfigError
    from ranking.integrations import ace as gated
    from tests.ranking.integrations.ace_support import (
        ScriptedAgent,
        ScriptedReflector,
        ScriptedSkillManagerModel,
        SimpleEnvironment,
        observe,
        samples,
        seeded,
    )

    def unwritable(*_: Any) -> None:
        raise ConfigError("usage.unwritable", "cannot write the ledger: disk I/O error")

    monkeypatch.setattr(Ledger, "add_produced", unwritable)  # the disk fills as the window closes
    live = seeded()
    before = {s.id for s in live.skills(include_invalid=True)}
    steps = ACE.build_steps(
        agent=ScriptedAgent(),
        reflector=ScriptedReflector(),
        skill_manager=SkillManager(FunctionModel(ScriptedSkillManagerModel())),
        environment=SimpleEnvironment(),
        skillbook=live,
    )
    gate = gated.EvidenceGate(live, observe, window=4, repository="toy/arithmetic", ledger=tmp_path / "a.db")
    results = ACE(pipeline=Pipeline(gate.steps(steps)), skillbook=live).run(samples(QUESTIONS[:4]))

    assert [r.error is None for r in results] == [True, True, True, False]  # the window closed at the 4th
    assert "usage.unwritable" in str(results[3].error)
    assert (gate.version, gate.windows) == (0, [])
    assert {s.id for s in live.skills(include_invalid=True)} == before


def test_the_gate_refuses_steps_it_cannot_gate() -> None:
    from ace import ACE, DeduplicationManager, Skillbook, SkillManager
    from pydantic_ai.models.test import TestModel

    from ranking.integrations.ace import EvidenceGate
    from tests.ranking.integrations.ace_support import ScriptedAgent, ScriptedReflector, observe, seeded

    live = seeded()
    roles = {"agent": ScriptedAgent(), "reflector": ScriptedReflector(), "skill_manager": SkillManager(TestModel())}
    gate = EvidenceGate(live, observe)
    with pytest.raises(ValueError, match=r"^the UpdateStep writes another skillbook than the gate.s"):
        gate.steps(ACE.build_steps(**roles, skillbook=Skillbook()))
    with pytest.raises(ValueError, match=r"^DeduplicateStep writes the live skillbook ungated"):
        gate.steps(ACE.build_steps(**roles, skillbook=live, dedup_manager=DeduplicationManager()))


def test_the_bundle_of_a_window_is_sealed_and_every_trace_complete(main_run: Any) -> None:
    gate, *_ = main_run
    document = parse_json(gate.windows[0].bundle.canonical)
    assert {t["completeness"] for t in document["traces"]} == {"complete"}
    assert [t["lineage"] for t in document["traces"]] == ["task-a", "task-b", "task-a", "task-c"]
    assert {e["signal"] for e in document["evidence"]} == {"deterministic"}


def test_docs_api_lists_every_name_of_the_integration_with_the_parameters_it_takes() -> None:
    """tests/docs/test_api_doc.py's checks, for the one module it cannot import on Python 3.11."""
    import importlib
    import inspect

    from tests.docs.test_api_doc import ENTRIES, _parameter_names, _resolve

    module = "ranking.integrations.ace"
    listed = {name: written for name, written in ENTRIES if name.startswith(module + ".")}
    exported = {f"{module}.{name}" for name in importlib.import_module(module).__all__}
    assert exported - listed.keys() == set()
    for name, written in listed.items():
        parameters = tuple(p for p in inspect.signature(_resolve(name)).parameters if p != "self")
        assert written is None or _parameter_names(written) == parameters, name


def test_a_flush_with_no_new_sample_ranks_nothing_again(main_run: Any) -> None:
    gate, *_ = main_run
    windows = list(gate.windows)
    assert gate.flush() is None
    assert gate.windows == windows
