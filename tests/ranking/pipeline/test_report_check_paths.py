"""The short paths of report checking equal the long ones: scores compared in
hundredths, and ``explain`` checking what its sentences rest on, once."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from curator_io import InvariantError, load_bundle, seal
from ranking.checking.acceptance import accept
from ranking.checking.explain import explain
from ranking.checking.verification import _hundredths
from tests.conftest import PARITY
from validator import validation

MIXED = PARITY / "002-mixed-dispositions"


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers(0, 10**13).map(lambda k: k / 100))
def test_hundredths_of_a_float_is_a_hundred_times_its_shortest_decimal(x: float) -> None:
    assert _hundredths(x) == Fraction(repr(x)) * 100


@given(st.integers())
def test_hundredths_of_an_int_is_a_hundred_times_it(n: int) -> None:
    assert _hundredths(n) == 100 * n


def test_a_two_decimal_score_is_an_int_number_of_hundredths() -> None:
    assert [_hundredths(x) for x in (33.33, 0.1, 99.99, 12.5, 40)] == [3333, 10, 9999, 1250, 4000]
    assert type(_hundredths(0.1 + 0.2)) is Fraction  # 0.30000000000000004 is not a whole hundredth


def test_explain_refuses_a_report_resealed_after_an_edit_to_another_proposal() -> None:
    # What explain says about one proposal (its rank among the eligible, what was selected
    # ahead of it) rests on the whole report, so an edit anywhere is refused.
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    last = len(report["proposals"]) - 1
    assert report["proposals"][last]["disposition"] == "rejected"
    report["proposals"][last]["disposition"] = "deferred"

    with pytest.raises(InvariantError) as caught:
        explain(accept(seal(report)), report["proposals"][0]["id"])

    assert caught.value.code == "invariant.partition"
    assert caught.value.pointer == f"/proposals/{last}/disposition"


def test_explain_with_the_bundle_validates_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    report = json.loads((MIXED / "expected.report.json").read_bytes())
    bundle = load_bundle((MIXED / "bundle.json").read_bytes())
    calls = []
    real = validation.make_context  # one call per validation of a bundle, whoever imported validate
    monkeypatch.setattr(validation, "make_context", lambda *a, **k: calls.append(1) or real(*a, **k))

    text = "\n".join(explain(accept(report, bundle=bundle), report["proposals"][0]["id"]).render())

    assert calls == [1]
    assert "Evidence" in text
