"""ranking.ledger.notes.wording.one_line: a curator's rationale on one line, as the notes show it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ranking.ledger.notes.wording import NOTE_CHARS, one_line


def test_line_breaks_and_control_characters_become_one_space() -> None:
    assert one_line("  Run\tthe\r\ntests\x00 first. \u2028") == "Run the tests first."


def test_a_long_rationale_is_cut_to_the_limit_with_an_ellipsis() -> None:
    cut = one_line("word " * 100)
    assert len(cut) == NOTE_CHARS and cut.endswith("word…")
    assert one_line("x" * NOTE_CHARS) == "x" * NOTE_CHARS


@given(st.text(), st.integers(min_value=1, max_value=300))
def test_the_line_is_printable_single_spaced_and_within_the_limit(text: str, limit: int) -> None:
    line = one_line(text, limit)
    assert len(line) <= limit and line.isprintable() and "  " not in line
    assert line == line.strip() or line.endswith("…")
