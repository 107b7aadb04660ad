"""docs/gepa.md's example runs as written, from a folder outside the checkout, and prints
what the page says it prints (issue 36: "docs/gepa.md's example runs as written")."""

from __future__ import annotations

from pathlib import Path

from tests.docs.doc_examples import assert_needs_nothing_from_the_checkout, assert_prints_what_the_page_says


def test_the_example_prints_what_the_page_says(tmp_path: Path) -> None:
    assert_prints_what_the_page_says("gepa.md", tmp_path)  # its ledger is temporary: nothing is left


def test_the_example_needs_nothing_from_the_checkout() -> None:
    assert_needs_nothing_from_the_checkout("gepa.md")
