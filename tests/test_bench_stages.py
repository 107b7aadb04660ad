"""bench/stages.py runs and reports every stage (its times are measured, never asserted)."""

from __future__ import annotations

import gc

import pytest

from bench import stages
from tests.conftest import FIXTURES


def test_stages_prints_each_stage_and_leaves_the_collector_as_found(capsys: pytest.CaptureFixture[str]) -> None:
    assert gc.isenabled()
    assert stages.main([str(FIXTURES / "example.json"), "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    for stage in (*stages.STAGES, "whole run"):
        assert f"  {stage} " in out
    assert "best of 2 runs" in out
    assert gc.isenabled()


def test_time_stages_gives_every_stage_in_run_order() -> None:
    times = stages.time_stages((FIXTURES / "example.json").read_bytes())
    assert list(times) == list(stages.STAGES)
    assert all(t >= 0 for t in times.values())
