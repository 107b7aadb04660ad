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


def test_stages_on_cpu_time_names_the_costliest_functions_under_the_profiler(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert stages.main([str(FIXTURES / "example.json"), "--repeat", "1", "--cpu", "--profile", "3"]) == 0
    out = capsys.readouterr().out
    assert "(CPU time)" in out
    profile = out.split("cProfile, 1 runs")[1].splitlines()[1:]
    assert len(profile) == 3
    assert all(" ms " in row and "calls" in row for row in profile)
