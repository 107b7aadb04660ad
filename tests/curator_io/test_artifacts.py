"""A chunk of artifacts checked member by member across the chunk builds what
checking each item on its own builds, or refuses it at the same place with the same error,
whatever the items hold (lone surrogates, non-finite numbers, an item that contains itself)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator_io.artifacts import build_chunk, build_item
from curator_io.canonical import seal
from curator_io.kinds import ARTIFACTS
from tests.curator_io.strategies import unwritable
from tests.deadline import outcome

_NEAR_IDS = st.sampled_from(["ev-1", "tr-2", "a" * 128, "a" * 129, "", "bad id", "x\ny", "é", 7, None, ["ev-1"]])
_NEAR_TIMESTAMPS = st.sampled_from(
    [
        "2026-11-29T10:00:00Z",
        "2024-02-29T23:59:59.123456789Z",
        "2023-02-29T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-11-29T10:00:00Z\n",
        "2026-11-29T10:00:00Z\n2026-11-29T10:00:00Z",
        "2026-11-29 10:00:00Z",
        5,
    ]
)
_NEAR_PATHS = st.sampled_from(
    [None, "src/a.py", "a", "", "/a", "a/", "a//b", "./a", "a/..", "...", "a\nb", "a\tb", "é" * 101, "x" * 401, 3]
)
# Parsed JSON holds no integer beyond 2^53 - 1: such a number is a float.
_NEAR_INTS = st.sampled_from([0, 1, 7, 7.0, 2**53 - 1, 2.0**53, -1, True, "7", None])


def _maybe(value: Any, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the valid ``value``; one time in twelve, a near miss."""
    return st.integers(0, 11).flatmap(lambda k: strategy if k == 0 else st.just(value))


@st.composite
def _evidence(draw: st.DrawFn, spoil: bool = False) -> Any:
    item = {
        "id": draw(_maybe("ev-1", _NEAR_IDS)),
        "trace": draw(_maybe("tr-1", _NEAR_IDS)),
        "step": draw(_maybe(3, _NEAR_INTS)),
        "signal": draw(_maybe("tool", st.sampled_from(["user", "rumour", 1, ["tool"]]))),
        "observed_at": draw(_maybe("2026-11-29T10:00:00Z", _NEAR_TIMESTAMPS)),
        "path": draw(_maybe(None, _NEAR_PATHS)),
        "summary": draw(_maybe("ok", st.sampled_from(["", "é" * 300, "x" * 1001, "😀" * 251, None]))),
    }
    return _finish(draw, item, spoil)


@st.composite
def _trace(draw: st.DrawFn, spoil: bool = False) -> Any:
    item = {
        "id": draw(_maybe("tr-1", _NEAR_IDS)),
        "lineage": draw(_maybe("task-1", _NEAR_IDS)),
        "materialization": draw(_maybe("mat-1", _NEAR_IDS)),
        "steps": draw(_maybe(5, _NEAR_INTS)),
        "completeness": draw(_maybe("partial", st.sampled_from(["complete", "done", ["partial"]]))),
        "verified_prefix": draw(_maybe(2, _NEAR_INTS)),
    }
    return _finish(draw, item, spoil)


@st.composite
def _materialization(draw: st.DrawFn, spoil: bool = False) -> Any:
    item = {
        "id": draw(_maybe("mat-1", _NEAR_IDS)),
        "repository": draw(_maybe("acme/api", st.sampled_from(["", "x" * 201, "é" * 101, "a\tb", "acme\x7f", 3]))),
        "source_revision": draw(_maybe("abc123", st.sampled_from(["", "x" * 101, "é" * 51, "😀" * 25, None]))),
        "status": draw(_maybe("compatible", st.sampled_from(["invalid", "broken", ["compatible"], None]))),
    }
    return _finish(draw, item, spoil)


@st.composite
def _lesson(draw: st.DrawFn, spoil: bool = False) -> Any:
    cited = draw(_maybe(["ev-1", "ev-2"], st.lists(_NEAR_IDS, max_size=3)))
    item = {
        "id": draw(_maybe("les-1", _NEAR_IDS)),
        "text": draw(_maybe("Learned.", st.sampled_from(["", "x" * 2001, "é" * 600, 5]))),
        "evidence": cited,
    }
    return _finish(draw, item, spoil)


def _finish(draw: st.DrawFn, item: dict[str, Any], spoil: bool) -> Any:
    if draw(st.integers(0, 11)) == 0:
        del item[draw(st.sampled_from(sorted(item)))]
    if draw(st.booleans()):
        item["x_extra"] = draw(st.sampled_from([1.0, "kept", [1, 2.5]]))
    sealed = seal(item)
    if draw(st.integers(0, 5)) == 0:
        sealed["digest"] = draw(st.sampled_from(["sha256:" + "0" * 64, "sha256:XYZ", 5]))
    if spoil and draw(st.booleans()):
        _spoil(draw, sealed)
    return sealed if draw(st.integers(0, 20)) else draw(st.sampled_from([[], "item", None]))


def _spoil(draw: st.DrawFn, item: dict[str, Any]) -> None:
    """Something no canonical writer can write in one member of ``item``, new or not: a value
    RFC 8785 refuses (a lone surrogate in a text long enough to be counted in UTF-8 among
    them), or the item itself, so that it contains itself."""
    name = draw(st.sampled_from([*sorted(item), "x_extra"]))
    spoilt = draw(st.sampled_from(["surrogate", "unwritable", "itself"]))
    if spoilt == "surrogate":
        item[name] = draw(st.sampled_from(["é" * 120 + "\ud800", "ok\udc00", "\udfff"]))
    else:
        item[name] = draw(unwritable) if spoilt == "unwritable" else item


def _built(name: str, items: list[Any], in_bulk: bool) -> Any:
    if in_bulk:
        return outcome(lambda chunk: build_chunk(name, chunk, 0), items, seconds=2)
    return outcome(lambda chunk: [build_item(ARTIFACTS[name], item, (name, i)) for i, item in enumerate(chunk)], items)


_KINDS = {"evidence": _evidence, "traces": _trace, "lessons": _lesson, "materializations": _materialization}


@settings(max_examples=400, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(_KINDS)))
def test_a_chunk_builds_what_its_items_build_one_by_one(data: st.DataObject, name: str) -> None:
    items = data.draw(st.lists(_KINDS[name](), min_size=1, max_size=6))
    assert _built(name, items, in_bulk=True) == _built(name, items, in_bulk=False)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(_KINDS)))
def test_a_chunk_holding_what_cannot_be_written_is_refused_as_its_items_are_one_by_one(
    data: st.DataObject, name: str
) -> None:
    # A bundle built in Python (GEPA's, say) can hold what no parse returns.
    items = data.draw(st.lists(_KINDS[name](spoil=True), min_size=1, max_size=3))
    assert _built(name, items, in_bulk=True) == _built(name, items, in_bulk=False)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(_KINDS)))
def test_a_chunk_is_left_as_parsed_after_its_seals_are_checked(data: st.DataObject, name: str) -> None:
    # The bulk check takes each digest member out for the hash and puts it back.
    items = data.draw(st.lists(_KINDS[name](), min_size=1, max_size=6))
    before = copy.deepcopy(items)
    _built(name, items, in_bulk=True)
    assert items == before


@pytest.mark.parametrize("summary", ["ok\udc00", "é" * 120 + "\ud800"])
def test_a_lone_surrogate_in_a_text_is_refused_in_bulk_with_the_error_item_by_item_raises(summary: str) -> None:
    evidence = {"id": "ev-1", "trace": "tr-1", "step": 3, "signal": "tool", "observed_at": "2026-11-29T10:00:00Z"}
    item = {**seal({**evidence, "path": None, "summary": "ok"}), "summary": summary}
    one_by_one = _built("evidence", [item], in_bulk=False)
    assert one_by_one[:2] == ("raised", UnicodeEncodeError)
    assert _built("evidence", [item], in_bulk=True) == one_by_one
