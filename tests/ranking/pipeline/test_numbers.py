"""Exact score arithmetic against SPEC §0's rounding, written out again here."""

from __future__ import annotations

import math
from fractions import Fraction

from ranking.pipeline.numbers import hundredths_to_json, r2, r2_hundredths


def _spec_r2(x: Fraction) -> Fraction:
    """SPEC §0: half up to 2 decimals."""
    return Fraction(math.floor(100 * x + Fraction(1, 2)), 100)


def test_r2_and_r2_hundredths_round_half_up_exactly() -> None:
    for denominator in range(1, 61):
        for numerator in range(301):
            x = Fraction(numerator, denominator)
            assert r2(x) == _spec_r2(x), x
            assert r2_hundredths(numerator, denominator) == 100 * _spec_r2(x), x


def test_hundredths_are_written_as_the_shortest_decimal() -> None:
    assert hundredths_to_json(4000) == 40
    assert type(hundredths_to_json(4000)) is int
    assert repr(hundredths_to_json(3333)) == "33.33"
    assert repr(hundredths_to_json(5)) == "0.05"
