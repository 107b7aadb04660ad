"""Exact score arithmetic (SPEC §0 "Rounding", "Numbers in output").

Every §4 component is ``r2`` of an exact rational, so it is a whole number of
hundredths. Scores are kept as ``int`` hundredths from the moment they are
rounded until they are written: exact, and far cheaper than ``Fraction``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = ["r2", "r2_hundredths", "hundredths_to_json"]


def r2(x: Fraction) -> Fraction:
    """Round a non-negative exact rational to 2 decimals, half up: floor(100x + 1/2) / 100."""
    from fractions import Fraction  # here: the views need it, and ``score`` would pay for its import

    return Fraction(r2_hundredths(x.numerator, x.denominator), 100)


def r2_hundredths(numerator: int, denominator: int) -> int:
    """``100 · r2(numerator / denominator)`` for non-negative integers, exactly.

    floor(100·n/d + 1/2) = floor((200·n + d) / (2·d)).
    """
    return (200 * numerator + denominator) // (2 * denominator)


def hundredths_to_json(h: int) -> int | float:
    """The shortest decimal that round-trips: an int when whole, else the nearest binary64.

    ``h / 100`` is correctly rounded (Python's int true division), and the
    shortest repr of the binary64 nearest a 2-decimal value is that value, so
    JCS writes ``33.33``, never a float that merely happens to print right.
    """
    whole, rest = divmod(h, 100)
    return whole if rest == 0 else h / 100
