"""Exact score arithmetic (SPEC §0 "Rounding", "Numbers in output")."""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["r2", "to_json_number"]


def r2(x: Fraction) -> Fraction:
    """Round a non-negative exact rational to 2 decimals, half up: floor(100x + 1/2) / 100."""
    return Fraction(math.floor(100 * x + Fraction(1, 2)), 100)


def to_json_number(x: Fraction) -> int | float:
    """The shortest decimal that round-trips: an int when whole, else the nearest binary64.

    A multiple of 1/100 below 2^53/100 converts to the float whose shortest
    repr is exactly that 2-decimal value, so JCS writes ``33.33``, never a
    float that merely happens to print right.
    """
    if x.denominator == 1:
        return int(x)
    return float(x)
