"""The curator's notes (ranking.ledger.notes.composing, docs/ledger.md "Notes for the curator"): what
the gate tells the model after it decided, by what became of each edit last."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from curator_io import canon, digest
from curator_io.catalogue import DISPOSITION_OF, FINAL_DISPOSITIONS
from curator_io.config import DEFAULT_CONFIG
from curator_io.errors import InputError
from ranking.ledger import read_notes
from ranking.ledger.fate import ALREADY_IN_MEMORY, DO_NOT_REPEAT, KINDS, RETRY, Decisions, Facts
from ranking.ledger.notes.composing import PROMPT_HEADING, curator_notes, prompt_block, standing_mark, standings
from ranking.ledger.notes.current_memory import Resemblance
from ranking.ledger.notes.model import Budget, Note, NoteReason, Notes
from ranking.ledger.notes.reading import notes_from_json
from ranking.ledger.notes.wording import one_line
from ranking.ledger.records import DecisionRow

SCOPE = {"level": "repository", "repository": "acme/api"}


def _edit(*operations: dict[str, str]) -> dict[str, Any]:
    return {"scope": SCOPE, "operations": sorted(operations, key=lambda op: op["key"])}


ADD_SLEEP = _edit({"action": "add", "key": "test.sleep", "text": "Sleep one second before asserting on orders."})
ADD_MAKE = _edit({"action": "add", "key": "test.command", "text": "Run the tests with make test."})
ADD_PYTEST = _edit({"action": "add", "key": "test.command", "text": "Run the tests with pytest."})
EDITS = {digest(e): e for e in (ADD_SLEEP, ADD_MAKE, ADD_PYTEST)}
SLEEP, MAKE, PYTEST = (digest(e) for e in (ADD_SLEEP, ADD_MAKE, ADD_PYTEST))


def _decision(
    report: str,
    position: int,
    proposal: str,
    fingerprint: str | None,
    disposition: str,
    *reasons: tuple[str, str | None],
    lesson: str = "les-1",
    score: float | None = None,
    superseded_by: str | None = None,
) -> DecisionRow:
    listed = [{"code": c, "subject": s} for c, s in reasons]
    return DecisionRow(
        report,
        position,
        f"run-{report}",
        proposal,
        fingerprint,
        lesson,
        _validation(reasons),
        disposition,
        json.dumps(listed, sort_keys=True, separators=(",", ":")),
        score,
        superseded_by,
        f"rationale of {proposal}",
    )


def _validation(reasons: Sequence[tuple[str, str | None]]) -> str:
    """SPEC §3: the strongest disposition any reason implies."""
    implied = {DISPOSITION_OF.get(code, "accepted") for code, _ in reasons}
    return next((d for d in ("rejected", "quarantined", "deferred") if d in implied), "accepted")


def _history(
    decisions: Sequence[DecisionRow],
    edits: Mapping[str, Any] | None = None,
    support: Mapping[str, Any] | None = None,
    uncommitted: set[tuple[str, str]] | None = None,
) -> Decisions:
    """Decisions, the edits behind them, and an acceptance test that committed none of ``uncommitted``."""
    known = EDITS if edits is None else edits
    return Decisions(
        list(decisions),
        [(report, fingerprint, "below-threshold") for report, fingerprint in sorted(uncommitted or set())],
        edit=known.get,
        facts=lambda decision: Facts(support, DEFAULT_CONFIG.to_json()),
    )


DEFERRED = ("support.insufficient_lineages", None)
ONE_OF_TWO = {"lineages": 1, "required": 2, "strength": 12, "contradiction": 0}


def test_a_deferred_edit_is_told_to_retry_when_another_task_shows_it_never_not_to_repropose_it() -> None:
    history = _history([_decision("r1", 0, "p-sleep", SLEEP, "deferred", DEFERRED)], support=ONE_OF_TWO)

    (note,) = curator_notes(history)

    assert note.kind == RETRY
    assert note.line == (
        'retry: add "test.sleep": "Sleep one second before asserting on orders." in acme/api — deferred in run-r1. '
        "Its verified support comes from fewer independent lineages (root tasks) than required; it is deferred "
        "until the lesson recurs. What to do: Propose it again, as it is, once the lesson recurs in 1 more "
        "independent task (it has 1 of the 2 required): tasks other than those it cites, as more runs of one task "
        "count once."
    )
    assert "do not" not in note.line.lower()


def test_an_unselected_edit_is_told_to_retry_as_it_is() -> None:
    history = _history([_decision("r1", 0, "p-sleep", SLEEP, "unselected", ("rank.limit", None), score=70)])

    (note,) = curator_notes(history)

    assert note.kind == RETRY
    assert "What to do: Propose it again as it is: it passed every rule" in note.line


def test_a_rejected_edit_is_told_not_to_repeat_it_with_the_reason_as_a_sentence_and_its_remedy() -> None:
    history = _history([_decision("r1", 0, "p-make", MAKE, "rejected", ("closure.key_exists", "test.command"))])

    (note,) = curator_notes(history)

    assert note.kind == DO_NOT_REPEAT
    assert note.line.startswith('do not repeat as it is: add "test.command": "Run the tests with make test."')
    assert "It adds instruction test.command, but that key already exists" in note.line
    assert "What to do: To change test.command, use replace on it with its current digest" in note.line
    (reason,) = note.reasons
    assert (reason.code, reason.subject) == ("closure.key_exists", "test.command")
    assert reason.remedy is not None and reason.remedy.startswith("To change test.command, use replace")


def test_a_stale_edit_is_told_which_memory_version_to_reread_when_the_host_knows_it() -> None:
    stale = _decision("r1", 0, "p-make", MAKE, "rejected", ("closure.stale_memory", None))

    (unknown,) = curator_notes(_history([stale]))
    (known,) = curator_notes(_history([stale]), memory_version=8)

    assert "Re-read the memory and write the edit against it" in unknown.line
    assert "Re-read the memory (now version 8) and write the edit against it" in known.line


def test_a_quarantined_edit_is_told_not_to_repeat_it_until_sound_evidence_shows_it() -> None:
    history = _history([_decision("r1", 0, "p-sleep", SLEEP, "quarantined", ("support.quarantined", None))])

    (note,) = curator_notes(history)

    assert note.kind == DO_NOT_REPEAT
    assert "evidence from sound materializations" in note.line


def test_an_edit_that_lost_a_conflict_names_the_edit_that_won() -> None:
    history = _history(
        [
            _decision("r1", 0, "p-make", MAKE, "selected", ("rank.selected", None), score=81),
            _decision(
                "r1", 1, "p-pytest", PYTEST, "superseded", ("rank.conflict", "p-make"), score=60, superseded_by="p-make"
            ),
        ]
    )

    (note,) = curator_notes(history)

    assert (note.kind, note.fingerprint) == (DO_NOT_REPEAT, PYTEST)
    assert note.winner == 'add "test.command": "Run the tests with make test." in acme/api'
    assert f"The edit that won: {note.winner}." in note.line


def test_a_duplicate_of_a_selected_edit_gets_no_note_so_the_curator_keeps_its_current_instruction() -> None:
    history = _history(
        [
            _decision("r1", 0, "p-make", MAKE, "selected", ("rank.selected", None), score=81),
            _decision(
                "r1", 1, "p-make-2", MAKE, "superseded", ("rank.duplicate", "p-make"), score=81, superseded_by="p-make"
            ),
        ]
    )

    assert curator_notes(history) == ()


def test_an_edit_selected_later_leaves_the_notes() -> None:
    history = _history(
        [
            _decision("r1", 0, "p-sleep", SLEEP, "deferred", DEFERRED),
            _decision("r2", 0, "p-sleep", SLEEP, "selected", ("rank.selected", None), score=70),
        ]
    )

    assert curator_notes(history) == ()
    (standing,) = standings(history)
    assert standing.kind is None and standing.admitted is not None and standing.admitted.report == "r2"


def test_an_edit_admitted_then_proposed_again_is_already_in_memory() -> None:
    history = _history(
        [
            _decision("r1", 0, "p-make", MAKE, "selected", ("rank.selected", None), score=81),
            _decision("r2", 0, "p-make-again", MAKE, "rejected", ("closure.key_exists", "test.command")),
        ]
    )

    (note,) = curator_notes(history)

    assert (note.kind, note.admitted, note.reasons) == (ALREADY_IN_MEMORY, "run-r1", ())
    assert note.line == (
        'already in memory: add "test.command": "Run the tests with make test." in acme/api — admitted in run-r1, '
        "then proposed again in run-r2. Do not propose it again; to change it, replace its key against the "
        "current memory."
    )


def test_a_selected_edit_the_acceptance_test_did_not_commit_is_not_in_memory() -> None:
    decisions = [
        _decision("r1", 0, "p-make", MAKE, "selected", ("rank.selected", None), score=81),
        _decision("r2", 0, "p-make-again", MAKE, "deferred", DEFERRED),
    ]

    (note,) = curator_notes(_history(decisions, uncommitted={("r1", MAKE)}))

    assert note.kind == RETRY


def test_a_400_operation_edit_makes_a_note_within_its_byte_limit_that_counts_what_it_leaves_out() -> None:
    big = _edit(*({"action": "add", "key": f"k.{i:03}", "text": "x" * 400} for i in range(400)))
    history = _history(
        [_decision("r1", 0, "p-big", digest(big), "rejected", ("delta.oversized", None))], {digest(big): big}
    )

    (note,) = curator_notes(history)

    assert len(note.line.encode()) <= Budget().note_bytes
    assert note.edit is not None and note.edit.endswith("more operations in acme/api")
    assert "Its edit is too large: more than 6 operations" in note.line


def test_the_budget_keeps_the_most_recent_notes_per_lesson_in_number_and_in_bytes() -> None:
    edits = {}
    decisions = []
    for i in range(12):
        edit = _edit({"action": "add", "key": f"k.{i:02}", "text": f"Instruction {i}."})
        edits[digest(edit)] = edit
        lesson = "les-a" if i < 6 else f"les-{i}"
        decisions.append(
            _decision(f"r{i:02}", 0, f"p-{i}", digest(edit), "rejected", ("scope.mismatch", None), lesson=lesson)
        )
    history = _history(decisions, edits)

    notes = curator_notes(history)
    per_lesson = [n.proposal for n in notes if n.lesson == "les-a"]

    assert [n.proposal for n in notes][:6] == ["p-11", "p-10", "p-9", "p-8", "p-7", "p-6"]
    assert per_lesson == ["p-5", "p-4", "p-3"]  # the last 3 of one lesson
    assert len(notes) == 9
    assert len(curator_notes(history, budget=Budget(notes=4))) == 4
    tight = curator_notes(history, budget=Budget(prompt_bytes=700))
    assert sum(len(n.line.encode()) + 1 for n in tight) <= 700 < sum(len(n.line.encode()) + 1 for n in notes[:4])
    unbounded = Budget(per_lesson=None, notes=None, prompt_bytes=None)
    assert curator_notes(history, lesson="les-a", budget=unbounded) == tuple(
        n for n in curator_notes(history, budget=unbounded) if n.lesson == "les-a"
    )


@pytest.mark.parametrize(
    "given",
    [{"notes": 0}, {"per_lesson": -1}, {"note_bytes": 79}, {"prompt_bytes": 0}, {"notes": 2.0}],
)
def test_a_budget_out_of_range_is_refused_when_made(given: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(given))):
        Budget(**given)


def test_notes_name_an_unknown_edit_by_its_proposal_and_rationale() -> None:
    history = _history([_decision("r1", 0, "p-sleep", SLEEP, "rejected", ("scope.mismatch", None))], edits={})

    (note,) = curator_notes(history)

    assert note.edit is None
    assert note.line.startswith('do not repeat as it is: proposal p-sleep ("rationale of p-sleep") — rejected')


def test_the_prompt_block_is_the_heading_and_a_line_a_note() -> None:
    history = _history([_decision("r1", 0, "p-make", MAKE, "rejected", ("closure.key_exists", "test.command"))])
    notes = curator_notes(history)

    assert prompt_block(notes) == "\n".join([PROMPT_HEADING, notes[0].line])
    assert prompt_block(()) == ""


def test_the_mark_says_what_the_ledger_knew_of_an_edit_before() -> None:
    history = _history(
        [
            _decision("r1", 0, "p-sleep", SLEEP, "deferred", DEFERRED),
            _decision("r1", 1, "p-make", MAKE, "rejected", ("closure.key_exists", "test.command")),
            _decision("r2", 0, "p-sleep-2", SLEEP, "deferred", DEFERRED),
        ]
    )

    marks = {s.fingerprint: standing_mark(s, "p-sleep") for s in standings(history, excluding="r2")}

    assert marks == {
        SLEEP: "deferred 1× before: support.insufficient_lineages",
        MAKE: "refused 1× before as p-make: closure.key_exists",
    }


def test_notes_are_the_same_whatever_order_equal_decisions_are_written_in() -> None:
    one = _decision("r1", 0, "p-make", MAKE, "rejected", ("closure.key_exists", "test.command"))
    two = _decision("r1", 1, "p-sleep", SLEEP, "deferred", DEFERRED)

    assert curator_notes(_history([one, two])) == curator_notes(_history([one, two]))
    # A do-not-repeat note is kept before a retry note, however recent (docs/ledger.md, "Order and budget").
    assert [n.proposal for n in curator_notes(_history([one, two]))] == ["p-make", "p-sleep"]


def test_a_rejected_edit_short_of_lineages_too_is_not_told_to_propose_it_again_as_it_is() -> None:
    reasons = (("support.counterevidence", None), DEFERRED)
    history = _history([_decision("r1", 0, "p-sleep", SLEEP, "rejected", *reasons)], support=ONE_OF_TWO)

    (note,) = curator_notes(history)

    assert [r.code for r in note.reasons] == ["support.counterevidence"]
    assert "as it is" not in note.line.split("What to do:")[1]


# -- the JSON form, read back (docs/ledger.md, "JSON") ----------------------------------------

_LINE = st.text(min_size=1).map(lambda t: one_line(t, 10**9)).filter(bool)  # a note's line is one line
_OPTIONAL = st.none() | st.text()
_REASON = st.builds(NoteReason, st.text(), _OPTIONAL, st.text(), _OPTIONAL)
_NOTE = st.builds(
    Note,
    kind=st.sampled_from([k.name for k in KINDS]),
    fingerprint=st.binary(min_size=32, max_size=32).map(lambda b: "sha256:" + b.hex()),
    edit=_OPTIONAL,
    proposal=st.text(),
    run=st.text(),
    lesson=_OPTIONAL,
    disposition=st.sampled_from(FINAL_DISPOSITIONS),
    times=st.integers(0, 2**40),
    reasons=st.lists(_REASON, max_size=3).map(tuple),
    more_reasons=st.integers(0, 2**40),
    winner=_OPTIONAL,
    admitted=_OPTIONAL,
    resembles=st.lists(
        st.builds(
            Resemblance,
            st.text(),
            st.text(),
            st.text(),
            st.floats(0, 100),
            st.lists(st.text(), max_size=3).map(tuple),
            st.text(),
            st.sampled_from(["restates", "contradicts"]),
            _OPTIONAL,
        ),
        max_size=2,
    ).map(tuple),
    line=_LINE,
    carried=st.none() | st.booleans(),
)


@given(
    st.lists(_NOTE, max_size=4),
    st.fixed_dictionaries({k.name: st.integers(0, 2**40) for k in KINDS}),
)
def test_notes_written_as_json_read_back_to_the_same_notes(notes: list[Note], left_out: dict[str, int]) -> None:
    written = Notes(notes, left_out)

    read = notes_from_json(canon(written.to_json()))

    assert read == written and read.left_out == written.left_out


_GOOD = json.loads(
    canon(
        curator_notes(
            _history([_decision("r1", 0, "p-make", MAKE, "rejected", ("closure.key_exists", "test.command"))])
        ).to_json()
    )
)
_TOP = [
    (lambda n: ["not", "an object"], "", "not the notes (an object)"),
    (lambda n: {"notes": n["notes"]}, "", "the notes without 'left_out'"),
    (lambda n: {**n, "notes": {}}, "/notes", "'notes' is not an array"),
    (lambda n: {**n, "left_out": {**n["left_out"], "retry": -1}}, "/left_out/retry", "'retry' is not a whole number"),
    (lambda n: {**n, "left_out": {**n["left_out"], "never": 1}}, "/left_out/never", "the count of notes left out has"),
    (lambda n: {**n, "extra": 1}, "/extra", "the notes has no member 'extra'"),
]


@pytest.mark.parametrize(
    ("change", "pointer", "detail"),
    [
        (lambda n: [7], "/0", "not a note (an object)"),
        (lambda n: [{k: v for k, v in n[0].items() if k != "kind"}], "/0", "a note without 'kind'"),
        (lambda n: [{**n[0], "kind": "never"}], "/0/kind", "'kind' is not one of contradicts-memory, do-not-repeat"),
        (lambda n: [{**n[0], "fingerprint": "sha256:xyz"}], "/0/fingerprint", "'fingerprint' is not a DIGEST"),
        (lambda n: [{**n[0], "edit": 3}], "/0/edit", "'edit' is not a string or null"),
        (lambda n: [{**n[0], "disposition": "accepted"}], "/0/disposition", "'disposition' is not a final"),
        (lambda n: [{**n[0], "times": -1}], "/0/times", "'times' is not a whole number of 0 or more"),
        (lambda n: [{**n[0], "times": True}], "/0/times", "'times' is not a whole number of 0 or more"),
        (lambda n: [{**n[0], "reasons": {}}], "/0/reasons", "'reasons' is not an array"),
        (lambda n: [{**n[0], "reasons": [{"code": "x"}]}], "/0/reasons/0", "a reason without 'subject'"),
        (lambda n: [{**n[0], "more_reasons": -1}], "/0/more_reasons", "'more_reasons' is not a whole number of 0"),
        (lambda n: [{**n[0], "text": "two\nlines"}], "/0/text", "'text' is not one line of text"),
        (lambda n: [{**n[0], "text": ""}], "/0/text", "'text' is not one line of text"),
        (lambda n: [{**n[0], "signer": None}], "/0/signer", "a note has no member 'signer'"),
    ],
)
def test_json_that_is_not_notes_is_refused_naming_the_place(change, pointer: str, detail: str) -> None:
    with pytest.raises(InputError) as refused:
        notes_from_json(canon({**_GOOD, "notes": change(_GOOD["notes"])}))

    assert (refused.value.code, refused.value.pointer) == ("notes.invalid", "/notes" + pointer)
    assert refused.value.detail.startswith(detail)


@pytest.mark.parametrize(("change", "pointer", "detail"), _TOP)
def test_json_whose_outer_object_is_not_the_notes_is_refused_naming_the_place(
    change, pointer: str, detail: str
) -> None:
    with pytest.raises(InputError) as refused:
        notes_from_json(canon(change(_GOOD)))

    assert (refused.value.code, refused.value.pointer) == ("notes.invalid", pointer)
    assert refused.value.detail.startswith(detail)


def test_bytes_that_are_not_json_are_malformed_json() -> None:
    with pytest.raises(InputError) as refused:
        notes_from_json(b'[{"kind": "retry", "kind": "retry"}]')

    assert refused.value.code == "input.malformed_json"


# -- look-alikes under other keys (issue 50) ----------------------------------------------------


def _scenario_ledger(tmp_path: Path) -> Path:
    """The curator scenario's run recorded with its bundle, as ``score --ledger`` records it."""
    from curator_io import load_bundle
    from ranking.ledger import Ledger
    from ranking.ledger.curator import record_run
    from ranking.pipeline import rank
    from tests.curator_scenario import scenario

    sealed = scenario()
    ledger = tmp_path / "l.db"
    with Ledger.open(ledger) as opened:
        record_run(opened, rank(load_bundle(sealed.canonical)), bundle=sealed.canonical)
    return ledger


def test_the_curators_notes_name_both_look_alikes_of_the_scenario_and_how_to_fix_them(tmp_path: Path) -> None:
    # The ledger knows the current memory itself: the one the run was ranked against with its
    # selection applied, which is what apply writes (docs/ledger.md).
    lines = [n.line for n in read_notes(_scenario_ledger(tmp_path))]

    # test.runner says the opposite of test.command: both are in memory, and one must go, alone (a
    # replace of one with the other's text and a remove in one proposal is instruction.duplicate).
    assert (
        'contradicts memory: add "test.runner": "Never run bare pytest; use make test." in acme/shop — '
        "admitted in run-2026-12-08. It contradicts 'test.command' (\"Run the tests with pytest.\"; shared words: "
        "pytest, test): memory holds both: remove the one the evidence does not support ('test.runner' or "
        "'test.command'), in a proposal of its own." in lines
    )
    (deps,) = [line for line in lines if "deps.install" in line]
    assert deps.startswith("resembles another instruction: ")
    assert "It resembles 'deps.setup'" in deps
    assert "one instruction, one key: remove 'deps.setup' or 'deps.install', in a proposal of its own." in deps


def test_the_json_of_a_look_alike_note_on_an_admitted_edit_reads_back(tmp_path: Path) -> None:
    notes = read_notes(_scenario_ledger(tmp_path))

    read = notes_from_json(canon(notes.to_json()))
    # Admitted last and decided no time since: its times is 0, which the reader refused (notes.invalid).
    assert [n.times for n in read if n.kind == "look-alike"] == [0]
    assert read == notes and read.left_out == notes.left_out


def test_a_refused_add_that_resembles_the_memory_is_told_to_replace_that_key_instead() -> None:
    memory = {"version": 5, "instructions": [{"key": "test.command", "text": "Run the tests with make test."}]}
    runner = _edit({"action": "add", "key": "test.runner", "text": "Run the whole test suite with make test."})
    decision = _decision("r1", 0, "p-runner", digest(runner), "deferred", DEFERRED)

    (note,) = curator_notes(_history([decision], {digest(runner): runner}), memory=memory)

    (found,) = note.resembles
    assert (found.key, found.other, found.relation) == ("test.runner", "test.command", "restates")
    assert note.line.endswith(
        "It resembles 'test.command' (\"Run the tests with make test.\"; shared words: test, make): if it updates "
        "'test.command', replace 'test.command' with this text instead of adding 'test.runner'."
    )


def test_a_refused_add_that_resembles_a_rule_of_the_prose_names_its_line_and_sends_it_to_people() -> None:
    memory = {"version": 5, "instructions": []}
    runner = _edit({"action": "add", "key": "test.runner", "text": "Run the whole test suite with make test."})
    decision = _decision("r1", 0, "p-runner", digest(runner), "deferred", DEFERRED)
    edits = {digest(runner): runner}

    (note,) = curator_notes(_history([decision], edits), memory=memory, prose=((12, "Run the tests with make test."),))

    (found,) = note.resembles
    assert (found.key, found.other, found.origin) == ("test.runner", "prose line 12", "user")
    assert note.line.endswith(
        'It resembles prose line 12 ("Run the tests with make test."; shared words: test, make): an agent '
        "reads both: if it updates that rule, say so in the lesson for people to change the prose; if it says the "
        "same, leave it out."
    )


def test_an_add_that_contradicts_a_rule_of_the_prose_is_never_told_to_overwrite_it() -> None:
    memory = {"version": 5, "instructions": []}
    runner = _edit({"action": "add", "key": "test.runner", "text": "Never run bare pytest; use make test."})
    decision = _decision("r1", 0, "p-runner", digest(runner), "deferred", DEFERRED)
    prose = ((12, "Run bare pytest for the tests."),)

    (note,) = curator_notes(_history([decision], {digest(runner): runner}), memory=memory, prose=prose)

    assert note.kind == "contradicts-memory"
    assert note.line.endswith(
        'It contradicts prose line 12 ("Run bare pytest for the tests.", a rule a person gave; shared words: bare, '
        "pytest, test): the prose is the people's: do not add a rule against it; if the evidence shows it is "
        "wrong, say so in the lesson for people to change the prose."
    )


# -- what the loop with a curator that remembers nothing found (issue 53, bench/loop.py) ----------

RUNNER = _edit({"action": "add", "key": "test.runner", "text": "Run the whole test suite with make test."})
RESTATED = {"key": "test.command", "text": "Run the tests with make test.", "scope": SCOPE, "origin": "curated"}


def test_a_deferral_after_a_rejection_for_counterevidence_does_not_make_the_edit_a_retry() -> None:
    rejected = _decision("r1", 0, "p-sleep", SLEEP, "rejected", ("support.counterevidence", None))
    deferred = _decision("r2", 0, "p-sleep-again", SLEEP, "deferred", DEFERRED)

    (note,) = curator_notes(_history([rejected, deferred], support=ONE_OF_TWO))

    assert (note.kind, note.run, note.times) == (DO_NOT_REPEAT, "run-r1", 2)
    assert [r.code for r in note.reasons] == ["support.counterevidence"]
    assert note.line.startswith('do not repeat as it is: add "test.sleep"') and "retry" not in note.line


def test_an_edit_written_and_proposed_again_keeps_the_advice_on_its_look_alike() -> None:
    runner = RUNNER["operations"][0]
    memory = {"version": 4, "instructions": [RESTATED, {**runner, "scope": SCOPE, "origin": "curated"}]}
    admitted = _decision("r1", 0, "p-runner", digest(RUNNER), "selected", ("rank.selected", None))
    again = _decision("r2", 0, "p-runner-2", digest(RUNNER), "rejected", ("closure.key_exists", "test.runner"))

    (note,) = curator_notes(_history([admitted, again], {digest(RUNNER): RUNNER}), memory=memory)

    assert note.kind == ALREADY_IN_MEMORY
    assert note.line.endswith(
        "It resembles 'test.command' (\"Run the tests with make test.\"; shared words: test, make): one instruction, "
        "one key: remove 'test.command' or 'test.runner', in a proposal of its own."
    )


def test_an_edit_written_then_removed_is_not_said_to_be_in_memory_when_proposed_again() -> None:
    memory = {"version": 6, "instructions": [RESTATED]}  # test.runner was removed since it was written
    admitted = _decision("r1", 0, "p-runner", digest(RUNNER), "selected", ("rank.selected", None))
    again = _decision("r3", 0, "p-runner-2", digest(RUNNER), "deferred", DEFERRED)

    (note,) = curator_notes(_history([admitted, again], {digest(RUNNER): RUNNER}, support=ONE_OF_TWO), memory=memory)

    assert note.kind == RETRY and "already in memory" not in note.line
    assert note.line.startswith('retry: add "test.runner"') and "deferred in run-r3" in note.line
