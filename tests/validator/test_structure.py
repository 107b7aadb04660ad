"""SPEC §3.1: a malformed proposal is rejected with exactly one reason naming
the first offending member; §3.6: the fingerprint ignores everything but the edit."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from validator import Proposal, check_structure
from validator.proposal import Incomplete

DIGEST = "sha256:" + "a" * 64
GOOD: dict[str, Any] = {
    "id": "p-1",
    "lesson": "les-1",
    "scope": {"level": "repository", "repository": "acme/api"},
    "confidence": 0.8,
    "rationale": "why",
    "base_memory_version": 7,
    "operations": [
        {"action": "replace", "key": "b", "text": "new", "expected_digest": DIGEST},
        {"action": "add", "key": "a", "text": "added"},
    ],
    "support": ["ev-1"],
    "contradict": [],
}


def with_(**changes: Any) -> dict[str, Any]:
    p = copy.deepcopy(GOOD)
    for name, value in changes.items():
        if value is KeyError:
            p.pop(name)
        else:
            p[name] = value
    return p


def subject(raw: Any, index: int = 0) -> tuple[str, str | None]:
    checked = check_structure(raw, index)
    assert isinstance(checked, Incomplete)
    return checked.id, checked.subject


def test_a_complete_proposal_has_its_operations_sorted_by_key() -> None:
    p = check_structure(GOOD, 0)
    assert isinstance(p, Proposal)
    assert [op.key for op in p.operations] == ["a", "b"]
    assert p.fingerprint.startswith("sha256:")


def test_rationale_is_optional_and_defaults_to_empty() -> None:
    p = check_structure(with_(rationale=KeyError), 0)
    assert isinstance(p, Proposal) and p.rationale == ""


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([], ("@3", None)),
        (with_(id="bad id"), ("@3", "id")),
        (with_(id=KeyError), ("@3", "id")),
        (with_(lesson=1), ("p-1", "lesson")),
        (with_(scope={"level": "path", "repository": "acme/api"}), ("p-1", "scope")),
        (with_(confidence=True), ("p-1", "confidence")),
        (with_(confidence=1.5), ("p-1", "confidence")),
        (with_(rationale=None), ("p-1", "rationale")),
        (with_(rationale="x" * 2001), ("p-1", "rationale")),
        (with_(base_memory_version=7.5), ("p-1", "base_memory_version")),
        (with_(operations=[]), ("p-1", "operations")),
        (
            with_(operations=[{"action": "add", "key": "a", "text": "t", "expected_digest": DIGEST}]),
            ("p-1", "operations"),
        ),
        (with_(operations=[{"action": "remove", "key": "a"}]), ("p-1", "operations")),
        (with_(operations=[{"action": "add", "key": "a", "text": ""}]), ("p-1", "operations")),
        (
            with_(operations=[{"action": "add", "key": "a", "text": "x"}, {"action": "add", "key": "a", "text": "y"}]),
            ("p-1", "operations"),
        ),
        (with_(support=[]), ("p-1", "support")),
        (with_(support=["ev-1", "ev-1"]), ("p-1", "support")),
        (with_(contradict=KeyError), ("p-1", "contradict")),
        (with_(contradicts=["ev-2"]), ("p-1", "contradicts")),  # the typo must not drop counterevidence
        (with_(zeta=1, alpha=2), ("p-1", "alpha")),  # unknown members in ordinal order
        (with_(lesson=1, confidence="high", zeta=1), ("p-1", "lesson")),  # the first in the spec's order
    ],
)
def test_the_first_offending_member_is_the_subject(raw: Any, expected: tuple[str, str | None]) -> None:
    assert subject(raw, 3) == expected


def test_a_rationale_or_an_id_never_changes_a_fingerprint() -> None:
    a = check_structure(GOOD, 0)
    b = check_structure(with_(id="p-2", rationale="other", confidence=0.1, support=["ev-9"], lesson="les-2"), 1)
    assert isinstance(a, Proposal) and isinstance(b, Proposal)
    assert a.fingerprint == b.fingerprint


def test_a_different_scope_or_text_changes_the_fingerprint() -> None:
    a = check_structure(GOOD, 0)
    b = check_structure(with_(scope={"level": "global"}), 0)
    ops = copy.deepcopy(GOOD["operations"])
    ops[1]["text"] = "added!"
    c = check_structure(with_(operations=ops), 0)
    assert len({a.fingerprint, b.fingerprint, c.fingerprint}) == 3  # type: ignore[union-attr]
