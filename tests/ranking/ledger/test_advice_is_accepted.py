"""Every piece of advice a note gives is an edit SPEC accepts (issue 53, item 2).

A note is an instruction to a model that remembers nothing else. For each kind of note and each
remedy that asks for an edit, a curator follows it literally (the keys the note names, the text
its edit had, the same evidence, written against the current memory) and the edit it makes is
ranked: it is selected, never refused for the advice's own shape (``instruction.duplicate``,
``delta.noop``, ``closure.*``). The memory each day is the one SPEC §8 permits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from curator_io import Add, BundleBuilder, Remove, Replace, Scope
from curator_io.builder import Operation
from curator_io.config import DEFAULT_CONFIG
from ranking.checking.permitted import permitted_memory
from ranking.ledger.curator import Runs
from ranking.ledger.fate import ALREADY_IN_MEMORY, CONTRADICTS, DO_NOT_REPEAT, LOOKALIKE, RETRY
from ranking.ledger.notes.composing import curator_notes
from ranking.ledger.notes.model import Budget, Note
from ranking.ledger.records import edits_of
from ranking.pipeline import Result, rank
from validator import proposals_of
from validator.proposal import edit_of

API = Scope("repository", "acme/api")
USER_RULE = "ONLY use uv, NEVER pip."
PIP = "Install dependencies with pip install -e . instead of uv."
MEMORY = {
    "deps.tool": (USER_RULE, "user"),
    "test.command": ("Run the tests with make test.", "curated"),
    "style.format": ("Format with ruff.", "curated"),
}


class Day:
    """One run: a bundle of today's proposals against the memory, ranked and kept in ``runs``."""

    def __init__(self, runs: Runs, memory: Mapping[str, Any], number: int) -> None:
        self.runs, self.memory, self.number = runs, memory, number

    def rank(
        self,
        *proposals: tuple[str, Sequence[Operation]],
        tasks: int = 2,
        signal: str = "deterministic",
        base: int | None = None,
    ) -> Result:
        """Each proposal cites ``tasks`` independent tasks of its own lesson (evidence in acme/api)."""
        b = BundleBuilder.from_memory(self.memory, curator="literal@1", frozen_at="2026-12-07T09:00:00Z")
        for n in range(tasks):
            b.materialization(f"mat-{n}", repository="acme/api", source_revision=f"rev-{self.number}-{n}")
            b.trace(f"tr-{n}", lineage=f"task-{self.number}-{n}", materialization=f"mat-{n}", steps=[{"ok": 1}])
            b.evidence(f"ev-{n}", trace=f"tr-{n}", step=0, signal=signal, observed_at="2026-12-07T08:00:00Z")
        cited = [f"ev-{n}" for n in range(tasks)]
        for pid, operations in proposals:
            b.lesson(f"les-{pid}", text=f"What {pid} learned.", evidence=cited)
            b.propose(
                pid,
                lesson=f"les-{pid}",
                scope=API,
                confidence=0.9,
                operations=operations,
                support=cited,
                base_memory_version=base,
            )
        sealed = b.build(f"run-{self.number}")
        result = rank(sealed.bundle, DEFAULT_CONFIG)
        self.runs.add(result.report, edits_of(proposals_of(sealed.bundle).values()))
        complete = proposals_of(sealed.bundle)
        selected = [edit_of(complete[pid].scope, complete[pid].operations) for pid in result.report["selected"]]
        self.after = permitted_memory(sealed.document["memory"], selected, selected=bool(selected))
        return result


def _first_memory() -> dict[str, Any]:
    b = BundleBuilder(memory_version=3, curator="literal@1", frozen_at="2026-12-07T09:00:00Z")
    for key, (text, origin) in MEMORY.items():
        b.memory_instruction(key, text, scope=API, origin=origin)
    document = b.build("run-0").document
    return dict(document["memory"])


def _disposition(result: Result, pid: str) -> tuple[str, list[str]]:
    (entry,) = [e for e in result.report["proposals"] if e["id"] == pid]
    return entry["disposition"], [r["code"] for r in entry["reasons"]]


def _digest(memory: Mapping[str, Any], key: str) -> str:
    (found,) = [i["digest"] for i in memory["instructions"] if i["key"] == key]
    return str(found)


class Loop:
    """Days in a row, each on the memory the last permitted; notes from every report so far."""

    def __init__(self) -> None:
        self.runs = Runs()
        self.memory: Mapping[str, Any] = _first_memory()
        self.days = 0

    def day(self, *proposals: tuple[str, Sequence[Operation]], **how: Any) -> Result:
        self.days += 1
        today = Day(self.runs, self.memory, self.days)
        result = today.rank(*proposals, **how)
        self.memory = today.after
        return result

    def note(self, kind: str) -> Note:
        (found,) = [n for n in curator_notes(self.runs, memory=self.memory, budget=_NO_BOUND) if n.kind == kind]
        return found


_NO_BOUND = Budget(per_lesson=None, notes=None, prompt_bytes=None)


def _selected(result: Result, pid: str) -> None:
    disposition, codes = _disposition(result, pid)
    assert (disposition, codes) == ("selected", ["rank.selected"])


# -- remedies of do-not-repeat notes ---------------------------------------------------------


def test_a_key_that_exists_is_replaced_as_the_remedy_says_and_selected() -> None:
    loop = Loop()
    assert _disposition(loop.day(("p-fmt", [Add("style.format", "Format with ruff and black.")])), "p-fmt")[0] == (
        "rejected"
    )
    note = loop.note(DO_NOT_REPEAT)
    assert "To change style.format, use replace on it with its current digest as expected_digest" in note.line

    followed = Replace("style.format", "Format with ruff and black.", _digest(loop.memory, "style.format"))
    _selected(loop.day(("p-fmt-2", [followed])), "p-fmt-2")


def test_an_unknown_instruction_is_added_as_the_remedy_says_and_selected() -> None:
    loop = Loop()
    loop.day(("p-lint", [Replace("style.lint", "Lint with ruff.", "sha256:" + "0" * 64)]))
    note = loop.note(DO_NOT_REPEAT)
    assert "use add for a new instruction" in note.line

    _selected(loop.day(("p-lint-2", [Add("style.lint", "Lint with ruff.")])), "p-lint-2")


def test_a_stale_edit_rewritten_against_the_current_memory_is_selected() -> None:
    loop = Loop()
    stale = Replace("test.command", "Run the tests with make check.", "sha256:" + "1" * 64)
    loop.day(("p-check", [stale]), base=2)
    note = loop.note(DO_NOT_REPEAT)
    assert "Re-read test.command in the current memory (now version 3)" in note.line
    assert "with its version as base_memory_version" in note.line

    followed = Replace("test.command", "Run the tests with make check.", _digest(loop.memory, "test.command"))
    _selected(loop.day(("p-check-2", [followed])), "p-check-2")


def test_the_loser_of_a_conflict_replaces_the_key_against_the_winner_once_it_is_in_memory() -> None:
    loop = Loop()
    loop.day(
        ("p-a", [Replace("test.command", "Run the tests with make test -j4.")]),
        ("p-b", [Replace("test.command", "Run the tests with tox.")]),
    )
    note = loop.note(DO_NOT_REPEAT)
    assert (
        note.disposition == "superseded" and "once it is in memory, re-read the memory and replace the key" in note.line
    )

    followed = Replace("test.command", "Run the tests with tox.", _digest(loop.memory, "test.command"))
    _selected(loop.day((note.proposal + "-2", [followed])), note.proposal + "-2")


# -- retry -----------------------------------------------------------------------------------


def test_a_deferred_edit_proposed_again_as_it_is_with_a_new_task_is_selected() -> None:
    loop = Loop()
    edit = [Add("test.timeout", "Give each test 30 seconds.")]
    loop.day(("p-t", edit), tasks=1)
    note = loop.note(RETRY)
    assert "Propose it again, as it is, once the lesson recurs" in note.line

    _selected(loop.day(("p-t", edit), tasks=2), "p-t")


# -- look-alikes and contradictions ------------------------------------------------------------


def test_an_add_that_restates_an_instruction_replaces_that_key_as_advised_and_is_selected() -> None:
    loop = Loop()
    text = "Run the whole test suite with make test."
    loop.day(("p-runner", [Add("test.runner", text)]), tasks=1)
    note = loop.note(RETRY)
    (alike,) = note.resembles
    assert (
        alike.advice
        == "if it updates 'test.command', replace 'test.command' with this text instead of adding 'test.runner'"
    )

    _selected(loop.day(("p-runner-2", [Replace("test.command", text)])), "p-runner-2")


@pytest.mark.parametrize("removed", ["test.command", "test.runner"])
def test_an_admitted_look_alike_is_removed_alone_as_advised_and_selected(removed: str) -> None:
    loop = Loop()
    _selected(loop.day(("p-runner", [Add("test.runner", "Run the whole test suite with make test.")])), "p-runner")
    note = loop.note(LOOKALIKE)
    assert "remove 'test.command' or 'test.runner', in a proposal of its own" in note.line

    _selected(loop.day(("p-one-key", [Remove(removed)])), "p-one-key")
    assert [n for n in curator_notes(loop.runs, memory=loop.memory) if n.kind == LOOKALIKE] == []


def test_an_add_that_contradicts_a_persons_rule_is_never_advised_to_overwrite_it_without_their_evidence() -> None:
    loop = Loop()
    loop.day(("p-pip", [Add("deps.install", PIP)]), tasks=1)
    note = loop.note(CONTRADICTS)
    (found,) = note.resembles
    assert (found.other, found.relation, found.origin) == ("deps.tool", "contradicts", "user")
    assert "a person's rule is replaced only by evidence at least as strong (signal user" in found.advice

    # With a person's correction as evidence (one lineage is enough, SPEC §3.5.6), the advised replace is selected.
    _selected(loop.day(("p-pip-2", [Replace("deps.tool", PIP)]), tasks=1, signal="user"), "p-pip-2")


def test_an_admitted_contradiction_is_removed_alone_as_advised_and_selected() -> None:
    loop = Loop()
    _selected(loop.day(("p-never", [Add("style.never", "Never format with ruff.")])), "p-never")
    note = loop.note(CONTRADICTS)
    assert "memory holds both: remove the one the evidence does not support" in note.line

    _selected(loop.day(("p-drop", [Remove("style.never")])), "p-drop")


def test_an_edit_memory_already_holds_is_not_proposed_again_and_nothing_is_lost() -> None:
    loop = Loop()
    loop.day(("p-same", [Add("test.make", "Run the tests with make test.")]))
    note = loop.note(ALREADY_IN_MEMORY)
    assert "Do not propose it again" in note.line
    assert "Run the tests with make test." in [i["text"] for i in loop.memory["instructions"]]
