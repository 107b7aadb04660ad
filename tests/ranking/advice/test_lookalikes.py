"""Look-alikes across keys (issue 50): what :func:`ranking.advice.lookalikes.find_lookalikes` finds,
where it looks and where it does not, and that it is the same for any order of the bundle."""

from __future__ import annotations

import copy
from typing import Any

from curator_io import Add, BundleBuilder, Remove, Replace, Scope, canon, load_bundle
from curator_io.models import Bundle
from curator_io.sealing import seal_bundle
from ranking.advice.lookalikes import Lookalike, Place, find_lookalikes, resemblance
from tests.curator_scenario import DEPS_INSTALL, MEMORY, SHOP, TEST_RUNNER, scenario


def _pairs(found: tuple[Lookalike, ...]) -> list[tuple[str, str, str, str]]:
    return [(f.subject.where, f.subject.key, f.other.where, f.other.key) for f in found]


def _bundle(
    memory: dict[str, str],
    *proposals: tuple[str, list[Any]],
    applicable: tuple[tuple[str, str, Scope], ...] = (),
    scope: Scope = SHOP,
) -> Bundle:
    """A bundle with this memory (in acme/shop) and proposals; each proposal cites two tasks."""
    b = BundleBuilder(memory_version=1, curator="c", frozen_at="2026-12-08T09:00:00Z")
    for key, text in memory.items():
        b.memory_instruction(key, text, scope=SHOP)
    for key, text, where in applicable:
        b.applicable_instruction(key, text, scope=where)
    b.materialization("mat-0", repository="acme/shop", source_revision="r0")
    b.trace("tr-0", lineage="task-0", materialization="mat-0", steps=2)
    b.evidence("ev-0", trace="tr-0", step=1, signal="deterministic", observed_at="2026-12-08T08:00:00Z")
    b.lesson("les", text="l", evidence=["ev-0"])
    for pid, ops in proposals:
        b.propose(pid, lesson="les", scope=scope, confidence=0.5, operations=ops, support=["ev-0"])
    return b.build("run-1").bundle


def test_the_scenarios_reworded_copy_and_contradiction_are_both_found_with_their_words() -> None:
    found = find_lookalikes(scenario().bundle)
    assert found == (
        Lookalike(
            Place("proposal", "deps.install", "p-deps", "add"),
            Place("memory", "deps.setup"),
            100.0,
            ("anything", "uv", "sync", "install", "dependencies"),
            DEPS_INSTALL,
            MEMORY["deps.setup"],
            origin="curated",
        ),
        Lookalike(
            Place("proposal", "test.runner", "p-test-runner", "add"),
            Place("memory", "test.command"),
            100.0,
            ("pytest", "test"),
            TEST_RUNNER,
            MEMORY["test.command"],
            "contradicts",
            "curated",
        ),
    )
    assert found[1].advice() == (
        "do not keep both: if the evidence shows 'test.command' is wrong, replace 'test.command' with this text "
        "instead of adding 'test.runner'"
    )


def test_the_look_alikes_are_the_same_for_any_order_of_the_bundles_arrays() -> None:
    sealed = scenario()
    doc = copy.deepcopy(sealed.document)
    del doc["frozen"]
    for name in ("instructions", "materializations", "traces", "evidence", "lessons", "proposals"):
        doc[name].reverse()
    doc["memory"]["instructions"].reverse()
    shuffled = load_bundle(canon(seal_bundle(doc)))
    assert shuffled.input_digest != sealed.bundle.input_digest
    assert find_lookalikes(shuffled) == find_lookalikes(sealed.bundle)


def test_a_text_under_the_same_key_is_never_a_look_alike_spec_judges_it() -> None:
    bundle = _bundle(
        {"test.command": "Run the tests with pytest."},
        ("p-1", [Replace("test.command", "Run the tests with pytest -x.")]),
        ("p-2", [Replace("test.command", "Run the tests with pytest -q.")]),
    )
    assert find_lookalikes(bundle) == ()


def test_an_instruction_the_proposal_itself_removes_is_not_compared_a_rename_is_no_look_alike() -> None:
    bundle = _bundle(
        {"test.command": "Run the tests with pytest."},
        ("p-rename", [Remove("test.command"), Add("test.runner", "Run the tests with pytest.")]),
    )
    assert find_lookalikes(bundle) == ()


def test_another_proposals_text_under_another_key_is_a_look_alike_both_ways() -> None:
    bundle = _bundle(
        {},
        ("p-1", [Add("deps.install", "Install the dependencies with uv sync.")]),
        ("p-2", [Add("deps.sync", "Use uv sync to install dependencies.")]),
    )
    assert _pairs(find_lookalikes(bundle)) == [
        ("proposal", "deps.install", "proposal", "deps.sync"),
        ("proposal", "deps.sync", "proposal", "deps.install"),
    ]
    assert find_lookalikes(bundle)[0].advice() == "p-2 proposes 'deps.sync' too: one instruction, one key"


def test_an_applicable_instruction_counts_only_where_its_scope_contains_the_proposals_as_in_spec_3_4() -> None:
    text = "Install the dependencies with uv sync."
    inside = ("repo.deps", "Dependencies come from uv sync.", Scope("repository", "acme/shop"))
    elsewhere = ("web.deps", "Dependencies are installed with uv sync.", Scope("repository", "acme/web"))
    everywhere = ("user.deps", "Always install dependencies with uv sync.", Scope("global"))
    bundle = _bundle({}, ("p-1", [Add("deps.install", text)]), applicable=(inside, elsewhere, everywhere))
    found = find_lookalikes(bundle)
    assert _pairs(found) == [  # the closest first
        ("proposal", "deps.install", "instructions", "user.deps"),
        ("proposal", "deps.install", "instructions", "repo.deps"),
    ]
    assert found[0].score > found[1].score


def test_unrelated_instructions_that_share_a_word_or_two_are_not_look_alikes() -> None:
    bundle = _bundle(
        {"style.lint": "Run ruff before committing.", "test.command": "Run the tests with make test."},
        ("p-1", [Add("lint.make", "Run the linter with make lint.")]),
        ("p-2", [Add("test.before-commit", "Run the tests before committing.")]),
    )
    assert find_lookalikes(bundle) == ()


def test_only_the_proposals_asked_for_are_subjects_compared_with_everything_else() -> None:
    bundle = scenario().bundle
    found = find_lookalikes(bundle, proposals={"p-test-runner"})
    assert _pairs(found) == [("proposal", "test.runner", "memory", "test.command")]
    assert find_lookalikes(bundle, proposals=()) == ()


def test_with_the_memory_written_only_what_the_write_adds_or_changes_is_compared() -> None:
    bundle = scenario().bundle
    kept = [{"key": k, "text": t, "scope": SHOP.to_json()} for k, t in MEMORY.items()]
    written = {
        "version": 5,
        "instructions": [
            *kept,
            {"key": "test.runner", "text": TEST_RUNNER, "scope": SHOP.to_json()},
            {"key": "deps.install", "text": 7},  # not a text: the gate's findings are about it, not the advice
        ],
    }
    found = find_lookalikes(bundle, written=written)
    assert _pairs(found) == [("memory-after", "test.runner", "memory-after", "test.command")]
    assert found[0].words == ("pytest", "test")


def test_a_replace_that_restates_another_instruction_says_to_replace_that_one_instead() -> None:
    # The advice a curator's note gives for the same edit (issue 56): an edit SPEC accepts.
    bundle = _bundle(
        {"test.command": "Run the tests with pytest.", "test.fast": "Run the quick tests first."},
        ("p-1", [Replace("test.fast", "Run the whole test suite with pytest.")]),
    )
    (found,) = find_lookalikes(bundle)
    assert (found.subject.key, found.other.key, found.relation) == ("test.fast", "test.command", "restates")
    assert found.advice() == (
        "if it updates 'test.command', replace 'test.command' with this text instead of replacing 'test.fast'"
    )


def test_a_replace_that_contradicts_another_instruction_says_not_to_keep_both() -> None:
    bundle = _bundle(
        {"test.command": "Run the tests with pytest.", "test.fast": "Run the quick tests first."},
        ("p-1", [Replace("test.fast", "Never run bare pytest for the tests; use make test.")]),
    )
    (found,) = find_lookalikes(bundle)
    assert (found.subject.key, found.other.key, found.relation) == ("test.fast", "test.command", "contradicts")
    assert found.advice() == (
        "do not keep both: if the evidence shows 'test.command' is wrong, replace 'test.command' with this text "
        "instead of replacing 'test.fast'"
    )


def test_a_pair_resembles_the_same_whichever_text_comes_first() -> None:
    a, b = "Run the tests with pytest.", "Never run bare pytest; use make test."
    assert resemblance(a, b) == (100.0, ("tests", "pytest"))
    assert resemblance(b, a) == (100.0, ("pytest", "test"))
    assert resemblance("Run ruff before committing.", "Run the tests before committing.") is None


def test_against_limits_the_proposals_compared_with_and_never_memory_or_the_instructions() -> None:
    bundle = _bundle(
        {"deps.setup": "Install dependencies with uv sync."},
        ("p-1", [Add("deps.install", "Install the dependencies with uv sync.")]),
        ("p-2", [Add("deps.sync", "Use uv sync to install dependencies.")]),
    )
    everything = find_lookalikes(bundle, proposals=["p-1"])
    assert _pairs(everything) == [
        ("proposal", "deps.install", "proposal", "deps.sync"),
        ("proposal", "deps.install", "memory", "deps.setup"),
    ]
    assert _pairs(find_lookalikes(bundle, proposals=["p-1"], against=["p-1"])) == [
        ("proposal", "deps.install", "memory", "deps.setup"),
    ]


# --- a rule people left in the prose (issue 54) ----------------------------------------------

SLEEP_RULE = "Avoid `anyio.sleep()` with a fixed duration to wait for async operations. Instead:"


def test_a_proposal_that_resembles_a_rule_of_the_prose_is_found_with_the_rules_line() -> None:
    bundle = _bundle({}, ("p-1", [Add("test.sleep", "Use `anyio.sleep()` with a fixed duration for async waits.")]))

    (found,) = find_lookalikes(bundle, prose=((58, SLEEP_RULE), (60, "Format with ruff.")))

    assert (found.subject.key, found.other.where, found.other.key, found.other.line) == ("test.sleep", "prose", "", 58)
    assert found.other.describe() == "the prose's rule at line 58"
    assert found.other_text == SLEEP_RULE
    assert found.relation == "contradicts"
    assert found.advice() == (  # as the curator's note says it (issue 56)
        "the prose is the people's: do not add a rule against it; if the evidence shows it is wrong, say so in "
        "the lesson for people to change the prose"
    )
    assert found.other.to_json() == {"where": "prose", "key": "", "proposal": None, "action": None, "line": 58}


def test_without_the_prose_a_rule_only_the_prose_holds_is_not_seen() -> None:
    bundle = _bundle({}, ("p-1", [Add("test.sleep", "Use `anyio.sleep()` with a fixed duration for async waits.")]))

    assert find_lookalikes(bundle) == ()


def test_an_instruction_written_is_compared_with_the_prose_too() -> None:
    bundle = _bundle({})
    written = {
        "version": 2,
        "instructions": [
            {
                "key": "test.sleep",
                "text": "Use anyio.sleep() with a fixed duration for async operations.",
                "scope": SHOP.to_json(),
                "origin": "curated",
            },
        ],
    }

    found = find_lookalikes(bundle, written=written, prose=((7, SLEEP_RULE),))

    assert _pairs(found) == [("memory-after", "test.sleep", "prose", "")]
    assert found[0].other.line == 7


def test_a_hosts_labels_and_a_short_rules_two_words_make_no_look_alike() -> None:
    # Issue 55, finding 8: ACE's labels are in every skill, and "go" and "test" are in many texts.
    ace = "Keywords: units Issue: Check units. Insight: Check units."
    other = "Keywords: reading Issue: Read the task twice. Insight: Read the task twice."
    assert resemblance(ace, other) is None
    assert (
        resemblance("The CI matrix tests Go 1.22 and 1.23; keep both green.", "Run the tests with go test ./...")
        is None
    )
    assert (
        resemblance("Run the tests before you push.", "Never run the tests before you push; CI runs them.") is not None
    )
