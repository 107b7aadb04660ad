"""Look-alikes cost start-up only when there is something for them (issue 55, finding 9): rapidfuzz
is imported only when two texts share enough words to be scored, and the gate imports no
look-alike module when memory-after adds or changes no instruction."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES
from tests.startup import imported_by

EXAMPLE = FIXTURES / "example.json"
WATCHED = ("rapidfuzz", "ranking.advice.lookalikes")


def _imported(argv: list[str]) -> tuple[int, list[str]]:
    """Run ``main(argv)`` in a fresh interpreter: its exit code, and which of WATCHED it imported."""
    return imported_by(argv, WATCHED)


def test_scores_table_on_the_example_scores_no_pair_so_imports_no_rapidfuzz(tmp_path: Path) -> None:
    # The example's selected edits share too few words with anything to be scored at all.
    assert _imported(["score", str(EXAMPLE), "--out-dir", str(tmp_path)]) == (0, ["ranking.advice.lookalikes"])


def test_a_gate_on_a_memory_that_adds_and_changes_nothing_imports_no_look_alike_module(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(json.dumps(json.loads(EXAMPLE.read_bytes())["memory"]), "utf-8")
    code, _ = _imported(["score", str(EXAMPLE), "--out-dir", str(tmp_path / "out"), "-q"])
    assert code == 0
    gate = ["gate", "--bundle", str(EXAMPLE), "--report", str(tmp_path / "out" / "report.json")]
    gate += ["--memory-after", str(base), "--memory-before", str(base)]
    # Memory-after lacks what the selection adds, so the gate fails; it had nothing to compare for look-alikes.
    assert _imported(gate) == (1, [])
