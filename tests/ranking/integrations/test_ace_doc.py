"""docs/ace.md's example runs as written, from a folder outside the checkout, and prints what
the page says it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.doc_examples import assert_needs_nothing_from_the_checkout, assert_prints_what_the_page_says

pytest.importorskip("ace", reason="ace-framework needs Python 3.12 or newer: make test runs this in .venv-ace")
pytestmark = pytest.mark.ace


def test_the_example_prints_what_the_page_says(tmp_path: Path) -> None:
    assert_prints_what_the_page_says("ace.md", tmp_path)


def test_the_example_needs_nothing_from_the_checkout() -> None:
    assert_needs_nothing_from_the_checkout("ace.md")
