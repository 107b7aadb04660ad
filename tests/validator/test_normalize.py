"""norm(s) (SPEC §0), step by step."""

from __future__ import annotations

import pytest

from validator import norm


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run  the\ttests", "run the tests"),  # whitespace runs fold
        ("Use make test.", "use make test"),  # trailing punctuation
        ("Use make test. ! ;", "use make test"),  # removed one by one, trimming between
        ("  Use make test :, ", "use make test"),
        ("CAFE\u0301", "caf\u00e9"),  # NFC before lowercasing
        ("STRASSE", "strasse"),
        ("İ", "i\u0307"),  # full lowercase mapping, as str.lower()
        ("a\u00a0b\u2003c\u3000d\u0085e", "a b c d e"),  # White_Space property
        ("a\u200bb", "a\u200bb"),  # zero-width space is not White_Space
        ("a\u001cb", "a\u001cb"),  # information separators are not in the set
        ("...", ""),
        ("a.b", "a.b"),  # only trailing characters
        ("Done?", "done?"),  # ? is not in the set
    ],
)
def test_norm(text: str, expected: str) -> None:
    assert norm(text) == expected
