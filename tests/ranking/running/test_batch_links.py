"""Symbolic links a batch folder may hold (issue 24): a link that loops back to itself, two
links to each other, a link to the folder itself or to a parent. The batch ends (no link to
a folder is followed), skips each loop with one warning line, and scores the rest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, visible_files


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    inbox = tmp_path / "in"
    (inbox / "sub").mkdir(parents=True)
    (inbox / "a.json").write_bytes((FIXTURES / "example.json").read_bytes())
    os.symlink("loop.json", inbox / "loop.json")
    os.symlink("other.json", inbox / "one.json")
    os.symlink("one.json", inbox / "other.json")
    os.symlink("..", inbox / "sub" / "up.json")
    os.symlink(".", inbox / "self.json")
    os.symlink(tmp_path, inbox / "root")
    return inbox


@pytest.mark.parametrize("extra", [[], ["--glob", "*"]], ids=["*.json", "every name"])
def test_symlink_loops_and_links_to_parents_are_skipped_with_one_line_each(
    linked: Path, tmp_path: Path, extra: list[str]
) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "ranking.cli", "batch", str(linked), "--out-dir", str(out), "-q", *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    warnings = sorted(proc.stderr.splitlines())
    assert warnings == [
        f"evidence-rank: warning: skipped {str(linked / name)!r}: a loop of symbolic links"
        for name in ("loop.json", "one.json", "other.json")
    ]
    assert visible_files(out / "reports") == ["000001-in_a"]
