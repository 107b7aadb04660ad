"""The report model: frozen types read by attribute, built without pydantic."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from curator_io import canon, load_bundle
from curator_io.report_model import RankingReport, ReportScore, ranking_report_of
from ranking.pipeline import rank
from tests.conftest import FIXTURES, REPO


def _example() -> dict:
    return json.loads(canon(rank(load_bundle((FIXTURES / "example.json").read_bytes())).report))


def test_reading_a_report_imports_no_pydantic() -> None:
    # Only generating the schema needs pydantic (curator_io.schema_generator); verify and batch pay nothing for it.
    script = (
        "import sys\n"
        "from curator_io.report_model import ranking_report_of\n"
        "print(sorted(m for m in ('pydantic', 'pydantic_core') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.strip() == "[]"


def test_a_report_is_read_by_attribute_with_its_members_as_written() -> None:
    document = _example()

    report = ranking_report_of(document)

    assert isinstance(report, RankingReport)
    assert report.digest == document["digest"]
    assert report.config.to_json() == document["config"]
    assert report.selected == tuple(document["selected"])
    assert [e.id for e in report.proposals] == [e["id"] for e in document["proposals"]]
    first = document["proposals"][0]
    assert report.proposals[0].reasons[0].code == first["reasons"][0]["code"]
    scored = [(e, m) for e, m in zip(document["proposals"], report.proposals, strict=True) if e["score"] is not None]
    assert scored
    for e, m in scored:
        assert isinstance(m.score, ReportScore)
        assert dataclasses.asdict(m.score) == e["score"]
        assert m.support is not None and m.support.lineages == e["support"]["lineages"]


def test_a_report_model_is_frozen() -> None:
    report = ranking_report_of(_example())

    with pytest.raises(dataclasses.FrozenInstanceError):
        report.run = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.proposals[0].disposition = "selected"  # type: ignore[misc]
