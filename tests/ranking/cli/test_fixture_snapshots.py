"""The shipped fixtures: a snapshot of every fixture's reason codes, and one test per story.

The snapshot (``__snapshots__/test_fixture_snapshots.ambr``) shows every decision
as one line, so a change in any of them is a one-line diff; the story tests say
in plain asserts what each fixture is there to demonstrate (fixtures/README.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from curator_io import load_bundle, parse_json
from curator_io.sealing import unsealed_places
from ranking.checking.acceptance import accept
from ranking.checking.apply import apply_selection
from ranking.testing import reason_codes, score_file, snapshot_lines
from tests.conftest import FIXTURES

BUNDLES = sorted(FIXTURES.glob("*.json"))


def _entry(report: dict[str, Any], proposal_id: str) -> dict[str, Any]:
    (entry,) = [e for e in report["proposals"] if e["id"] == proposal_id]
    return entry


def test_every_story_in_the_readme_is_shipped() -> None:
    names = {p.name for p in BUNDLES}
    assert {
        "example.json",
        "well-supported-repository-rule.json",
        "conflicting-pair.json",
        "incompatible-checkout.json",
        "user-directive-one-lineage.json",
        "nothing-clears-threshold.json",
        "broad-rule-short-of-third-lineage.json",
    } <= names
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert all(f"**{name}**" in readme for name in names)


@pytest.mark.parametrize("path", BUNDLES, ids=[p.stem for p in BUNDLES])
def test_a_fixture_is_sealed_in_every_artifact(path: Path) -> None:
    assert unsealed_places(parse_json(path.read_bytes())) == []


@pytest.mark.parametrize("path", BUNDLES, ids=[p.stem for p in BUNDLES])
def test_a_fixtures_reason_codes_match_its_snapshot(path: Path, snapshot) -> None:
    assert snapshot_lines(score_file(path)) == snapshot


def test_a_repository_rule_with_deterministic_evidence_from_two_lineages_is_selected() -> None:
    report = score_file(FIXTURES / "well-supported-repository-rule.json")
    entry = _entry(report, "p-migrate-before-tests")
    assert entry["disposition"] == "selected"
    assert reason_codes(entry) == ["rank.selected"]
    assert entry["support"]["lineages"] == 2 and entry["support"]["required"] == 2
    assert entry["score"]["final"] == 85.5
    assert report["selected"] == ["p-migrate-before-tests"]


def test_of_two_edits_of_one_key_the_lower_ranked_is_superseded_by_the_other() -> None:
    path = FIXTURES / "conflicting-pair.json"
    report = score_file(path)
    loser = _entry(report, "p-eslint-cache")
    assert loser["validation"] == "accepted"
    assert loser["disposition"] == "superseded"
    assert loser["superseded_by"] == "p-pnpm-lint"
    assert reason_codes(loser) == ["rank.conflict(p-pnpm-lint)"]
    assert report["ranking"] == ["p-pnpm-lint", "p-eslint-cache"]
    assert report["selected"] == ["p-pnpm-lint"]
    # The Writer may write the winner's text for the key, and only that.
    memory = apply_selection(accept(report, bundle=load_bundle(path.read_bytes())))
    (lint,) = [i for i in memory["instructions"] if i["key"] == "lint.command"]
    assert lint["text"].startswith("Run `pnpm lint`")


def test_support_from_an_incompatible_checkout_is_quarantined_and_so_is_the_proposal() -> None:
    report = score_file(FIXTURES / "incompatible-checkout.json")
    entry = _entry(report, "p-redis-for-tests")
    assert entry["disposition"] == "quarantined"
    assert reason_codes(entry) == ["evidence.quarantined(ev-204-6)", "support.quarantined"]
    assert entry["support"]["quarantined"] == 1 and entry["support"]["lineages"] == 1
    assert report["outcome"] == "no_op"


def test_a_direct_user_correction_needs_only_one_lineage() -> None:
    report = score_file(FIXTURES / "user-directive-one-lineage.json")
    entry = _entry(report, "p-no-edit-generated")
    assert entry["support"]["lineages"] == 1 and entry["support"]["required"] == 1
    assert entry["disposition"] == "selected"
    assert reason_codes(entry) == ["rank.selected"]
    assert entry["score"]["source_signal"] == 15


def test_when_no_accepted_proposal_reaches_the_threshold_the_outcome_is_no_op() -> None:
    report = score_file(FIXTURES / "nothing-clears-threshold.json")
    assert report["outcome"] == "no_op" and report["selected"] == [] and report["ranking"] == []
    assert report["counts"]["accepted"] == 2 and report["counts"]["below_threshold"] == 2
    for entry in report["proposals"]:
        assert entry["validation"] == "accepted"
        assert entry["disposition"] == "deferred"
        assert reason_codes(entry) == ["rank.below_threshold"]
        assert entry["score"]["final"] < 40
    assert [e["score"]["final"] for e in report["proposals"]] == [23.5, 31.33]


def test_a_global_rule_from_two_lineages_in_two_repositories_waits_for_a_third() -> None:
    report = score_file(FIXTURES / "broad-rule-short-of-third-lineage.json")
    entry = _entry(report, "p-pre-commit-everywhere")
    assert entry["disposition"] == "deferred"
    assert reason_codes(entry) == ["support.insufficient_lineages"]
    assert entry["support"]["lineages"] == 2 and entry["support"]["required"] == 3
    assert report["outcome"] == "no_op"


def test_the_example_selects_the_make_test_rule_only() -> None:
    report = score_file(FIXTURES / "example.json")
    assert report["selected"] == ["p-make-test"]
    assert reason_codes(_entry(report, "p-sleep-flaky")) == ["support.insufficient_lineages"]
    assert reason_codes(_entry(report, "p-ruff-format")) == [
        "closure.stale_instruction(style.imports)",
        "closure.stale_memory",
    ]
