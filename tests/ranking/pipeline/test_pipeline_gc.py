"""The garbage collector is the command's to turn off, never a library call's."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from curator_io import InputError
from ranking.cli import main
from ranking.pipeline import rank_bytes
from tests.conftest import FIXTURES

EXAMPLE = FIXTURES / "example.json"
RAW = EXAMPLE.read_bytes()


@pytest.fixture
def collector_on() -> Iterator[None]:
    was, threshold = gc.isenabled(), gc.get_threshold()
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        if was:
            gc.enable()
        else:
            gc.disable()


def _recording(monkeypatch: pytest.MonkeyPatch, target: str) -> list[bool]:
    """Record whether the collector is enabled each time ``target`` (a validate) is called."""
    from validator import validate

    seen: list[bool] = []

    def recorded(bundle: Any, *, config: Any) -> Any:
        seen.append(gc.isenabled())
        return validate(bundle, config=config)

    monkeypatch.setattr(target, recorded)
    return seen


def test_a_library_call_runs_with_the_callers_collector_as_it_is(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _recording(monkeypatch, "ranking.pipeline.validate")
    rank_bytes(RAW)
    assert seen == [True]
    assert gc.isenabled()


def test_a_library_call_moves_none_of_the_callers_objects_to_an_older_generation(collector_on: None) -> None:
    gc.set_threshold(10**9)  # no collection but one the library would force
    gc.collect()
    mine = [[] for _ in range(10)]
    rank_bytes(RAW)
    young = {id(o) for o in gc.get_objects(generation=0)}
    assert all(id(x) in young for x in mine)
    assert gc.get_freeze_count() == 0


def test_a_callers_disabled_collector_stays_disabled() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        rank_bytes(RAW)
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_score_runs_with_the_collector_off_and_gives_it_back(
    collector_on: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = _recording(monkeypatch, "ranking.cli.commands.score.validate")
    assert main(["score", str(EXAMPLE), "--out-dir", str(tmp_path), "--quiet"]) == 0
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize(
    "raw",
    [RAW, b"{", b'{"schema": "curator-bundle-v1"}', RAW[:-50], RAW.replace(b'"curator-bundle-v1"', b'"other"')],
    ids=["example", "truncated", "bare", "cut", "wrong-schema"],
)
def test_a_run_leaves_no_cyclic_garbage(collector_on: None, raw: bytes) -> None:
    # A command runs with the collector off: a garbage cycle made by a run would
    # stay until the process exits. There are none, bundle or input error.
    gc.collect()
    gc.disable()
    try:
        rank_bytes(raw)
    except InputError:
        pass
    assert gc.collect() == 0
