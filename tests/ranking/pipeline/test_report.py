"""SPEC §6: a RankingEntry is the ValidationEntry plus the ranking's members."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import rfc8785

from curator_io import load_bundle
from ranking.pipeline import rank
from tests.conftest import FIXTURES

BUNDLES = sorted(FIXTURES.glob("*.json"))
RANKING_MEMBERS = ["disposition", "score", "rank", "superseded_by", "rationale"]


@pytest.mark.parametrize("bundle", BUNDLES, ids=[p.name for p in BUNDLES])
def test_a_ranking_entry_is_its_validation_entry_plus_the_ranking_members(bundle: Path) -> None:
    result = rank(load_bundle(bundle.read_bytes()))
    validated = result.validation.report["proposals"]
    ranked = result.report["proposals"]
    assert [e["id"] for e in ranked] == [e["id"] for e in validated]
    for v, r in zip(validated, ranked, strict=True):
        assert list(r) == [*v, *RANKING_MEMBERS]
        assert {k: r[k] for k in v if k != "reasons"} == {k: v[k] for k in v if k != "reasons"}
        # The ranking reason joins the validation reasons; none is lost.
        assert all(reason in r["reasons"] for reason in v["reasons"])


def test_the_two_reports_share_nothing_that_can_be_changed() -> None:
    result = rank(load_bundle((FIXTURES / "example.json").read_bytes()))
    for v, r in zip(result.validation.report["proposals"], result.report["proposals"], strict=True):
        assert r is not v and r["reasons"] is not v["reasons"]
        assert r["support"] is None or r["support"] is not v["support"]


def _floats(value: object) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list | tuple):
        return [f for v in value for f in _floats(v)]
    return []


@pytest.mark.parametrize("bundle", BUNDLES, ids=[p.name for p in BUNDLES])
def test_report_entries_are_written_by_orjson_as_jcs(bundle: Path) -> None:
    """A float only for a score that is not whole: ``canon`` finds nothing to write itself."""
    result = rank(load_bundle(bundle.read_bytes()))
    for report in (result.validation.report, result.report):
        assert report["proposals"]
        for x in _floats(report["proposals"]):
            assert not x.is_integer() and 0.01 <= abs(x) <= 100 and round(x, 2) == x
        assert orjson.dumps(report["proposals"], option=orjson.OPT_SORT_KEYS) == rfc8785.dumps(report["proposals"])
