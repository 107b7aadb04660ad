"""bench/gepa_criterion.py runs and reports every row (its times are measured, never asserted)."""

from __future__ import annotations

import pytest

from bench import gepa_criterion


def test_the_gepa_bench_prints_each_cost_per_proposal(capsys: pytest.CaptureFixture[str]) -> None:
    assert gepa_criterion.main(["--examples", "4", "--runs", "3", "--warmup", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4-example minibatches, 3 proposals per row (after 1), wall ms:\n")
    for name in ("bundle_of", "+ load", "should_accept", "should_accept, ledger="):
        assert f"  {name} " in out
