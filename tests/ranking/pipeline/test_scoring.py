"""SPEC §4 scoring, one small case per component: each asserts every component,
in hundredths, so a failure names the one that differs."""

from __future__ import annotations

from typing import Any

import pytest

from curator_io.config import DEFAULT_CONFIG
from ranking.pipeline.scoring import Score, contradiction_penalty, recurrence, score_entry
from tests.bundles import Edit, add_lineage, bundle_of, one, proposal, set_members
from validator import validate


def _counter(signal: str) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        add_lineage(doc, "c", evidence="ev-c", signal=signal)

    return edit


def _third_lineage(doc: dict[str, Any]) -> None:
    add_lineage(doc, "t", evidence="ev-t", signal="user")
    one(doc, "lessons", "les-3")["evidence"].append("ev-t")


# p-make-test: lineages task-101 (ev-1, complete, 20 points) and task-117 (ev-4, prefix, 12),
# both deterministic (12), two materializations of acme/api at two revisions, confidence 0.8.
BASE = Score(2000, 1600, 1200, 1500, 800, 1000, 0, 8100)
CASES: list[tuple[str, dict[str, Any], Edit | None, Score]] = [
    ("the example", {}, None, BASE),
    (
        "confidence is r2 of the binary64's exact value",
        {"confidence": 0.0115},
        None,
        BASE._replace(confidence=11, final=7311),
    ),
    ("confidence 1", {"confidence": 1}, None, BASE._replace(confidence=1000, final=8300)),
    (
        "a third lineage, a user signal, a third materialization",
        {"support": ["ev-1", "ev-4", "ev-t"]},
        _third_lineage,
        # provenance r2((20 + 12 + 20) / 3) = 17.33
        BASE._replace(recurrence=3000, provenance=1733, source_signal=1500, scope_coverage=1500, final=9533),
    ),
    (
        "one revision checked out twice is one R",
        {},
        set_members("materializations", "mat-api-b71e004", source_revision="a3f9c21"),
        BASE._replace(scope_coverage=1000, final=7600),
    ),
    (
        "counterevidence costs r2(40 Cs / Ss)",
        {"contradict": ["ev-c"]},
        _counter("observable"),
        BASE._replace(contradiction_penalty=1000, final=7100),  # 40 * 6 / 24
    ),
    (
        "weaker counterevidence costs less",
        {"contradict": ["ev-c"]},
        _counter("self_assessment"),
        BASE._replace(contradiction_penalty=500, final=7600),  # 40 * 3 / 24 = 5
    ),
]


@pytest.mark.parametrize(("changes", "edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_scoring_gives_exactly_these_components(changes: dict[str, Any], edit: Edit | None, expected: Score) -> None:
    validation = validate(bundle_of(proposal(**changes), edit=edit), config=DEFAULT_CONFIG)
    (entry,) = validation.entries
    assert entry.validation == "accepted", entry.reasons
    assert score_entry(entry)._asdict() == expected._asdict()


@pytest.mark.parametrize(("lineages", "hundredths"), [(0, 0), (1, 1000), (2, 2000), (3, 3000), (4, 3000), (40, 3000)])
def test_recurrence_is_ten_points_a_lineage_up_to_thirty(lineages: int, hundredths: int) -> None:
    assert recurrence(lineages) == hundredths


@pytest.mark.parametrize(
    ("contradiction", "strength", "hundredths"),
    [
        (0, 0, 0),  # 0 when Cs = 0, whatever Ss is
        (0, 24, 0),
        (6, 24, 1000),  # 40 * 6 / 24
        (21, 24, 3500),
        (1, 3, 1333),  # r2(13.333...)
        (1, 64, 63),  # 0.625 rounds half up
        (23, 24, 3833),  # r2(38.333...): below the maximum of 40, as Cs < Ss for every accepted proposal
    ],
)
def test_the_contradiction_penalty_is_r2_of_forty_times_cs_over_ss(
    contradiction: int, strength: int, hundredths: int
) -> None:
    assert contradiction_penalty(contradiction, strength) == hundredths
