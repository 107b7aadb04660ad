"""A page's "### Example": the Python block under that heading runs as a reader would run it,
from a folder outside the checkout, and prints the block after "This prints:" (docs/gepa.md,
docs/ace.md: pages whose example needs an extra, so a test of their own runs it)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.installed import outside_env

__all__ = ["example", "assert_prints_what_the_page_says", "assert_needs_nothing_from_the_checkout"]


def example(page: str) -> tuple[str, str]:
    """The code block under "### Example" of ``docs/<page>`` and the output block after "This prints:"."""
    text = (REPO / "docs" / page).read_text("utf-8")
    start = text.index("### Example\n")
    section = text[start : text.index("\n### ", start + 1)]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    printed = re.search(r"This prints:\n\n```\n(.*?)```", section, re.S)
    assert printed is not None
    return code, printed.group(1)


def assert_prints_what_the_page_says(page: str, folder: Path) -> None:
    """The example, run as ``folder/example.py`` by this test run's Python, exits 0, prints what
    the page shows, and leaves nothing behind (a ledger it keeps is temporary)."""
    code, printed = example(page)
    (folder / "example.py").write_text(code, "utf-8")
    done = subprocess.run(
        [sys.executable, "example.py"], cwd=folder, capture_output=True, text=True, env=outside_env(), check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
    assert sorted(p.name for p in folder.iterdir()) == ["example.py"]


def assert_needs_nothing_from_the_checkout(page: str) -> None:
    code, _ = example(page)
    assert "fixtures" not in code and "tests" not in code and "REPO" not in code
