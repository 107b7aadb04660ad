"""Parity is the first test: every case of ../shared/parity/cases, byte for byte.

Each case folder holds a bundle, an optional config and either the two
expected reports (and the memory ``apply`` permits) as canonical RFC 8785
bytes, or the code of the input error the bundle is refused with.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator_io import InputError, canon, load_bundle, parse_config, parse_json
from ranking.apply import apply_selection
from ranking.pipeline import rank
from tests.conftest import parity_cases

CASES = parity_cases()


def test_the_parity_corpus_is_all_there() -> None:
    # The corpus README: 93 cases at the time of writing; a refresh may add more, never fewer.
    assert len(CASES) >= 93


def _config(case: Path):
    path = case / "config.json"
    return parse_config(parse_json(path.read_bytes()) if path.exists() else {})


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity_case_matches_the_reference_byte_for_byte(case: Path) -> None:
    raw = (case / "bundle.json").read_bytes()
    config = _config(case)
    error_file = case / "expected.error.json"
    if error_file.exists():
        expected_code = json.loads(error_file.read_bytes())["code"]
        with pytest.raises(InputError) as caught:
            load_bundle(raw)
        assert caught.value.code == expected_code
        assert caught.value.pointer is not None and (caught.value.pointer == "" or caught.value.pointer.startswith("/"))
        return

    bundle = load_bundle(raw)
    result = rank(bundle, config)
    # What is written (made with the seal) and what canon() makes of the report both match.
    assert (
        result.validation.canonical
        == canon(result.validation.report)
        == (case / "expected.validation.json").read_bytes()
    )
    assert result.canonical == canon(result.report) == (case / "expected.report.json").read_bytes()
    assert canon(apply_selection(bundle, result.report)) == (case / "expected.apply.json").read_bytes()
