"""SPEC §3.5 support, one small case per rule: each asserts the exact reasons
and the facts §3.7 reports, so a failure names what differs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bundles import Edit, add_lineage, bundle_of, one, proposal, set_members, support_of
from validator.reasons import Reason, sort_reasons


def _both(*edits: Edit) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        for e in edits:
            e(doc)

    return edit


def _lineages(*names: str, signal: str = "deterministic", status: str = "compatible") -> Edit:
    """One more lineage per name, each with one evidence item ``ev-NAME`` that les-3 cites."""

    def edit(doc: dict[str, Any]) -> None:
        for name in names:
            add_lineage(doc, name, evidence=f"ev-{name}", signal=signal, status=status)
            one(doc, "lessons", "les-3")["evidence"].append(f"ev-{name}")

    return edit


def _in_another_repository(doc: dict[str, Any]) -> None:
    add_lineage(doc, "x", evidence="ev-x", repository="acme/web")
    one(doc, "lessons", "les-3")["evidence"].append("ev-x")


GLOBAL = {"level": "global"}
# Each case: changes to p-make-test, an edit of the bundle, the reasons, and the facts
# (lineages, required, strength, contradiction, verified, quarantined). ev-1 has a path, ev-4 none.
CASES: list[tuple[str, dict[str, Any], Edit | None, list[Reason], tuple[int, ...]]] = [
    ("two lineages, deterministic", {}, None, [], (2, 2, 24, 0, 2, 0)),
    (
        "one lineage of two required",
        {"support": ["ev-4"]},
        None,
        [("support.insufficient_lineages", None)],
        (1, 2, 12, 0, 1, 0),
    ),
    (
        "a user signal needs one lineage",
        {"support": ["ev-4"]},
        set_members("evidence", "ev-4", signal="user"),
        [],
        (1, 1, 15, 0, 1, 0),
    ),
    (
        "a step past the verified prefix is not verified",
        {},
        set_members("evidence", "ev-4", step=18),
        [("support.insufficient_lineages", None)],
        (1, 2, 12, 0, 1, 0),
    ),
    (
        "a broad scope needs three lineages, and is not the evidenced scope",
        {"scope": GLOBAL},
        None,
        [("scope.mismatch", None), ("support.insufficient_lineages", None)],
        (2, 3, 24, 0, 2, 0),
    ),
    (
        "evidence across two repositories is global",
        {"scope": GLOBAL, "support": ["ev-1", "ev-4", "ev-x"]},
        _in_another_repository,
        [],
        (3, 3, 36, 0, 3, 0),
    ),
    (
        "one lineage's strength is its strongest item",
        {"support": ["ev-1", "ev-4", "ev-7"]},
        set_members("lessons", "les-3", evidence=["ev-1", "ev-4", "ev-7"]),
        [],
        (2, 2, 24, 0, 3, 0),
    ),
    (
        "quarantined support leaves too few lineages",
        {},
        set_members("materializations", "mat-api-a3f9c21", status="incompatible"),
        [("evidence.quarantined", "ev-1"), ("support.quarantined", None)],
        (1, 2, 12, 0, 1, 1),
    ),
    (
        "quarantined support with lineages enough is informational",
        {"support": ["ev-1", "ev-4", "ev-y"]},
        _both(_lineages("y"), set_members("materializations", "mat-api-b71e004", status="invalid")),
        [("evidence.quarantined", "ev-4")],
        (2, 2, 24, 0, 2, 1),
    ),
    (
        "quarantined counterevidence counts for nothing",
        {"contradict": ["ev-c"]},
        _lineages("c", signal="user", status="incompatible"),
        [("evidence.quarantined", "ev-c")],
        (2, 2, 24, 0, 2, 1),
    ),
    (
        "counterevidence weaker than the support",
        {"contradict": ["ev-c"]},
        _lineages("c", signal="user"),
        [],
        (2, 2, 24, 15, 2, 0),
    ),
    (
        "counterevidence as strong as the support",
        {"contradict": ["ev-c", "ev-d"]},
        _lineages("c", "d"),
        [("support.counterevidence", None)],
        (2, 2, 24, 24, 2, 0),
    ),
    (
        "the evidenced scope is the common path",
        {"scope": {"level": "path", "repository": "acme/api", "path": "src"}},
        _both(set_members("evidence", "ev-1", path="src/a.py"), set_members("evidence", "ev-4", path="src/b/c.py")),
        [],
        (2, 2, 24, 0, 2, 0),
    ),
    (
        "paths with no common segment give the repository",
        {"scope": {"level": "path", "repository": "acme/api", "path": "Makefile"}},
        set_members("evidence", "ev-4", path="Makefile.d/x"),
        [("scope.mismatch", None)],
        (2, 2, 24, 0, 2, 0),
    ),
]


@pytest.mark.parametrize(("changes", "edit", "expected", "facts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_support_gives_exactly_these_reasons_and_facts(
    changes: dict[str, Any], edit: Edit | None, expected: list[Reason], facts: tuple[int, ...]
) -> None:
    reasons, got = support_of(bundle_of(proposal(**changes), edit=edit))
    assert list(sort_reasons(reasons)) == expected
    assert (got.lineages, got.required, got.strength, got.contradiction, got.verified, got.quarantined) == facts


def test_the_earliest_verified_observation_is_reported_as_written() -> None:
    edit = _both(
        set_members("evidence", "ev-1", observed_at="2026-11-20T08:00:00.5Z"),
        set_members("evidence", "ev-4", observed_at="2026-11-20T08:00:00.10Z"),
    )
    _, facts = support_of(bundle_of(proposal(), edit=edit))
    assert facts.earliest == "2026-11-20T08:00:00.10Z"  # .1 s before .5 s, though "5" < "10" is false
