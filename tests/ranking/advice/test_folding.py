"""Look-alikes compare what a reader sees (issue 55, finding 6): invisible characters and
confusable letters do not hide a look-alike, and SPEC's ``norm`` is untouched by it."""

from __future__ import annotations

import pytest

from ranking.advice.folding import fold
from ranking.advice.lookalikes import resemblance
from validator import norm

PLAIN = "Never run the tests before you push."


@pytest.mark.parametrize(
    "hidden",
    [
        "Never run the te\u200bsts before you pu\u200bsh.",  # zero-width space
        "Never run the te\u00adsts before you pu\u00adsh.",  # soft hyphen
        "Never run the te\u2060sts before you pu\ufeffsh.",  # word joiner, BOM
        "Never run the t\u0435sts before you pu\u0455h.",  # Cyrillic ie and dze
        "Never run the \uff54\uff45\uff53\uff54\uff53 before you push.",  # fullwidth
        "NEVER RUN THE TESTS BEFORE YOU PU\u0405H.",  # Cyrillic capital dze
    ],
)
def test_an_invisible_or_confusable_character_does_not_hide_a_look_alike(hidden: str) -> None:
    assert resemblance(hidden, "Run the tests before you push.") == resemblance(PLAIN, "Run the tests before you push.")
    assert resemblance(hidden, "Run the tests before you push.") is not None


def test_folding_is_for_advice_only_norm_still_tells_the_spellings_apart() -> None:
    assert norm("te\u200bsts") != norm("tests")
    assert fold("te\u200bsts") == fold("tests") == "tests"


def test_a_letter_that_looks_like_no_latin_one_is_kept() -> None:
    assert fold("\u0436\u043a") == "\u0436\u043a"  # Cyrillic zhe and ka: no Latin twin in lower case
