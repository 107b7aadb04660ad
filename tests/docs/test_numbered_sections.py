"""A page's numbered sections count up from 1 (SPEC's from 0), one number each (issue 54: docs/gate-your-curator.md
had two sections numbered 5)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

_NUMBERED = re.compile(r"^## (\d+)\. ", re.M)
PAGES = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md")) + ["README.md"]


@pytest.mark.parametrize("page", PAGES)
def test_a_pages_numbered_sections_count_up_one_number_each(page: str) -> None:
    text = re.sub(r"^```.*?^```", "", (REPO / page).read_text("utf-8"), flags=re.M | re.S)  # not in code

    numbers = [int(n) for n in _NUMBERED.findall(text)]

    first = 0 if page == "docs/SPEC.md" else 1
    assert numbers == list(range(first, first + len(numbers)))
