"""SPEC §3.1: a malformed proposal is rejected with exactly one reason naming
the first offending member; §3.6: the fingerprint ignores everything but the edit."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io.canonical import digest
from validator import Proposal, check_structure, fingerprint
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


#: SPEC §3.1: the order in which the first offending member is named.
_ORDER = (
    "id",
    "lesson",
    "scope",
    "confidence",
    "rationale",
    "base_memory_version",
    "operations",
    "support",
    "contradict",
)
#: A value no member accepts (a missing member is drawn as KeyError).
_WRONG = st.sampled_from([KeyError, None, True, {"x": 1}])


@settings(max_examples=300)
@given(
    wrong=st.dictionaries(st.sampled_from(_ORDER), _WRONG),
    unknown=st.sets(st.text("abcz_", min_size=1, max_size=3)),
)
def test_the_subject_is_the_first_wrong_member_in_the_spec_order(wrong: dict[str, Any], unknown: set[str]) -> None:
    raw = with_(**wrong)
    raw.update(dict.fromkeys(unknown, 1))
    # An absent rationale is not a wrong one: §1 reads it as "".
    offending = [name for name in _ORDER if name in wrong and (name, wrong[name]) != ("rationale", KeyError)]
    expected = offending[0] if offending else min(unknown, default=None)
    checked = check_structure(raw, 4)
    if expected is None:
        assert isinstance(checked, Proposal)
    else:
        assert checked == Incomplete(4, "@4" if "id" in wrong else "p-1", expected)


#: Characters where RFC 8785 and orjson could part: escapes, and characters above
#: U+FFFF next to U+E000-U+FFFF (they sort differently by code point and by UTF-16 unit).
_SPECIAL = st.sampled_from('a"\\\u2028\ue000\uffff\U0001f600\U0010ffff')
_TEXT = st.text(_SPECIAL | st.sampled_from("\x00\x1f\x7f") | st.characters(blacklist_categories=("Cs",)), min_size=1)
#: A REPO or a one-segment PATH: no control characters, at most 200 bytes.
_NAME = st.text(_SPECIAL | st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=50).filter(
    lambda s: "/" not in s and s not in (".", "..")
)


@settings(max_examples=300)
@given(texts=st.lists(_TEXT, min_size=1, max_size=4), repository=_NAME, path=_NAME)
def test_the_fingerprint_is_the_digest_of_the_scope_and_the_sorted_operations(
    texts: list[str], repository: str, path: str
) -> None:
    ops = [{"action": "add", "key": f"k{9 - i}", "text": text} for i, text in enumerate(texts)]
    ops.append({"action": "replace", "key": "r", "text": texts[0], "expected_digest": DIGEST})
    ops.append({"action": "remove", "key": "q", "expected_digest": DIGEST})
    scope = {"level": "path", "repository": repository, "path": path}
    p = check_structure(with_(scope=scope, operations=ops), 0)
    assert isinstance(p, Proposal)
    expected = digest({"scope": scope, "operations": sorted(ops, key=lambda op: op["key"])})
    assert p.fingerprint == expected == fingerprint(p.scope, p.operations)
