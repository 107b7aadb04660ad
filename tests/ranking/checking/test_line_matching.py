"""The gate's prose comparison matches lines in time near linear in them (issue 55, finding 3):
every match is of equal lines in order, an edit as people make it is reported exactly as
difflib reports it, and a stretch it cannot match cheaply is reported whole, never hidden."""

from __future__ import annotations

import difflib
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.checking.line_matching import EXACT_CELLS, matching_lines

LINES = st.lists(st.sampled_from(["", "a", "b", "c", "- x", None]), max_size=40)


def _unmatched(a: list, b: list, pairs: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    return [i for i in range(len(a)) if i not in {i for i, _ in pairs}], [
        j for j in range(len(b)) if j not in {j for _, j in pairs}
    ]


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_every_match_is_of_equal_lines_in_the_same_order_in_both(a: list, b: list) -> None:
    pairs = matching_lines(a, b)

    assert all(a[i] == b[j] for i, j in pairs)
    assert pairs == sorted(pairs) and len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
    assert all(i2 > i1 and j2 > j1 for (i1, j1), (i2, j2) in itertools.pairwise(pairs))


@settings(max_examples=300, deadline=None)
@given(LINES, st.integers(min_value=0, max_value=40), st.lists(st.sampled_from(["", "new", "- y"]), min_size=1))
def test_lines_added_in_one_place_are_all_that_is_reported(base: list, at: int, added: list) -> None:
    at = min(at, len(base))
    after = base[:at] + added + base[at:]

    removed, new = _unmatched(base, after, matching_lines(base, after))

    assert removed == [] and len(new) == len(added)


@settings(max_examples=200, deadline=None)
@given(LINES, LINES)
def test_small_texts_are_matched_as_fully_as_difflib_matches_them(a: list, b: list) -> None:
    ours = len(matching_lines(a, b))
    theirs = sum(block.size for block in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks())

    assert ours >= theirs or len(a) * len(b) > EXACT_CELLS


def test_an_empty_line_added_after_a_paragraph_is_reported_where_difflib_reports_it() -> None:
    base = ["# A", "", "Text.", "", "## B", ""]
    after = ["# A", "", "Text.", "", "- sneaked", "", "## B", ""]

    matcher = difflib.SequenceMatcher(a=base, b=after, autojunk=False)
    theirs = [(j1, j2) for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal"]

    assert theirs == [(4, 6)]
    assert _unmatched(base, after, matching_lines(base, after)) == ([], [4, 5])


def test_thousands_of_repeated_paragraphs_with_two_edits_report_both_and_nothing_else() -> None:
    base = ["Same.", ""] * 8000
    after = list(base)
    after[100], after[15000] = "Changed.", "Changed too."

    removed, added = _unmatched(base, after, matching_lines(base, after))

    assert 100 in added and 15000 in added and 100 in removed and 15000 in removed
    assert all(base[i] != after[j] for i, j in zip(removed, added, strict=False) if i in (100, 15000))
