"""docs/agentdescent.md's example, run as a reader runs it: from a folder outside any
checkout, with nothing but the installed package (its example bundle included)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ranking.testing import example_bundle, score_file
from tests.conftest import FIXTURES, REPO
from tests.installed import outside_env

DOC = (REPO / "docs" / "agentdescent.md").read_text()


def doc_example() -> tuple[str, str]:
    """The "### Example" section's program, and what the page says it prints."""
    section = DOC[DOC.index("### Example") :]
    program = re.search(r"```python\n(.*?)```", section, re.S)
    printed = re.search(r"This prints:\n\n```\n(.*?)```", section, re.S)
    assert program is not None and printed is not None
    return program.group(1), printed.group(1)


def test_the_package_ships_the_repositorys_example_bundles() -> None:
    shipped = {p.name: p.read_bytes() for p in example_bundle().parent.glob("*.json")}
    assert shipped == {p.name: p.read_bytes() for p in FIXTURES.glob("*.json")}
    assert score_file(example_bundle())["selected"] == ["p-make-test"]


def test_an_example_bundle_that_is_not_shipped_says_which_are() -> None:
    with pytest.raises(FileNotFoundError, match=r"^no example bundle 'nope.json'; the package ships .*example\.json"):
        example_bundle("nope.json")


def test_the_docs_example_prints_what_the_page_says_from_outside_the_checkout(tmp_path: Path) -> None:
    program, printed = doc_example()
    (tmp_path / "example.py").write_text(program)

    done = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, env=outside_env(), check=False
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
