"""SPEC §3.2 closure and §3.3 artifact integrity, one small case per rule: each
asserts the exact reasons, so a failure names the code that differs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bundles import MEMORY, Edit, bundle_of, closure_of, proposal, set_members
from validator.closure import COMPLETE, PREFIX, UNVERIFIED, integrity_points
from validator.reasons import Reason, sort_reasons

STYLE = MEMORY["style.imports"]


def _replace(key: str, expected_digest: str, text: str = "Sort imports with ruff.") -> dict[str, Any]:
    return {"action": "replace", "key": key, "text": text, "expected_digest": expected_digest}


CASES: list[tuple[str, dict[str, Any], Edit | None, Edit | None, list[Reason]]] = [
    ("everything resolves", {}, None, None, []),
    ("an unknown lesson", {"lesson": "les-9"}, None, None, [("closure.unknown_lesson", "les-9")]),
    (
        "unknown support evidence is also outside the lesson",
        {"support": ["ev-1", "ev-4", "ev-9"]},
        None,
        None,
        [("closure.outside_lesson", "ev-9"), ("closure.unknown_evidence", "ev-9")],
    ),
    ("unknown contradicting evidence", {"contradict": ["ev-9"]}, None, None, [("closure.unknown_evidence", "ev-9")]),
    (
        "support outside the lesson",
        {"support": ["ev-1", "ev-4", "ev-7"]},
        None,
        None,
        [("closure.outside_lesson", "ev-7")],
    ),
    ("one item on both sides", {"contradict": ["ev-1"]}, None, None, [("closure.conflicting_stance", "ev-1")]),
    ("an unknown trace", {}, set_members("evidence", "ev-4", trace="tr-9"), None, [("closure.unknown_trace", "tr-9")]),
    (
        "an unknown materialization",
        {},
        set_members("traces", "tr-117-1", materialization="mat-9"),
        None,
        [("closure.unknown_materialization", "mat-9")],
    ),
    (
        "a step past the trace",
        {},
        set_members("evidence", "ev-4", step=22),
        None,
        [("closure.step_out_of_range", "ev-4")],
    ),
    ("the last step is in range", {}, set_members("evidence", "ev-4", step=21), None, []),
    ("stale memory", {"base_memory_version": 6}, None, None, [("closure.stale_memory", None)]),
    (
        "a replace of an unknown key",
        {"operations": [_replace("no.such", STYLE["digest"])]},
        None,
        None,
        [("closure.unknown_instruction", "no.such")],
    ),
    (
        "an add of a memory key",
        {"operations": [{"action": "add", "key": "style.imports", "text": "Use ruff."}]},
        None,
        None,
        [("closure.key_exists", "style.imports")],
    ),
    (
        "an add of an applicable key",
        {"operations": [{"action": "add", "key": "repo.contributing", "text": "Open PRs."}]},
        None,
        None,
        [("closure.key_exists", "repo.contributing")],
    ),
    (
        "a replace against another digest",
        {"operations": [_replace("style.imports", "sha256:" + "0" * 64)]},
        None,
        None,
        [("closure.stale_instruction", "style.imports")],
    ),
    (
        "a replace against the current digest",
        {"operations": [_replace("style.imports", STYLE["digest"])]},
        None,
        None,
        [],
    ),
    (
        "evidence edited after sealing",
        {},
        None,
        set_members("evidence", "ev-1", summary="edited"),
        [("artifact.digest_mismatch", "ev-1")],
    ),
    (
        "a trace whose digest is not a DIGEST",
        {},
        None,
        set_members("traces", "tr-101-1", digest="sha256:XYZ"),
        [("artifact.invalid_digest", "tr-101-1")],
    ),
    (
        "a lesson and a materialization edited after sealing",
        {},
        None,
        lambda doc: (
            set_members("lessons", "les-3", text="edited")(doc),
            set_members("materializations", "mat-api-a3f9c21", source_revision="edited")(doc),
        ),
        [("artifact.digest_mismatch", "les-3"), ("artifact.digest_mismatch", "mat-api-a3f9c21")],
    ),
    (
        "a replaced memory instruction edited after sealing",
        {"operations": [_replace("style.imports", STYLE["digest"])]},
        None,
        lambda doc: doc["memory"]["instructions"][0].update(text="edited", digest=STYLE["digest"]),
        [("artifact.digest_mismatch", "style.imports")],
    ),
]


@pytest.mark.parametrize(
    ("changes", "edit", "after_sealing", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_closure_gives_exactly_these_reasons(
    changes: dict[str, Any], edit: Edit | None, after_sealing: Edit | None, expected: list[Reason]
) -> None:
    reasons, _ = closure_of(bundle_of(proposal(**changes), edit=edit, after_sealing=after_sealing))
    assert list(sort_reasons(reasons)) == expected


@pytest.mark.parametrize(
    ("changes", "edit"),
    [
        ({"lesson": "les-9"}, None),
        ({"contradict": ["ev-9"]}, None),
        ({}, set_members("evidence", "ev-4", trace="tr-9")),
        ({}, set_members("traces", "tr-117-1", materialization="mat-9")),
    ],
    ids=["lesson", "evidence", "trace", "materialization"],
)
def test_an_unresolved_reference_leaves_nothing_for_support(changes: dict[str, Any], edit: Edit | None) -> None:
    _, cited = closure_of(bundle_of(proposal(**changes), edit=edit))
    assert cited is None


def test_resolved_evidence_carries_its_integrity_points_and_weight() -> None:
    _, cited = closure_of(bundle_of(proposal(contradict=["ev-7"])))
    assert cited is not None
    # (status, points, repository, path, lineage, weight, signal, materialization, revision, observed_at)
    assert [(c[0], c[1], c[4], c[5], c[6]) for c in cited] == [
        ("compatible", COMPLETE, "task-101", 12, "deterministic"),
        ("compatible", PREFIX, "task-117", 12, "deterministic"),
        ("compatible", PREFIX, "task-117", 3, "self_assessment"),
    ]


@pytest.mark.parametrize(
    ("completeness", "step", "prefix", "points"),
    [
        ("complete", 5, 5, COMPLETE),
        ("complete", 9, 5, COMPLETE),
        ("partial", 4, 5, PREFIX),
        ("partial", 5, 5, UNVERIFIED),
        ("partial", 0, 0, UNVERIFIED),
    ],
)
def test_integrity_points_are_spec_3_5_2(completeness: str, step: int, prefix: int, points: int) -> None:
    assert integrity_points(completeness, step, prefix) == points
