"""bench/report_model.py runs and reports each cost (its times are measured, never asserted)."""

from __future__ import annotations

import pytest

from bench import report_model
from tests.conftest import FIXTURES


def test_report_model_prints_the_readers_cost_and_pydantics(capsys: pytest.CaptureFixture[str]) -> None:
    assert report_model.main([str(FIXTURES / "example.json"), "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    assert "report of example.json: 3 proposals; best of 2, CPU" in out
    for name in ("ranking_report_of", "import pydantic", "TypeAdapter(RankingReport)", "adapter.validate_python"):
        assert f"  {name} " in out
