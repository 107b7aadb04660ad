"""Every input the fuzzer found that broke the property, by name, with what it must do now.

Minimized by hand from the campaign's findings (docs/fuzzing.md, "Findings").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from curator_io.sealing import seal_bundle, unsealed_places
from ranking.cli import main

#: Documents that are not bundles but that `seal` is given all the same.
NOT_QUITE_BUNDLES = {
    "memory is a number": {"memory": 5},
    "no memory": {"evidence": [{"id": "ev-1"}]},
    "memory is a list of pairs": {"memory": [["instructions", []]]},
    "instructions are not a list": {"memory": {"instructions": 5}},
}


@pytest.mark.parametrize("doc", NOT_QUITE_BUNDLES.values(), ids=NOT_QUITE_BUNDLES.keys())
def test_sealing_a_document_without_a_memory_object_seals_what_is_there(doc: dict[str, Any]) -> None:
    sealed = seal_bundle(doc)
    assert unsealed_places(sealed) == []
    assert sealed["memory"] == doc["memory"] if "memory" in doc else "memory" not in sealed


def test_seal_then_score_a_document_whose_memory_is_a_number(tmp_path: Path, capsys) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"memory": 5}')
    assert main(["seal", str(path)]) == 0
    assert capsys.readouterr() == (f"{path}: sealed 1 place\n", "")
    assert main(["score", str(path), "--out-dir", str(tmp_path / "out")]) == 3
    assert capsys.readouterr().err.startswith(f"evidence-rank: {path}: input.schema at '/schema'")
