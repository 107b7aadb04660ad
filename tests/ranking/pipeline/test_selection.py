"""SPEC §5 ranking and selection, one small case per rule: each asserts every
proposal's final disposition and ranking reason, so a failure names what differs."""

from __future__ import annotations

from typing import Any

import pytest

from curator_io.config import parse_config
from curator_io.models import Scope
from ranking.pipeline import rank
from ranking.pipeline.selection import operations_conflict, order_key
from tests.bundles import bundle_of, proposal
from validator import Operation


def _p(pid: str, *ops: tuple[str, str], confidence: float = 0.8) -> dict[str, Any]:
    """p-make-test (final 81 at 0.8) as ``pid``, adding ``(key, text)`` for each op."""
    operations = [{"action": "add", "key": key, "text": text} for key, text in ops]
    return proposal(id=pid, operations=operations, confidence=confidence)


Outcome = tuple[str, tuple[str, str | None], str | None]
SELECTED: Outcome = ("selected", ("rank.selected", None), None)

CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], dict[str, Outcome]]] = [
    (
        "two independent edits",
        [_p("p-a", ("k.1", "A.")), _p("p-b", ("k.2", "B."))],
        {},
        {"p-a": SELECTED, "p-b": SELECTED},
    ),
    (
        "the same edit twice: ties go to the smaller id",
        [_p("p-b", ("k.1", "A.")), _p("p-a", ("k.1", "A."))],
        {},
        {"p-a": SELECTED, "p-b": ("superseded", ("rank.duplicate", "p-a"), "p-a")},
    ),
    (
        "another text for one key",
        [_p("p-a", ("k.1", "A.")), _p("p-b", ("k.1", "B."))],
        {},
        {"p-a": SELECTED, "p-b": ("superseded", ("rank.conflict", "p-a"), "p-a")},
    ),
    (
        "a higher final ranks first",
        [_p("p-a", ("k.1", "A.")), _p("p-b", ("k.1", "B."), confidence=0.9)],
        {},
        {"p-a": ("superseded", ("rank.conflict", "p-b"), "p-b"), "p-b": SELECTED},
    ),
    (
        "a superseded proposal blocks nothing",
        [
            _p("p-a", ("k.1", "A."), confidence=0.9),
            _p("p-b", ("k.1", "B."), ("k.2", "X.")),
            _p("p-c", ("k.2", "Y."), confidence=0.7),
        ],
        {},
        {"p-a": SELECTED, "p-b": ("superseded", ("rank.conflict", "p-a"), "p-a"), "p-c": SELECTED},
    ),
    (
        "survivors past max_selected",
        [_p("p-a", ("k.1", "A.")), _p("p-b", ("k.2", "B."))],
        {"max_selected": 1},
        {"p-a": SELECTED, "p-b": ("unselected", ("rank.limit", None), None)},
    ),
    (
        "a final below the threshold",
        [_p("p-a", ("k.1", "A.")), _p("p-b", ("k.2", "B."), confidence=0.9)],
        {"threshold": 81.01},
        {"p-a": ("deferred", ("rank.below_threshold", None), None), "p-b": SELECTED},
    ),
    (
        "a final equal to the threshold",
        [_p("p-a", ("k.1", "A."))],
        {"threshold": 81},
        {"p-a": SELECTED},
    ),
]


@pytest.mark.parametrize(("proposals", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_selection_gives_exactly_these_dispositions(
    proposals: list[dict[str, Any]], config: dict[str, Any], expected: dict[str, Outcome]
) -> None:
    report = rank(bundle_of(*proposals), parse_config(config)).report
    got = {}
    for e in report["proposals"]:
        (reason,) = [(r["code"], r["subject"]) for r in e["reasons"] if r["code"].startswith("rank.")]
        got[e["id"]] = (e["disposition"], reason, e["superseded_by"])
    assert got == expected


ACME = Scope("repository", "acme/api")
ADD = Operation("add", "k.1", "A.", None)
DIGEST = "sha256:" + "0" * 64


@pytest.mark.parametrize(
    ("op", "scope", "other", "other_scope", "conflict"),
    [
        (ADD, ACME, ADD, ACME, False),
        (ADD, ACME, ADD._replace(text="B."), ACME, True),
        (ADD, ACME, ADD, Scope("global"), True),
        (ADD, ACME, Operation("replace", "k.1", "A.", DIGEST), ACME, True),
        (Operation("remove", "k.1", None, DIGEST), ACME, Operation("remove", "k.1", None, DIGEST), ACME, False),
    ],
    ids=["identical", "another text", "another scope", "another action", "the same remove"],
)
def test_two_operations_on_one_key_conflict_as_spec_5_3_says(
    op: Operation, scope: Scope, other: Operation, other_scope: Scope, conflict: bool
) -> None:
    assert operations_conflict(op, scope, other, other_scope) is conflict
    assert operations_conflict(other, other_scope, op, scope) is conflict


def test_the_order_is_final_then_lineages_then_earliest_as_instants_then_id() -> None:
    # SPEC §5.2; final in hundredths. As strings "...00.000000001Z" sorts before "...00Z"; as instants it is later.
    keys = {
        "the higher final": order_key(8100, 1, "2026-11-29T00:00:00Z", "p-z"),
        "more lineages": order_key(8000, 3, "2026-11-29T00:00:00Z", "p-z"),
        "the earlier instant": order_key(8000, 2, "2026-11-20T08:00:00Z", "p-z"),
        "a nanosecond later, the smaller id": order_key(8000, 2, "2026-11-20T08:00:00.000000001Z", "p-a"),
        "a nanosecond later, a larger id": order_key(8000, 2, "2026-11-20T08:00:00.000000001Z", "p-b"),
    }
    assert sorted(keys, key=keys.__getitem__) == list(keys)
