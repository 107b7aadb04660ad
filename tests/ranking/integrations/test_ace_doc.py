"""docs/ace.md's example runs as written, from a folder outside the checkout, and prints what
the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.installed import outside_env

pytest.importorskip("ace", reason="ace-framework needs Python 3.12 or newer: make test runs this in .venv-ace")
pytestmark = pytest.mark.ace

PAGE = (REPO / "docs" / "ace.md").read_text("utf-8")


def _example() -> tuple[str, str]:
    """The code block under "### Example" and the output block after "This prints:"."""
    section = PAGE[PAGE.index("### Example\n") : PAGE.index("\n### ", PAGE.index("### Example\n") + 1)]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    printed = re.search(r"This prints:\n\n```\n(.*?)```", section, re.S)
    assert printed is not None
    return code, printed.group(1)


def test_the_example_prints_what_the_page_says(tmp_path: Path) -> None:
    code, printed = _example()
    (tmp_path / "example.py").write_text(code, "utf-8")
    done = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, env=outside_env(), check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["example.py"]


def test_the_example_needs_nothing_from_the_checkout() -> None:
    code, _ = _example()
    assert "fixtures" not in code and "tests" not in code and "REPO" not in code
