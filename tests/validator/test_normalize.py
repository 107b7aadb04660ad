"""norm(s) (SPEC §0), step by step."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator import norm
from validator.normalize import _WHITESPACE


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


def test_every_whitespace_character_but_the_space_is_unprintable() -> None:
    # norm skips the fold for printable text without a double space; this is why that is exact.
    whitespace = [chr(c) for c in range(0x110000) if _WHITESPACE.fullmatch(chr(c))]
    assert len(whitespace) == 25
    assert [c for c in whitespace if c.isprintable()] == [" "]


#: Whitespace, trailing punctuation and case mappings, mixed with any other character.
_TRICKY = st.sampled_from("aB. !;:,\t\n\u00a0\u2028\u3000\u0301e\u0130")


@settings(max_examples=500)
@given(st.text(_TRICKY | st.characters(blacklist_categories=("Cs",))))
def test_norm_folds_exactly_as_the_whitespace_pattern_does(text: str) -> None:
    folded = _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text).lower()).strip(" ")
    while folded and folded[-1] in ".!;:,":
        folded = folded[:-1].rstrip(" ")
    assert norm(text) == folded
