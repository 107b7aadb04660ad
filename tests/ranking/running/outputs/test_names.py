"""A bundle's folder is named by one rule and recognised by one pattern: the folders a
batch may remove, and the only ``output`` a summary may name, are exactly the names it gives."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ranking.running.outputs import BUNDLE_FOLDER, REPORTS, bundle_folder, runs_folder


@given(
    index=st.integers(min_value=1, max_value=10**7),
    name=st.text(min_size=0, max_size=120),
    line=st.none() | st.integers(min_value=1, max_value=10**9),
)
def test_every_folder_a_bundle_is_given_is_recognised_as_one_with_its_index(
    index: int, name: str, line: int | None
) -> None:
    parent, _, folder = bundle_folder(index, name, line).partition("/")

    found = BUNDLE_FOLDER.fullmatch(folder)
    assert parent == REPORTS
    assert found is not None and int(found.group(1)) == index
    assert not folder.startswith(".")


def test_names_that_are_not_a_bundle_folder_are_not_recognised() -> None:
    for name in ("..", ".000001-x", "000001-", "00001-x", "000001-.hidden", "000001-a/b", "notes"):
        assert BUNDLE_FOLDER.fullmatch(name) is None, name


def test_the_run_views_of_a_page_sit_beside_it_named_after_it() -> None:
    assert runs_folder(Path("site/batch.html")) == Path("site/batch-runs")
