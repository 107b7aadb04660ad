"""The pipeline pauses the cyclic collector for a run and hands what survives to the oldest generation."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from curator_io import InputError
from ranking.pipeline import collector_paused, rank_bytes
from tests.conftest import FIXTURES

RAW = (FIXTURES / "example.json").read_bytes()


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        gc.unfreeze()
        if not was:
            gc.disable()


def test_a_run_leaves_the_collector_on_and_nothing_young_to_scan(collector_on: None) -> None:
    result = rank_bytes(RAW)
    assert gc.isenabled()
    # The run allocated thousands of tracked objects; none is left in generation 0 or frozen.
    assert gc.get_count()[0] < 100
    assert gc.get_freeze_count() == 0
    young = {id(o) for o in gc.get_objects(generation=0)}
    assert id(result.validation.entries) not in young
    assert any(o is result.validation.entries for o in gc.get_objects(generation=2))


def test_a_callers_disabled_collector_stays_disabled() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        rank_bytes(RAW)
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_a_callers_frozen_objects_stay_frozen(collector_on: None) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    rank_bytes(RAW)
    assert gc.get_freeze_count() == frozen


def test_garbage_cycles_from_before_a_run_are_still_collected(collector_on: None) -> None:
    class Node:
        pass

    with collector_paused():
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        marker = id(a)
        del a, b  # a cycle: only the collector frees it
    assert any(id(o) == marker for o in gc.get_objects(generation=2))
    gc.collect()
    assert not any(id(o) == marker for o in gc.get_objects())


@pytest.mark.parametrize(
    "raw",
    [RAW, b"{", b'{"schema": "curator-bundle-v1"}', RAW[:-50], RAW.replace(b'"curator-bundle-v1"', b'"other"')],
    ids=["example", "truncated", "bare", "cut", "wrong-schema"],
)
def test_a_run_leaves_no_cyclic_garbage(collector_on: None, raw: bytes) -> None:
    # What a run leaves goes straight to the oldest generation, so garbage cycles made
    # inside one would wait for a full collection: there are none, bundle or input error.
    gc.collect()
    try:
        rank_bytes(raw)
    except InputError:
        pass
    assert gc.collect() == 0
